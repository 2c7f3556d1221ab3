CREATE TABLE `cashout_quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	`provider_quote_id` text NOT NULL,
	`rate` text NOT NULL,
	`provider_fee_inr` text NOT NULL,
	`platform_fee_inr` text NOT NULL,
	`gas_fee` text NOT NULL,
	`fiat_amount` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `cashout_quotes_user_idx` ON `cashout_quotes` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `cashout_settings` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`upi_id` text,
	`auto_enabled` integer DEFAULT false NOT NULL,
	`auto_min_xdc` text,
	`auto_min_usdc` text,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `cashouts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`quote_id` text NOT NULL,
	`trigger` text NOT NULL,
	`reward_key` text,
	`wallet_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	`rate` text NOT NULL,
	`provider_fee_inr` text NOT NULL,
	`platform_fee_inr` text NOT NULL,
	`gas_fee` text NOT NULL,
	`fiat_amount` text NOT NULL,
	`upi_id` text NOT NULL,
	`merchant_reference` text NOT NULL,
	`provider_order_id` text,
	`deposit_address` text,
	`status` text DEFAULT 'initiated' NOT NULL,
	`send_transaction_id` text,
	`payout_reference` text,
	`refund_tx_hash` text,
	`failure_reason` text,
	`provider_status` integer,
	`last_event_at` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cashouts_quote_idx` ON `cashouts` (`quote_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `cashouts_reference_idx` ON `cashouts` (`merchant_reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `cashouts_order_idx` ON `cashouts` (`provider_order_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `cashouts_reward_idx` ON `cashouts` (`reward_key`);--> statement-breakpoint
CREATE INDEX `cashouts_user_idx` ON `cashouts` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `cashouts_open_idx` ON `cashouts` (`status`,`updated_at`);--> statement-breakpoint
CREATE TABLE `invoice_profiles` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`address` text DEFAULT '' NOT NULL,
	`tax_id` text DEFAULT '' NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `price_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_key` text NOT NULL,
	`currency` text NOT NULL,
	`usd` text,
	`inr` text,
	`source` text NOT NULL,
	`priced_at` integer NOT NULL,
	`recorded_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `price_records_event_idx` ON `price_records` (`event_key`);--> statement-breakpoint
CREATE TABLE `reward_arrivals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_key` text NOT NULL,
	`user_id` integer NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	`repo_id` integer,
	`issue_number` integer,
	`tx_hash` text NOT NULL,
	`mailed_at` integer,
	`cashout_id` text,
	`note` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reward_arrivals_event_idx` ON `reward_arrivals` (`event_key`);--> statement-breakpoint
CREATE INDEX `reward_arrivals_user_idx` ON `reward_arrivals` (`user_id`,`created_at`);