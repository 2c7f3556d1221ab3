CREATE TABLE `chain_identity` (
	`chain_id` integer PRIMARY KEY NOT NULL,
	`genesis_hash` text NOT NULL,
	`recorded_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `chain_blocks` (
	`cursor` text NOT NULL,
	`number` integer NOT NULL,
	`hash` text NOT NULL,
	PRIMARY KEY(`cursor`, `number`)
);
--> statement-breakpoint
DROP INDEX `chain_tx_nonce_idx`;--> statement-breakpoint
DROP INDEX `chain_tx_hash_idx`;--> statement-breakpoint
DROP INDEX `chain_tx_one_payout_idx`;--> statement-breakpoint
ALTER TABLE `chain_transactions` ADD `block_hash` text;--> statement-breakpoint
ALTER TABLE `chain_transactions` ADD `old_chain` text;--> statement-breakpoint
CREATE INDEX `chain_tx_block_idx` ON `chain_transactions` (`chain_id`,`block_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_nonce_idx` ON `chain_transactions` (`chain_id`,`from_address`,`nonce`) WHERE "chain_transactions"."old_chain" is null;--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_hash_idx` ON `chain_transactions` (`tx_hash`) WHERE "chain_transactions"."old_chain" is null;--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_one_payout_idx` ON `chain_transactions` (`github_repo_id`,`issue_number`) WHERE "chain_transactions"."kind" = 'pay_bounty' and "chain_transactions"."status" not in ('failed', 'reverted') and "chain_transactions"."old_chain" is null;--> statement-breakpoint
DROP INDEX `chain_events_log_idx`;--> statement-breakpoint
ALTER TABLE `chain_events` ADD `old_chain` text;--> statement-breakpoint
CREATE UNIQUE INDEX `chain_events_log_idx` ON `chain_events` (`chain_id`,`tx_hash`,`log_index`) WHERE "chain_events"."old_chain" is null;