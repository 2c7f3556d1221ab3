CREATE INDEX `chain_events_tip_paid_idx` ON `chain_events` (`name`,("args" ->> '$.tipId'));--> statement-breakpoint
CREATE INDEX `chain_events_tx_lower_idx` ON `chain_events` (lower("tx_hash"));