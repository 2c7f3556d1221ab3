CREATE TABLE `ops_restores` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`backup_file` text NOT NULL,
	`backup_sha256` text NOT NULL,
	`backup_taken_at` integer,
	`backup_indexed_block` integer,
	`restored_at` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`report` text,
	`finished_at` integer
);
