CREATE TABLE `bot_comments` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`comment_id` integer NOT NULL,
	`body_hash` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `issue_number`)
);
--> statement-breakpoint
CREATE TABLE `github_cache` (
	`key` text PRIMARY KEY NOT NULL,
	`etag` text,
	`body` text NOT NULL,
	`fetched_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `github_cache_expires_idx` ON `github_cache` (`expires_at`);--> statement-breakpoint
CREATE TABLE `github_installations` (
	`installation_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`account_login` text NOT NULL,
	`account_type` text NOT NULL,
	`repository_selection` text DEFAULT 'selected' NOT NULL,
	`suspended_at` integer,
	`deleted_at` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `one_time_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`purpose` text NOT NULL,
	`code_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`consumed_at` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `one_time_codes_user_idx` ON `one_time_codes` (`user_id`,`purpose`,`created_at`);--> statement-breakpoint
CREATE TABLE `onramp_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`type` text NOT NULL,
	`merchant_reference` text NOT NULL,
	`order_id` text,
	`status` text DEFAULT 'initiated' NOT NULL,
	`wallet_address` text NOT NULL,
	`coin` text DEFAULT 'XDC' NOT NULL,
	`network` text NOT NULL,
	`fiat_currency` text DEFAULT 'INR' NOT NULL,
	`fiat_amount` text,
	`crypto_amount` text,
	`tx_hash` text,
	`metadata` text DEFAULT '{}' NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `onramp_merchant_reference_idx` ON `onramp_transactions` (`merchant_reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `onramp_order_id_idx` ON `onramp_transactions` (`order_id`);--> statement-breakpoint
CREATE INDEX `onramp_user_idx` ON `onramp_transactions` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`delivery_id` text NOT NULL,
	`event` text NOT NULL,
	`action` text,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`received_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`processed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_source_id_idx` ON `webhook_deliveries` (`source`,`delivery_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
ALTER TABLE `repositories` ADD `default_branch` text;--> statement-breakpoint
ALTER TABLE `repositories` ADD `github_created_at` integer;--> statement-breakpoint
ALTER TABLE `repositories` ADD `github_updated_at` integer;--> statement-breakpoint
ALTER TABLE `repositories` ADD `pushed_at` integer;