CREATE TABLE `awaiting_decisions` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`allocated_tx` text NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`notified_at` integer,
	PRIMARY KEY(`github_repo_id`, `issue_number`)
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_held_payouts` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`github_user_id` integer NOT NULL,
	`github_login` text NOT NULL,
	`pull_number` integer,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`released_at` integer,
	PRIMARY KEY(`github_repo_id`, `issue_number`)
);
--> statement-breakpoint
INSERT INTO `__new_held_payouts`("github_repo_id", "issue_number", "github_user_id", "github_login", "pull_number", "created_at", "released_at") SELECT "github_repo_id", "issue_number", "github_user_id", "github_login", "pull_number", "created_at", "released_at" FROM `held_payouts`;--> statement-breakpoint
DROP TABLE `held_payouts`;--> statement-breakpoint
ALTER TABLE `__new_held_payouts` RENAME TO `held_payouts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `held_payouts_user_idx` ON `held_payouts` (`github_user_id`,`released_at`);