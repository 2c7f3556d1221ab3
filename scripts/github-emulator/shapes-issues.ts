/** REST JSON for issues, pull requests, comments and timeline events, as GitHub documents them. */
import { authorAssociation } from "./access.ts";
import { appJson, simpleUser, type Json } from "./shapes-accounts.ts";
import { findLabel, labelJson, repoApiUrl, repoJson, repoHtmlUrl } from "./shapes-repos.ts";
import { sha1Hex, type CommentRecord, type CommitRecord, type EventRecord, type IssueRecord, type RepoRecord, type ReviewRecord } from "./state.ts";
import { issueId, nodeId, pullId, type World } from "./world.ts";

const NO_REACTIONS = { total_count: 0, "+1": 0, "-1": 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 };

/** Pull requests live at /pull/N on the web, issues at /issues/N. */
export function issueHtmlUrl(world: World, repo: RepoRecord, issue: IssueRecord): string {
  return `${repoHtmlUrl(world, repo)}/${issue.pull ? "pull" : "issues"}/${issue.number}`;
}

export function commentsOf(world: World, issue: IssueRecord): CommentRecord[] {
  return world.state.comments.filter((c) => c.repoId === issue.repoId && c.number === issue.number);
}

function labelsJson(world: World, repo: RepoRecord, issue: IssueRecord): Json[] {
  return issue.labels.flatMap((name) => {
    const label = findLabel(repo, name);
    return label ? [labelJson(world, repo, label)] : [];
  });
}

/** An issue as GET /issues returns it; pull requests carry `pull_request`. `detailed` adds `closed_by` (single-issue GET). */
export function issueJson(world: World, repo: RepoRecord, issue: IssueRecord, detailed = false): Json {
  const api = `${repoApiUrl(world, repo)}/issues/${issue.number}`;
  const html = issueHtmlUrl(world, repo, issue);
  const id = issueId(repo.id, issue.number);
  return {
    url: api,
    repository_url: repoApiUrl(world, repo),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: html,
    id,
    node_id: issue.pull ? nodeId("PullRequest", pullId(repo.id, issue.number)) : nodeId("Issue", id),
    number: issue.number,
    title: issue.title,
    user: simpleUser(world, issue.author),
    labels: labelsJson(world, repo, issue),
    state: issue.state,
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: commentsOf(world, issue).length,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    author_association: authorAssociation(world, repo, issue.author),
    active_lock_reason: null,
    ...(issue.pull
      ? { draft: false, pull_request: { url: `${repoApiUrl(world, repo)}/pulls/${issue.number}`, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, merged_at: issue.pull.mergedAt } }
      : {}),
    body: issue.body,
    ...(detailed ? { closed_by: issue.closedBy ? simpleUser(world, issue.closedBy) : null } : {}),
    reactions: { url: `${api}/reactions`, ...NO_REACTIONS },
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
    state_reason: issue.stateReason,
  };
}

/** A stable id for `owner`'s fork of a repository (forks are not records of their own). */
function forkId(repoId: number, owner: string): number {
  let h = 0;
  for (const ch of owner.toLowerCase()) h = (h * 31 + ch.charCodeAt(0)) % 100_000;
  return 9_000_000 + repoId * 100 + (h % 100);
}

function branchJson(world: World, repo: RepoRecord, owner: string, ref: string, sha: string): Json {
  const sameRepo = owner.toLowerCase() === repo.owner.toLowerCase();
  return {
    label: `${owner}:${ref}`,
    ref,
    sha,
    user: simpleUser(world, owner),
    // A pull request from another account comes from its fork: the same repository under that owner.
    repo: sameRepo ? repoJson(world, repo) : repoJson(world, { ...repo, id: forkId(repo.id, owner), owner, forks: 0, stars: 0 }),
  };
}

/** A pull request as GET /pulls returns it; `detailed` adds the single-PR fields (merged, mergeable, counts). */
export function pullJson(world: World, repo: RepoRecord, issue: IssueRecord, detailed = false): Json {
  const pull = issue.pull!;
  const api = repoApiUrl(world, repo);
  const html = issueHtmlUrl(world, repo, issue);
  const id = pullId(repo.id, issue.number);
  const size = 7 * issue.number + issue.title.length;
  return {
    url: `${api}/pulls/${issue.number}`,
    id,
    node_id: nodeId("PullRequest", id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${issue.number}`,
    number: issue.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: simpleUser(world, issue.author),
    body: issue.body,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    labels: labelsJson(world, repo, issue),
    milestone: null,
    draft: false,
    commits_url: `${api}/pulls/${issue.number}/commits`,
    review_comments_url: `${api}/pulls/${issue.number}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${issue.number}/comments`,
    statuses_url: `${api}/statuses/${pull.headSha}`,
    _links: {
      self: { href: `${api}/pulls/${issue.number}` },
      html: { href: html },
      issue: { href: `${api}/issues/${issue.number}` },
      comments: { href: `${api}/issues/${issue.number}/comments` },
      review_comments: { href: `${api}/pulls/${issue.number}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${api}/pulls/${issue.number}/commits` },
      statuses: { href: `${api}/statuses/${pull.headSha}` },
    },
    head: branchJson(world, repo, pull.headOwner, pull.head, pull.headSha),
    base: branchJson(world, repo, repo.owner, pull.base, sha1Hex(`${repo.id}:${pull.base}`)),
    author_association: authorAssociation(world, repo, issue.author),
    auto_merge: null,
    active_lock_reason: null,
    ...(detailed
      ? {
          merged: pull.merged,
          mergeable: issue.state === "open" ? true : null,
          rebaseable: issue.state === "open" ? true : null,
          mergeable_state: issue.state === "open" ? "clean" : "unknown",
          merged_by: pull.mergedBy ? simpleUser(world, pull.mergedBy) : null,
          comments: commentsOf(world, issue).length,
          review_comments: 0,
          maintainer_can_modify: false,
          commits: 1,
          additions: size,
          deletions: Math.floor(size / 3),
          changed_files: 1 + (issue.number % 4),
        }
      : {}),
  };
}

export function commentJson(world: World, repo: RepoRecord, issue: IssueRecord, comment: CommentRecord): Json {
  const api = repoApiUrl(world, repo);
  return {
    url: `${api}/issues/comments/${comment.id}`,
    html_url: `${issueHtmlUrl(world, repo, issue)}#issuecomment-${comment.id}`,
    issue_url: `${api}/issues/${issue.number}`,
    id: comment.id,
    node_id: nodeId("IssueComment", comment.id),
    user: simpleUser(world, comment.author),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: authorAssociation(world, repo, comment.author),
    body: comment.body,
    reactions: { url: `${api}/issues/comments/${comment.id}/reactions`, ...NO_REACTIONS },
    performed_via_github_app: world.isBot(comment.author) ? appJson(world) : null,
  };
}

/**
 * A pull request review as the REST API returns it (GET/POST /pulls/{n}/reviews); `webhook`: as the
 * pull_request_review webhook carries it (state in lower case, `pull_request_url` and `_links` the same).
 */
export function reviewJson(world: World, repo: RepoRecord, issue: IssueRecord, review: ReviewRecord, webhook = false): Json {
  const api = repoApiUrl(world, repo);
  const html = `${issueHtmlUrl(world, repo, issue)}#pullrequestreview-${review.id}`;
  return {
    id: review.id,
    node_id: nodeId("PullRequestReview", review.id),
    user: simpleUser(world, review.author),
    body: review.body,
    state: webhook ? review.state.toLowerCase() : review.state,
    html_url: html,
    pull_request_url: `${api}/pulls/${issue.number}`,
    author_association: authorAssociation(world, repo, review.author),
    _links: { html: { href: html }, pull_request: { href: `${api}/pulls/${issue.number}` } },
    ...(review.submittedAt ? { submitted_at: review.submittedAt } : {}),
    commit_id: review.commitId,
  };
}

export const reviewsOf = (world: World, issue: IssueRecord): ReviewRecord[] =>
  (world.state.reviews ?? []).filter((r) => r.repoId === issue.repoId && r.number === issue.number).sort((a, b) => a.id - b.id);

const EVENT_TYPES: Record<EventRecord["event"], string> = {
  "cross-referenced": "CrossReferencedEvent",
  closed: "ClosedEvent",
  reopened: "ReopenedEvent",
  labeled: "LabeledEvent",
  merged: "MergedEvent",
};

/** One entry of GET /issues/{n}/timeline. */
export function timelineEventJson(world: World, repo: RepoRecord, event: EventRecord): Json {
  if (event.event === "cross-referenced") {
    const sourceRepo = world.repoById(event.source!.repoId)!;
    const source = world.issue(sourceRepo.id, event.source!.number)!;
    return {
      actor: simpleUser(world, event.actor),
      created_at: event.createdAt,
      updated_at: event.createdAt,
      source: { type: "issue", issue: { ...issueJson(world, sourceRepo, source), repository: repoJson(world, sourceRepo) } },
      event: "cross-referenced",
    };
  }
  const api = repoApiUrl(world, repo);
  const label = event.label ? findLabel(repo, event.label) : undefined;
  return {
    id: event.id,
    node_id: nodeId(EVENT_TYPES[event.event], event.id),
    url: `${api}/issues/events/${event.id}`,
    actor: simpleUser(world, event.actor),
    event: event.event,
    commit_id: event.commitId ?? null,
    commit_url: event.commitId ? `${api}/commits/${event.commitId}` : null,
    created_at: event.createdAt,
    performed_via_github_app: null,
    ...(event.event === "labeled" ? { label: { name: event.label, color: label?.color ?? "ededed" } } : {}),
    ...(event.event === "closed" || event.event === "reopened" ? { state_reason: event.stateReason ?? null } : {}),
  };
}

/** Comments appear on the timeline as `commented` events. */
export function timelineCommentJson(world: World, repo: RepoRecord, issue: IssueRecord, comment: CommentRecord): Json {
  return { ...commentJson(world, repo, issue, comment), event: "commented", actor: simpleUser(world, comment.author) };
}

/** One commit of GET /pulls/{n}/commits: git's author and committer, and the accounts GitHub matched them to (null when it matched none). */
export function pullCommitJson(world: World, repo: RepoRecord, commit: CommitRecord): Json {
  const api = repoApiUrl(world, repo);
  const person = { name: commit.authorName, email: commit.authorEmail, date: commit.date };
  const account = commit.authorLogin ? simpleUser(world, commit.authorLogin) : null;
  return {
    sha: commit.sha,
    node_id: Buffer.from(`04:Commit${commit.sha}`).toString("base64"),
    commit: {
      author: person,
      committer: person,
      message: commit.message,
      tree: { sha: commit.sha, url: `${api}/git/trees/${commit.sha}` },
      url: `${api}/git/commits/${commit.sha}`,
      comment_count: 0,
      verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
    },
    url: `${api}/commits/${commit.sha}`,
    html_url: `${repoHtmlUrl(world, repo)}/commit/${commit.sha}`,
    comments_url: `${api}/commits/${commit.sha}/comments`,
    author: account,
    committer: account,
    parents: [],
  };
}
