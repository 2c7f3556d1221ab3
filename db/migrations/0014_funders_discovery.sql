CREATE TABLE `money_intents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`kind` text NOT NULL,
	`github_user_id` integer NOT NULL,
	`payload` text NOT NULL,
	`source` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	`result` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `money_intents_token_idx` ON `money_intents` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `money_intents_source_idx` ON `money_intents` (`kind`,`source`);--> statement-breakpoint
CREATE INDEX `money_intents_user_idx` ON `money_intents` (`github_user_id`,`created_at`);--> statement-breakpoint
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
CREATE INDEX `tips_from_idx` ON `tips` (`from_user_id`,`created_at`);--> statement-breakpoint
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
CREATE INDEX `bounty_boosts_explore_expiry_idx` ON `bounty_boosts` (`status`,`expires_at`,`github_repo_id`,`issue_number`);--> statement-breakpoint
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
CREATE INDEX `community_bounties_status_idx` ON `community_bounties` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `bounty_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_key` text NOT NULL,
	`type` text NOT NULL,
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`user_id` integer,
	`data` text NOT NULL,
	`occurred_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`fanned_out_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bounty_events_key_idx` ON `bounty_events` (`event_key`);--> statement-breakpoint
CREATE INDEX `bounty_events_pending_idx` ON `bounty_events` (`fanned_out_at`,`id`);--> statement-breakpoint
CREATE INDEX `bounty_events_repo_idx` ON `bounty_events` (`github_repo_id`,`id`);--> statement-breakpoint
CREATE TABLE `digest_runs` (
	`user_id` integer NOT NULL,
	`day` text NOT NULL,
	`status` text NOT NULL,
	`bounties` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `outbound_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` integer NOT NULL,
	`endpoint_id` text NOT NULL,
	`at` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `outbound_attempts_endpoint_idx` ON `outbound_attempts` (`endpoint_id`,`id`);--> statement-breakpoint
CREATE TABLE `outbound_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` integer,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbound_messages_endpoint_event_idx` ON `outbound_messages` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `outbound_messages_due_idx` ON `outbound_messages` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `saved_searches` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`query` text NOT NULL,
	`digest` integer DEFAULT true NOT NULL,
	`notified_until` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `saved_searches_user_idx` ON `saved_searches` (`user_id`);--> statement-breakpoint
CREATE INDEX `saved_searches_digest_idx` ON `saved_searches` (`digest`,`user_id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`github_repo_id` integer,
	`kind` text NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`events` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_user_idx` ON `webhook_endpoints` (`user_id`);--> statement-breakpoint
CREATE INDEX `webhook_endpoints_repo_idx` ON `webhook_endpoints` (`github_repo_id`);--> statement-breakpoint
CREATE TABLE `contributor_totals` (
	`recipient` text PRIMARY KEY NOT NULL,
	`paid_count` integer DEFAULT 0 NOT NULL,
	`xdc` text DEFAULT '0' NOT NULL,
	`roxn` text DEFAULT '0' NOT NULL,
	`usdc` text DEFAULT '0' NOT NULL,
	`xdc_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || xdc, -40)) VIRTUAL,
	`roxn_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || roxn, -40)) VIRTUAL,
	`usdc_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || usdc, -40)) VIRTUAL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `contributor_totals_board_idx` ON `contributor_totals` (`xdc_key`,`roxn_key`,`usdc_key`);--> statement-breakpoint
CREATE TABLE `repository_reliability` (
	`github_repo_id` integer PRIMARY KEY NOT NULL,
	`open_count` integer DEFAULT 0 NOT NULL,
	`paid_xdc` text DEFAULT '0' NOT NULL,
	`paid_roxn` text DEFAULT '0' NOT NULL,
	`paid_usdc` text DEFAULT '0' NOT NULL,
	`paid_count` integer DEFAULT 0 NOT NULL,
	`paid_automatically_count` integer DEFAULT 0 NOT NULL,
	`cancelled_count` integer DEFAULT 0 NOT NULL,
	`paid_after_histogram` text DEFAULT '[]' NOT NULL,
	`last_paid_at` integer,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `repository_reliability_board_idx` ON `repository_reliability` (`open_count`,`paid_count`);--> statement-breakpoint
ALTER TABLE `users` ADD `show_wallet_address` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `users_username_idx` ON `users` (lower("username"));--> statement-breakpoint
ALTER TABLE `repositories` ADD `language` text;--> statement-breakpoint
CREATE INDEX `repositories_listed_idx` ON `repositories` (`is_private`,`is_active`,`registered_at`,`github_repo_id`);--> statement-breakpoint
CREATE INDEX `repositories_updated_idx` ON `repositories` (`updated_at`);--> statement-breakpoint
ALTER TABLE `bounties` ADD `labels` text;--> statement-breakpoint
ALTER TABLE `bounties` ADD `amount_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || amount, -40)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `bounties` ADD `paid_after_ms` integer;--> statement-breakpoint
ALTER TABLE `bounties` ADD `paid_automatically` integer;--> statement-breakpoint
CREATE INDEX `bounties_explore_allocated_idx` ON `bounties` (`status`,`allocated_at`,`github_repo_id`,`issue_number`,`labels`);--> statement-breakpoint
CREATE INDEX `bounties_explore_currency_idx` ON `bounties` (`status`,`currency`,`allocated_at`,`github_repo_id`,`issue_number`,`labels`);--> statement-breakpoint
CREATE INDEX `bounties_explore_amount_idx` ON `bounties` (`status`,`currency`,`amount_key`,`github_repo_id`,`issue_number`);--> statement-breakpoint
CREATE INDEX `bounties_recipient_idx` ON `bounties` (`recipient`,`status`,`closed_at`);--> statement-breakpoint
CREATE INDEX `bounties_closed_idx` ON `bounties` (`status`,`closed_at`);--> statement-breakpoint
CREATE INDEX `repository_pools_updated_idx` ON `repository_pools` (`updated_at`);