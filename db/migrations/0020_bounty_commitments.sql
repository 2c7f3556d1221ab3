CREATE TABLE `bounty_commitments` (
	`github_repo_id` integer NOT NULL,
	`issue_number` integer NOT NULL,
	`round` integer NOT NULL,
	`via` text NOT NULL,
	`pull_number` integer,
	`pull_url` text,
	`merged_at` integer,
	`people` text NOT NULL,
	`author_github_id` integer NOT NULL,
	`author_login` text NOT NULL,
	`committed_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	PRIMARY KEY(`github_repo_id`, `issue_number`, `round`)
);
