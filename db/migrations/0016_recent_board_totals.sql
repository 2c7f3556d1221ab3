CREATE TABLE `contributor_recent_totals` (
	`recipient` text PRIMARY KEY NOT NULL,
	`paid_count` integer DEFAULT 0 NOT NULL,
	`xdc` text DEFAULT '0' NOT NULL,
	`roxn` text DEFAULT '0' NOT NULL,
	`usdc` text DEFAULT '0' NOT NULL,
	`xdc_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || xdc, -40)) VIRTUAL,
	`roxn_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || roxn, -40)) VIRTUAL,
	`usdc_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || usdc, -40)) VIRTUAL
);
--> statement-breakpoint
CREATE INDEX `contributor_recent_totals_board_idx` ON `contributor_recent_totals` (`xdc_key`,`roxn_key`,`usdc_key`);--> statement-breakpoint
CREATE TABLE `recent_totals_horizon` (
	`id` integer PRIMARY KEY NOT NULL,
	`since` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `repository_recent_totals` (
	`github_repo_id` integer PRIMARY KEY NOT NULL,
	`paid_count` integer DEFAULT 0 NOT NULL,
	`xdc` text DEFAULT '0' NOT NULL,
	`roxn` text DEFAULT '0' NOT NULL,
	`usdc` text DEFAULT '0' NOT NULL,
	`xdc_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || xdc, -40)) VIRTUAL,
	`roxn_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || roxn, -40)) VIRTUAL,
	`usdc_key` text GENERATED ALWAYS AS (substr('0000000000000000000000000000000000000000' || usdc, -40)) VIRTUAL
);
--> statement-breakpoint
CREATE INDEX `repository_recent_totals_board_idx` ON `repository_recent_totals` (`paid_count`,`xdc_key`,`roxn_key`,`usdc_key`);