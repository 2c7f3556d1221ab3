CREATE TABLE `digest_opt_outs` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
