CREATE TABLE `repositories` (
	`github_repo_id` integer PRIMARY KEY NOT NULL,
	`full_name` text NOT NULL,
	`full_name_key` text NOT NULL,
	`owner` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`html_url` text NOT NULL,
	`is_private` integer DEFAULT false NOT NULL,
	`stars` integer DEFAULT 0 NOT NULL,
	`forks` integer DEFAULT 0 NOT NULL,
	`installation_id` integer,
	`registered_by_user_id` integer,
	`registered_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `repositories_full_name_key_idx` ON `repositories` (`full_name_key`);--> statement-breakpoint
CREATE INDEX `repositories_registered_at_idx` ON `repositories` (`registered_at`);--> statement-breakpoint
CREATE TABLE `repository_pools` (
	`github_repo_id` integer NOT NULL,
	`currency` text NOT NULL,
	`balance` text DEFAULT '0' NOT NULL,
	`allocated` text DEFAULT '0' NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `currency`),
	FOREIGN KEY (`github_repo_id`) REFERENCES `repositories`(`github_repo_id`) ON UPDATE no action ON DELETE cascade
);
