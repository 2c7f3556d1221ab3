CREATE TABLE `held_payouts` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`github_user_id` integer NOT NULL,
	`github_login` text NOT NULL,
	`pull_number` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`released_at` integer,
	PRIMARY KEY(`github_repo_id`, `issue_number`)
);
--> statement-breakpoint
CREATE INDEX `held_payouts_user_idx` ON `held_payouts` (`github_user_id`,`released_at`);