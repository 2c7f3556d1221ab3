CREATE TABLE `pull_request_waits` (
	`github_repo_id` integer NOT NULL,
	`pull_number` integer NOT NULL,
	`author_login` text NOT NULL,
	`author_github_id` integer NOT NULL,
	`issue_numbers` text NOT NULL,
	`title` text,
	`html_url` text,
	`opened_at` integer NOT NULL,
	`waiting_since` integer NOT NULL,
	`first_review_at` integer,
	`first_reviewer` text,
	`first_review_kind` text,
	`merged_at` integer,
	`closed_at` integer,
	`reminded_level` integer DEFAULT 0 NOT NULL,
	`reminded_at` integer,
	`past_deadline` integer DEFAULT false NOT NULL,
	`release_requested_at` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `pull_number`)
);
--> statement-breakpoint
CREATE INDEX `pull_request_waits_open_idx` ON `pull_request_waits` (`first_review_at`,`closed_at`,`waiting_since`);--> statement-breakpoint
CREATE TABLE `repository_former_names` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`github_repo_id` integer NOT NULL,
	`full_name` text NOT NULL,
	`full_name_key` text NOT NULL,
	`move` text NOT NULL,
	`moved_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `repository_former_names_key_repo_idx` ON `repository_former_names` (`full_name_key`,`github_repo_id`);--> statement-breakpoint
CREATE INDEX `repository_former_names_repo_idx` ON `repository_former_names` (`github_repo_id`);--> statement-breakpoint
CREATE TABLE `repository_review_records` (
	`github_repo_id` integer PRIMARY KEY NOT NULL,
	`first_review_histogram` text DEFAULT '[]' NOT NULL,
	`reviews_past_deadline` integer DEFAULT 0 NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `review_settings` (
	`github_repo_id` integer PRIMARY KEY NOT NULL,
	`deadline_hours` integer NOT NULL,
	`updated_by_user_id` integer,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
