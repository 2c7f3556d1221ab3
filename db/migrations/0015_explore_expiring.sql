DROP INDEX `bounties_explore_allocated_idx`;--> statement-breakpoint
DROP INDEX `bounties_explore_currency_idx`;--> statement-breakpoint
CREATE INDEX `bounties_explore_allocated_idx` ON `bounties` (`status`,`allocated_at`,`github_repo_id`,`issue_number`,`labels`);--> statement-breakpoint
CREATE INDEX `bounties_explore_currency_idx` ON `bounties` (`status`,`currency`,`allocated_at`,`github_repo_id`,`issue_number`,`labels`);--> statement-breakpoint
CREATE INDEX `bounty_boosts_explore_expiry_idx` ON `bounty_boosts` (`status`,`expires_at`,`github_repo_id`,`issue_number`);