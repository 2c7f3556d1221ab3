CREATE TABLE `bounty_boosts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`user_id` integer NOT NULL,
	`funder_address` text NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	`fee` text NOT NULL,
	`anonymous` integer DEFAULT false NOT NULL,
	`expires_at` integer,
	`status` text DEFAULT 'pending' NOT NULL,
	`refund_reason` text,
	`fund_tx_id` text,
	`refund_tx_id` text,
	`idempotency_key` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`settled_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bounty_boosts_key_idx` ON `bounty_boosts` (`user_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `bounty_boosts_issue_idx` ON `bounty_boosts` (`github_repo_id`,`issue_number`,`status`);--> statement-breakpoint
CREATE INDEX `bounty_boosts_expiry_idx` ON `bounty_boosts` (`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `bounty_boosts_user_idx` ON `bounty_boosts` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `community_bounties` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`github_repo_id` integer NOT NULL,
	`repo_owner` text NOT NULL,
	`repo_name` text NOT NULL,
	`issue_number` integer NOT NULL,
	`issue_url` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`currency` text NOT NULL,
	`status` text DEFAULT 'pending_payment' NOT NULL,
	`created_by_user_id` integer,
	`created_by_login` text NOT NULL,
	`requested_amount` text,
	`claimed_by_user_id` integer,
	`claimed_by_login` text,
	`claimed_pr_number` integer,
	`claimed_pr_url` text,
	`claimed_at` integer,
	`payout_tx_id` text,
	`payout_recipient` text,
	`payout_at` integer,
	`closed_at` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`claimed_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `community_bounties_issue_idx` ON `community_bounties` (`github_repo_id`,`issue_number`) WHERE status not in ('refunded', 'expired');--> statement-breakpoint
CREATE INDEX `community_bounties_status_idx` ON `community_bounties` (`status`,`created_at`);