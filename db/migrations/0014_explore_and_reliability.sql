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
CREATE INDEX `bounties_explore_allocated_idx` ON `bounties` (`status`,`allocated_at`,`github_repo_id`,`issue_number`);--> statement-breakpoint
CREATE INDEX `bounties_explore_currency_idx` ON `bounties` (`status`,`currency`,`allocated_at`,`github_repo_id`,`issue_number`);--> statement-breakpoint
CREATE INDEX `bounties_explore_amount_idx` ON `bounties` (`status`,`currency`,`amount_key`,`github_repo_id`,`issue_number`);--> statement-breakpoint
CREATE INDEX `bounties_recipient_idx` ON `bounties` (`recipient`,`status`,`closed_at`);--> statement-breakpoint
CREATE INDEX `bounties_closed_idx` ON `bounties` (`status`,`closed_at`);--> statement-breakpoint
CREATE INDEX `repository_pools_updated_idx` ON `repository_pools` (`updated_at`);