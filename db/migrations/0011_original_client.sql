ALTER TABLE `repositories` ADD `is_active` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `has_private_repo_access` integer DEFAULT false NOT NULL;