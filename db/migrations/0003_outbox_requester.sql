DROP INDEX `chain_tx_idempotency_idx`;--> statement-breakpoint
ALTER TABLE `chain_transactions` ADD `requester` text DEFAULT 'platform' NOT NULL;--> statement-breakpoint
UPDATE `chain_transactions` SET `requester` = 'user:' || `user_id` WHERE `user_id` IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `chain_tx_requester_key_idx` ON `chain_transactions` (`requester`,`idempotency_key`);