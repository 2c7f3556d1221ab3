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
CREATE INDEX `money_intents_user_idx` ON `money_intents` (`github_user_id`,`created_at`);