CREATE TABLE `scoping_issues` (
	`job_id` text NOT NULL,
	`task_id` integer NOT NULL,
	`repository_id` integer NOT NULL,
	`issue_number` integer,
	`issue_url` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`job_id`, `task_id`, `repository_id`),
	FOREIGN KEY (`job_id`) REFERENCES `scoping_jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `scoping_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`file_name` text NOT NULL,
	`format` text NOT NULL,
	`byte_size` integer NOT NULL,
	`text_sha256` text NOT NULL,
	`text` text NOT NULL,
	`planner` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`result` text,
	`project_name` text,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`lease_until` integer,
	`lease_token` text,
	`created_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`finished_at` integer,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scoping_jobs_user_idx` ON `scoping_jobs` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `scoping_jobs_due_idx` ON `scoping_jobs` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `scoping_jobs_expires_idx` ON `scoping_jobs` (`expires_at`);