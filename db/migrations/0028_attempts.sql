CREATE TABLE `attempt_flags` (
	`github_repo_id` integer NOT NULL,
	`login_key` text NOT NULL,
	`login` text NOT NULL,
	`flagged_by_user_id` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `login_key`),
	FOREIGN KEY (`flagged_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `attempt_settings` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`mode` text,
	`audience` text,
	`lock_ms` integer,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_by_user_id` integer,
	PRIMARY KEY(`github_repo_id`, `issue_number`),
	FOREIGN KEY (`updated_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `bounty_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`user_id` integer NOT NULL,
	`github_user_id` integer NOT NULL,
	`github_login` text NOT NULL,
	`status` text NOT NULL,
	`note` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`held_from` integer,
	`locked_until` integer,
	`ended_at` integer,
	`end_reason` text,
	`pull_number` integer,
	`notified_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bounty_attempts_one_holder` ON `bounty_attempts` (`github_repo_id`,`issue_number`) WHERE status = 'holding';--> statement-breakpoint
CREATE UNIQUE INDEX `bounty_attempts_one_live` ON `bounty_attempts` (`github_repo_id`,`issue_number`,`user_id`) WHERE status in ('holding', 'queued', 'applied', 'working');--> statement-breakpoint
CREATE INDEX `bounty_attempts_issue_idx` ON `bounty_attempts` (`github_repo_id`,`issue_number`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `bounty_attempts_user_idx` ON `bounty_attempts` (`user_id`,`status`);--> statement-breakpoint
CREATE INDEX `bounty_attempts_locks_idx` ON `bounty_attempts` (`status`,`locked_until`);--> statement-breakpoint
CREATE TABLE `contributor_merges` (
	`github_user_id` integer NOT NULL,
	`github_repo_id` integer NOT NULL,
	`pull_number` integer NOT NULL,
	`merged_at` integer NOT NULL,
	PRIMARY KEY(`github_user_id`, `github_repo_id`, `pull_number`)
);
--> statement-breakpoint
CREATE TABLE `pull_previews` (
	`github_repo_id` integer NOT NULL,
	`pull_number` integer NOT NULL,
	`author_github_id` integer NOT NULL,
	`author_login` text NOT NULL,
	`state` text NOT NULL,
	`closes` text DEFAULT '[]' NOT NULL,
	`mentions` text DEFAULT '[]' NOT NULL,
	`comment_id` integer,
	`body_hash` text,
	`told_of_other_merge_at` integer,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `pull_number`)
);
--> statement-breakpoint
CREATE INDEX `pull_previews_state_idx` ON `pull_previews` (`github_repo_id`,`state`);