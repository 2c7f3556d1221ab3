CREATE TABLE `repository_reliability` (
	`github_repo_id` integer PRIMARY KEY NOT NULL,
	`paid_count` integer DEFAULT 0 NOT NULL,
	`paid_automatically_count` integer DEFAULT 0 NOT NULL,
	`cancelled_count` integer DEFAULT 0 NOT NULL,
	`paid_after_histogram` text DEFAULT '[]' NOT NULL,
	`last_paid_at` integer,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
ALTER TABLE `users` ADD `show_wallet_address` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `users_username_idx` ON `users` (lower("username"));--> statement-breakpoint
ALTER TABLE `repositories` ADD `language` text;--> statement-breakpoint
CREATE INDEX `repositories_listed_idx` ON `repositories` (`is_private`,`is_active`,`registered_at`,`github_repo_id`);--> statement-breakpoint
ALTER TABLE `bounties` ADD `labels` text;--> statement-breakpoint
ALTER TABLE `bounties` ADD `amount_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || amount, -40)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `bounties` ADD `paid_after_ms` integer;--> statement-breakpoint
ALTER TABLE `bounties` ADD `paid_automatically` integer;--> statement-breakpoint
CREATE INDEX `bounties_explore_allocated_idx` ON `bounties` (`status`,`allocated_at`,`github_repo_id`,`issue_number`);--> statement-breakpoint
CREATE INDEX `bounties_explore_currency_idx` ON `bounties` (`status`,`currency`,`allocated_at`,`github_repo_id`,`issue_number`);--> statement-breakpoint
CREATE INDEX `bounties_explore_amount_idx` ON `bounties` (`status`,`currency`,`amount_key`,`github_repo_id`,`issue_number`);--> statement-breakpoint
CREATE INDEX `bounties_recipient_idx` ON `bounties` (`recipient`,`status`,`closed_at`);--> statement-breakpoint
CREATE INDEX `bounties_closed_idx` ON `bounties` (`status`,`closed_at`);--> statement-breakpoint
INSERT INTO `repository_reliability` (`github_repo_id`, `paid_count`, `cancelled_count`, `paid_after_histogram`, `last_paid_at`)
SELECT `github_repo_id`, sum(`status` = 'paid'), sum(`status` = 'cancelled'), '[0,0,0,0,0,0,0,0,0,0]', max(CASE WHEN `status` = 'paid' THEN `closed_at` END)
FROM `bounties` GROUP BY `github_repo_id`;
