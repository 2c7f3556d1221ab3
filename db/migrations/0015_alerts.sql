CREATE TABLE `bounty_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_key` text NOT NULL,
	`type` text NOT NULL,
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`user_id` integer,
	`data` text NOT NULL,
	`occurred_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`fanned_out_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bounty_events_key_idx` ON `bounty_events` (`event_key`);--> statement-breakpoint
CREATE INDEX `bounty_events_pending_idx` ON `bounty_events` (`fanned_out_at`,`id`);--> statement-breakpoint
CREATE INDEX `bounty_events_repo_idx` ON `bounty_events` (`github_repo_id`,`id`);--> statement-breakpoint
CREATE TABLE `digest_runs` (
	`user_id` integer NOT NULL,
	`day` text NOT NULL,
	`status` text NOT NULL,
	`bounties` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `outbound_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` integer NOT NULL,
	`endpoint_id` text NOT NULL,
	`at` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `outbound_attempts_endpoint_idx` ON `outbound_attempts` (`endpoint_id`,`id`);--> statement-breakpoint
CREATE TABLE `outbound_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` integer,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbound_messages_endpoint_event_idx` ON `outbound_messages` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `outbound_messages_due_idx` ON `outbound_messages` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `saved_searches` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`query` text NOT NULL,
	`digest` integer DEFAULT true NOT NULL,
	`notified_until` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `saved_searches_user_idx` ON `saved_searches` (`user_id`);--> statement-breakpoint
CREATE INDEX `saved_searches_digest_idx` ON `saved_searches` (`digest`,`user_id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`github_repo_id` integer,
	`kind` text NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`events` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_user_idx` ON `webhook_endpoints` (`user_id`);--> statement-breakpoint
CREATE INDEX `webhook_endpoints_repo_idx` ON `webhook_endpoints` (`github_repo_id`);