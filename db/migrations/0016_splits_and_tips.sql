CREATE TABLE `payout_split_shares` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`github_user_id` integer NOT NULL,
	`github_login` text NOT NULL,
	`position` integer NOT NULL,
	`weight` integer NOT NULL,
	`amount` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`tx_id` text,
	`paid_at` integer,
	PRIMARY KEY(`github_repo_id`, `issue_number`, `github_user_id`)
);
--> statement-breakpoint
CREATE INDEX `payout_split_shares_user_idx` ON `payout_split_shares` (`github_user_id`,`status`);--> statement-breakpoint
CREATE TABLE `payout_splits` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`allocated_tx` text NOT NULL,
	`pull_number` integer NOT NULL,
	`author_github_id` integer NOT NULL,
	`author_login` text NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	`status` text DEFAULT 'window' NOT NULL,
	`release_at` integer NOT NULL,
	`unresolved` text DEFAULT '[]' NOT NULL,
	`set_by` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`released_at` integer,
	PRIMARY KEY(`github_repo_id`, `issue_number`),
	FOREIGN KEY (`set_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payout_splits_due_idx` ON `payout_splits` (`status`,`release_at`);--> statement-breakpoint
CREATE TABLE `tips` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`from_user_id` integer NOT NULL,
	`to_github_id` integer NOT NULL,
	`to_login` text NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	`fee` text NOT NULL,
	`source` text NOT NULL,
	`github_repo_id` integer,
	`issue_number` integer,
	`idempotency_key` text NOT NULL,
	`status` text NOT NULL,
	`tx_id` text,
	`escrowed` integer DEFAULT false NOT NULL,
	`chain_tip_id` text,
	`pay_tx_id` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`sent_at` integer,
	FOREIGN KEY (`from_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tips_request_idx` ON `tips` (`from_user_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `tips_to_idx` ON `tips` (`to_github_id`,`status`);--> statement-breakpoint
CREATE INDEX `tips_from_idx` ON `tips` (`from_user_id`,`created_at`);