CREATE TABLE `bounty_shares` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`recipient` text NOT NULL,
	`currency` text NOT NULL,
	`amount` text NOT NULL,
	PRIMARY KEY(`github_repo_id`, `issue_number`, `recipient`)
);
--> statement-breakpoint
CREATE INDEX `bounty_shares_recipient_idx` ON `bounty_shares` (`recipient`);--> statement-breakpoint
-- Split payouts mirrored before this table: their shares from the stored BountySharePaid events of the payout.
INSERT OR IGNORE INTO `bounty_shares` SELECT b.`github_repo_id`, b.`issue_number`, json_extract(e.`args`, '$.recipient'), b.`currency`, json_extract(e.`args`, '$.amount') FROM `bounties` b JOIN `chain_events` e ON e.`tx_hash` = b.`paid_tx` AND e.`name` = 'BountySharePaid' AND e.`old_chain` IS NULL AND e.`repo_id` = b.`github_repo_id` AND e.`issue_number` = b.`issue_number` WHERE b.`status` = 'paid';
--> statement-breakpoint
-- The records credited those payouts' whole amount to their first recipient: emptied, they are rebuilt at start (ensureRecords).
DELETE FROM `repository_reliability`;
