-- /explore's text search, words of 1 or 2 characters (issue 30, docs/performance.md "Explore, boards and profiles at
-- 100x"): the trigram index of 0015 has nothing for them, so such a word walked every open bounty (442 ms at 100x,
-- for any client that sends one). This second full-text index (FTS5, unicode61 tokenizer: whole words, case-folded)
-- holds the same titles, open bounties only, under the same rowid (github_repo_id * 2^24 + issue_number), kept by
-- the same kind of triggers. A search word shorter than 3 characters matches a whole word of the title through it.
CREATE VIRTUAL TABLE `explore_title_words` USING fts5(`title`, tokenize = 'unicode61');
--> statement-breakpoint
CREATE TRIGGER `explore_title_words_insert` AFTER INSERT ON `bounties`
WHEN new.`status` = 'open' AND new.`issue_title` IS NOT NULL
BEGIN
  DELETE FROM `explore_title_words` WHERE rowid = new.`github_repo_id` * 16777216 + new.`issue_number`;
  INSERT INTO `explore_title_words` (rowid, `title`) VALUES (new.`github_repo_id` * 16777216 + new.`issue_number`, new.`issue_title`);
END;
--> statement-breakpoint
CREATE TRIGGER `explore_title_words_update` AFTER UPDATE OF `status`, `issue_title`, `github_repo_id`, `issue_number` ON `bounties`
WHEN (old.`status` IS NOT new.`status` OR old.`issue_title` IS NOT new.`issue_title` OR old.`github_repo_id` IS NOT new.`github_repo_id` OR old.`issue_number` IS NOT new.`issue_number`)
  AND (old.`status` = 'open' OR new.`status` = 'open')
BEGIN
  DELETE FROM `explore_title_words` WHERE rowid IN (old.`github_repo_id` * 16777216 + old.`issue_number`, new.`github_repo_id` * 16777216 + new.`issue_number`);
  INSERT INTO `explore_title_words` (rowid, `title`)
    SELECT new.`github_repo_id` * 16777216 + new.`issue_number`, new.`issue_title` WHERE new.`status` = 'open' AND new.`issue_title` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `explore_title_words_delete` AFTER DELETE ON `bounties`
WHEN old.`status` = 'open'
BEGIN
  DELETE FROM `explore_title_words` WHERE rowid = old.`github_repo_id` * 16777216 + old.`issue_number`;
END;
--> statement-breakpoint
INSERT INTO `explore_title_words` (rowid, `title`)
  SELECT `github_repo_id` * 16777216 + `issue_number`, `issue_title` FROM `bounties` WHERE `status` = 'open' AND `issue_title` IS NOT NULL;
