CREATE TABLE `confirmed_upi_ids` (
	`user_id` integer NOT NULL,
	`upi_id` text NOT NULL,
	`via` text NOT NULL,
	`confirmed_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`user_id`, `upi_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
