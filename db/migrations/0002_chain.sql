CREATE TABLE `bounties` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	`status` text NOT NULL,
	`recipient` text,
	`allocated_tx` text NOT NULL,
	`paid_tx` text,
	`allocated_at` integer NOT NULL,
	`closed_at` integer,
	`issue_title` text,
	`issue_url` text,
	`updated_block` integer NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `issue_number`)
);
--> statement-breakpoint
CREATE INDEX `bounties_status_idx` ON `bounties` (`status`,`github_repo_id`);--> statement-breakpoint
CREATE TABLE `bounty_claims` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `issue_number`, `user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `chain_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`chain_id` integer NOT NULL,
	`last_block` integer NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `chain_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain_id` integer NOT NULL,
	`block_number` integer NOT NULL,
	`block_time` integer,
	`tx_hash` text NOT NULL,
	`log_index` integer NOT NULL,
	`name` text NOT NULL,
	`repo_id` integer,
	`issue_number` integer,
	`args` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chain_events_log_idx` ON `chain_events` (`chain_id`,`tx_hash`,`log_index`);--> statement-breakpoint
CREATE INDEX `chain_events_repo_idx` ON `chain_events` (`repo_id`,`block_number`);--> statement-breakpoint
CREATE TABLE `chain_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer,
	`idempotency_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`kind` text NOT NULL,
	`github_repo_id` integer,
	`issue_number` integer,
	`intent` text NOT NULL,
	`wallet_id` text,
	`from_address` text NOT NULL,
	`chain_id` integer NOT NULL,
	`to_address` text NOT NULL,
	`data` text NOT NULL,
	`value` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`nonce` integer,
	`gas_limit` text,
	`gas_price` text,
	`raw_tx` text,
	`tx_hash` text,
	`block_number` integer,
	`confirmations` integer DEFAULT 0 NOT NULL,
	`error` text,
	`lease_owner` text,
	`lease_until` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`sent_at` integer,
	`confirmed_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_idempotency_idx` ON `chain_transactions` (`user_id`,`idempotency_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_nonce_idx` ON `chain_transactions` (`chain_id`,`from_address`,`nonce`);--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_hash_idx` ON `chain_transactions` (`tx_hash`);--> statement-breakpoint
CREATE INDEX `chain_tx_status_idx` ON `chain_transactions` (`status`,`from_address`,`created_at`);--> statement-breakpoint
CREATE INDEX `chain_tx_repo_kind_idx` ON `chain_transactions` (`github_repo_id`,`kind`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_one_payout_idx` ON `chain_transactions` (`github_repo_id`,`issue_number`) WHERE "chain_transactions"."kind" = 'pay_bounty' and "chain_transactions"."status" not in ('failed', 'reverted');--> statement-breakpoint
CREATE TABLE `wallet_nonces` (
	`key` text PRIMARY KEY NOT NULL,
	`next_nonce` integer NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `worker_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`until` integer NOT NULL
);
