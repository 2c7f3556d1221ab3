CREATE TABLE `repository_visibility` (
	`github_repo_id` integer PRIMARY KEY NOT NULL,
	`public` integer NOT NULL,
	`reason` text NOT NULL,
	`checked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `repository_visibility_checked_idx` ON `repository_visibility` (`checked_at`);