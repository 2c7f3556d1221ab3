CREATE TABLE `compute_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` text NOT NULL,
	`node_id` text NOT NULL,
	`wallet_address` text NOT NULL,
	`units` integer NOT NULL,
	`tokens` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`payout_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `compute_ledger_task_idx` ON `compute_ledger` (`task_id`);--> statement-breakpoint
CREATE INDEX `compute_ledger_wallet_idx` ON `compute_ledger` (`wallet_address`);--> statement-breakpoint
CREATE INDEX `compute_ledger_node_idx` ON `compute_ledger` (`node_id`);--> statement-breakpoint
CREATE TABLE `compute_nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`wallet_address` text NOT NULL,
	`name` text NOT NULL,
	`backend` text NOT NULL,
	`model` text,
	`token_hash` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`last_seen_at` integer,
	`last_assigned_at` integer,
	`last_failure_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `compute_nodes_token_idx` ON `compute_nodes` (`token_hash`);--> statement-breakpoint
CREATE INDEX `compute_nodes_user_idx` ON `compute_nodes` (`user_id`);--> statement-breakpoint
CREATE INDEX `compute_nodes_wallet_idx` ON `compute_nodes` (`wallet_address`);--> statement-breakpoint
CREATE TABLE `compute_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`prompt` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`node_id` text,
	`lease_token` text,
	`lease_until` integer,
	`excluded_node_ids` text DEFAULT '' NOT NULL,
	`answer` text,
	`error` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`deadline_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `compute_tasks_due_idx` ON `compute_tasks` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `compute_tasks_lease_idx` ON `compute_tasks` (`status`,`lease_until`);--> statement-breakpoint
CREATE INDEX `compute_tasks_created_idx` ON `compute_tasks` (`created_at`);--> statement-breakpoint
CREATE TABLE `node_pairings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_secret_hash` text NOT NULL,
	`user_code` text NOT NULL,
	`wallet_address` text NOT NULL,
	`name` text NOT NULL,
	`backend` text NOT NULL,
	`model` text,
	`approved_by_user_id` integer,
	`approved_at` integer,
	`redeemed_at` integer,
	`node_id` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`approved_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `node_pairings_secret_idx` ON `node_pairings` (`device_secret_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `node_pairings_code_idx` ON `node_pairings` (`user_code`);--> statement-breakpoint
CREATE INDEX `node_pairings_expires_idx` ON `node_pairings` (`expires_at`);