-- /explore's text search (issue 30, docs/performance.md "Explore, boards and profiles at 100x"): a full-text index
-- (FTS5, trigram tokenizer: any substring of 3 characters or more, case-insensitive, as the LIKE '%word%' it
-- narrows) over the titles of open bounties only. Its rowid is the bounty's key, github_repo_id * 2^24 +
-- issue_number (stable, unlike the table's implicit rowid, which VACUUM may renumber). Triggers keep it: a bounty
-- that opens or is inserted open comes in, a title change replaces it, a bounty leaving 'open' or deleted goes.
CREATE VIRTUAL TABLE `explore_titles` USING fts5(`title`, tokenize = 'trigram');
--> statement-breakpoint
CREATE TRIGGER `explore_titles_insert` AFTER INSERT ON `bounties`
WHEN new.`status` = 'open' AND new.`issue_title` IS NOT NULL
BEGIN
  DELETE FROM `explore_titles` WHERE rowid = new.`github_repo_id` * 16777216 + new.`issue_number`;
  INSERT INTO `explore_titles` (rowid, `title`) VALUES (new.`github_repo_id` * 16777216 + new.`issue_number`, new.`issue_title`);
END;
--> statement-breakpoint
CREATE TRIGGER `explore_titles_update` AFTER UPDATE OF `status`, `issue_title`, `github_repo_id`, `issue_number` ON `bounties`
WHEN (old.`status` IS NOT new.`status` OR old.`issue_title` IS NOT new.`issue_title` OR old.`github_repo_id` IS NOT new.`github_repo_id` OR old.`issue_number` IS NOT new.`issue_number`)
  AND (old.`status` = 'open' OR new.`status` = 'open')
BEGIN
  DELETE FROM `explore_titles` WHERE rowid IN (old.`github_repo_id` * 16777216 + old.`issue_number`, new.`github_repo_id` * 16777216 + new.`issue_number`);
  INSERT INTO `explore_titles` (rowid, `title`)
    SELECT new.`github_repo_id` * 16777216 + new.`issue_number`, new.`issue_title` WHERE new.`status` = 'open' AND new.`issue_title` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `explore_titles_delete` AFTER DELETE ON `bounties`
WHEN old.`status` = 'open'
BEGIN
  DELETE FROM `explore_titles` WHERE rowid = old.`github_repo_id` * 16777216 + old.`issue_number`;
END;
--> statement-breakpoint
INSERT INTO `explore_titles` (rowid, `title`)
  SELECT `github_repo_id` * 16777216 + `issue_number`, `issue_title` FROM `bounties` WHERE `status` = 'open' AND `issue_title` IS NOT NULL;
