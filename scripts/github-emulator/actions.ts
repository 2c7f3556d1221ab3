/**
 * Every change to the world goes through here, so each one updates the
 * state, records timeline events, saves, and delivers the webhooks GitHub
 * would deliver for it: the REST API, the control API, the control page and
 * the install page all share these.
 */
import { installationCovers, installationFor, installationOfAccount, installationRepos, permissionsOf, roleOf } from "./access.ts";
import { closingReferences, mentionedIssues } from "./references.ts";
import { installationJson, orgHookJson, shortRepo, simpleUser, type Json } from "./shapes-accounts.ts";
import { commentJson, issueJson, pullJson, reviewJson } from "./shapes-issues.ts";
import { findLabel, labelJson, repoJson } from "./shapes-repos.ts";
import { newLabel, newPull, sha1Hex, type CommentRecord, type InstallationRecord, type IssueRecord, type LabelRecord, type RepoRecord, type ReviewRecord } from "./state.ts";
import type { WebhookDelivery, Webhooks } from "./webhooks.ts";
import { fullName, nodeId, type World } from "./world.ts";

/** A refused change, with the HTTP status GitHub would answer. */
export class ActionError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Emitted {
  id: string;
  done: Promise<WebhookDelivery>;
}

export interface Outcome<T> {
  value: T;
  deliveries: Emitted[];
}

const REPO_NAME = /^[A-Za-z0-9_.-]+$/;

export class Actions {
  constructor(
    private readonly world: World,
    private readonly hooks: Webhooks,
  ) {}

  /** The parts every repository-scoped payload shares. */
  private envelope(repo: RepoRecord, sender: string, installation = installationFor(this.world, repo)): Json {
    const org = this.world.org(repo.owner);
    return {
      repository: repoJson(this.world, repo),
      ...(org ? { organization: orgHookJson(this.world, org) } : {}),
      sender: simpleUser(this.world, sender),
      ...(installation ? { installation: { id: installation.id, node_id: nodeId("IntegrationInstallation", installation.id) } } : {}),
    };
  }

  private issueEvent(repo: RepoRecord, issue: IssueRecord, action: string, sender: string, extra: Json = {}): Emitted {
    const body = issue.pull
      ? { action, number: issue.number, pull_request: pullJson(this.world, repo, issue, true), ...extra }
      : { action, issue: issueJson(this.world, repo, issue), ...extra };
    return this.hooks.emit(issue.pull ? "pull_request" : "issues", { ...body, ...this.envelope(repo, sender) });
  }

  private done<T>(value: T, deliveries: Emitted[]): Outcome<T> {
    this.world.save();
    return { value, deliveries };
  }

  private touch(issue: IssueRecord): string {
    const at = this.world.iso();
    issue.updatedAt = at;
    return at;
  }

  openIssue(input: { repo: RepoRecord; author: string; title: string; body: string; labels: string[] }): Outcome<IssueRecord> {
    const { repo } = input;
    const at = this.world.iso();
    const issue: IssueRecord = {
      repoId: repo.id,
      number: repo.nextNumber++,
      title: input.title,
      body: input.body,
      state: "open",
      stateReason: null,
      author: input.author,
      labels: [],
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      closedBy: null,
    };
    const labels = [...new Map(input.labels.map((name) => this.labelRecord(repo, name)).map((l) => [l.id, l])).values()];
    issue.labels = labels.map((l) => l.name);
    for (const l of labels) this.world.addEvent({ repoId: repo.id, number: issue.number, event: "labeled", actor: input.author, createdAt: at, label: l.name });
    this.world.state.issues.push(issue);
    // As on GitHub: "opened" (already showing the labels), then one "labeled" per label.
    const deliveries = [this.issueEvent(repo, issue, "opened", input.author)];
    for (const l of labels) deliveries.push(this.issueEvent(repo, issue, "labeled", input.author, { label: labelJson(this.world, repo, l) }));
    return this.done(issue, deliveries);
  }

  /** The repository's label of that name, created (grey, as GitHub's API does) if new. */
  private labelRecord(repo: RepoRecord, name: string): LabelRecord {
    let label = findLabel(repo, name);
    if (!label) {
      label = newLabel(repo.id, repo.labels.length, name, "ededed", null);
      repo.labels.push(label);
    }
    return label;
  }

  closeIssue(input: { repo: RepoRecord; issue: IssueRecord; actor: string; reason: "completed" | "not_planned" }): Outcome<IssueRecord> {
    const { repo, issue, actor } = input;
    if (issue.pull) return this.closePull(input);
    if (issue.state === "closed") throw new ActionError(422, "Issue is already closed.");
    const at = this.touch(issue);
    Object.assign(issue, { state: "closed", stateReason: input.reason, closedAt: at, closedBy: actor });
    this.world.addEvent({ repoId: repo.id, number: issue.number, event: "closed", actor, createdAt: at, stateReason: input.reason });
    return this.done(issue, [this.issueEvent(repo, issue, "closed", actor)]);
  }

  reopenIssue(input: { repo: RepoRecord; issue: IssueRecord; actor: string }): Outcome<IssueRecord> {
    const { repo, issue, actor } = input;
    if (issue.state === "open") throw new ActionError(422, "Issue is already open.");
    if (issue.pull?.merged) throw new ActionError(422, "Cannot reopen a merged pull request.");
    const at = this.touch(issue);
    Object.assign(issue, { state: "open", stateReason: issue.pull ? null : "reopened", closedAt: null, closedBy: null });
    this.world.addEvent({ repoId: repo.id, number: issue.number, event: "reopened", actor, createdAt: at, stateReason: issue.stateReason });
    return this.done(issue, [this.issueEvent(repo, issue, "reopened", actor)]);
  }

  /** Adds a label; one the issue already has changes nothing. */
  addLabel(input: { repo: RepoRecord; issue: IssueRecord; label: string; actor: string }): Outcome<IssueRecord> {
    const { repo, issue, actor } = input;
    const label = this.labelRecord(repo, input.label);
    if (issue.labels.some((l) => l.toLowerCase() === label.name.toLowerCase())) return this.done(issue, []);
    issue.labels.push(label.name);
    const at = this.touch(issue);
    this.world.addEvent({ repoId: repo.id, number: issue.number, event: "labeled", actor, createdAt: at, label: label.name });
    return this.done(issue, [this.issueEvent(repo, issue, "labeled", actor, { label: labelJson(this.world, repo, label) })]);
  }

  addComment(input: { repo: RepoRecord; issue: IssueRecord; author: string; body: string }): Outcome<CommentRecord> {
    const { repo, issue } = input;
    const at = this.touch(issue);
    const comment: CommentRecord = { id: ++this.world.state.counters.comment, repoId: repo.id, number: issue.number, author: input.author, body: input.body, createdAt: at, updatedAt: at };
    this.world.state.comments.push(comment);
    return this.done(comment, [this.commentEvent(repo, issue, comment, "created", input.author)]);
  }

  editComment(input: { repo: RepoRecord; issue: IssueRecord; comment: CommentRecord; actor: string; body: string }): Outcome<CommentRecord> {
    const { repo, issue, comment } = input;
    const from = comment.body;
    Object.assign(comment, { body: input.body, updatedAt: this.world.iso() });
    return this.done(comment, [this.commentEvent(repo, issue, comment, "edited", input.actor, { changes: { body: { from } } })]);
  }

  private commentEvent(repo: RepoRecord, issue: IssueRecord, comment: CommentRecord, action: string, sender: string, extra: Json = {}): Emitted {
    const body = { action, issue: issueJson(this.world, repo, issue), comment: commentJson(this.world, repo, issue, comment), ...extra };
    return this.hooks.emit("issue_comment", { ...body, ...this.envelope(repo, sender) });
  }

  /**
   * A review of a pull request, as POST /pulls/{n}/reviews makes it: with an event it is submitted at once (the
   * pull_request_review webhook, action "submitted"); without one it stays PENDING and nothing is delivered. As on
   * GitHub, an author cannot approve or request changes on their own pull request, and a comment or a request for
   * changes needs a body.
   */
  reviewPull(input: { repo: RepoRecord; issue: IssueRecord; author: string; event?: "APPROVE" | "REQUEST_CHANGES" | "COMMENT"; body?: string }): Outcome<ReviewRecord> {
    const { repo, issue, author } = input;
    const pull = issue.pull;
    if (!pull) throw new ActionError(404, "Not Found");
    const body = input.body ?? "";
    const own = issue.author.toLowerCase() === author.toLowerCase();
    if (input.event === "APPROVE" && own) throw new ActionError(422, "Can not approve your own pull request");
    if (input.event === "REQUEST_CHANGES" && own) throw new ActionError(422, "Can not request changes on your own pull request");
    if ((input.event === "REQUEST_CHANGES" || input.event === "COMMENT") && body.trim() === "") throw new ActionError(422, `Review Can not ${input.event === "COMMENT" ? "comment" : "request changes"} without a body`);
    const state = ({ APPROVE: "APPROVED", REQUEST_CHANGES: "CHANGES_REQUESTED", COMMENT: "COMMENTED" } as const)[input.event ?? "COMMENT"];
    const reviews = (this.world.state.reviews ??= []);
    const at = input.event ? this.touch(issue) : null;
    const review: ReviewRecord = { id: 80_000_000 + reviews.length + 1, repoId: repo.id, number: issue.number, author, body, state: input.event ? state : "PENDING", commitId: pull.headSha, submittedAt: at };
    reviews.push(review);
    if (!input.event) return this.done(review, []);
    const payload = { action: "submitted", review: reviewJson(this.world, repo, issue, review, true), pull_request: pullJson(this.world, repo, issue, true), ...this.envelope(repo, author) };
    return this.done(review, [this.hooks.emit("pull_request_review", payload)]);
  }

  /** `head` is "branch" (a branch of the repository when the author can push, else of their fork) or "owner:branch". */
  openPull(input: { repo: RepoRecord; author: string; title: string; body: string; head: string; base?: string; commits?: { message: string; author?: string }[] }): Outcome<IssueRecord> {
    const { repo, author } = input;
    const canPush = permissionsOf(roleOf(this.world, repo, author), repo).push;
    const [headOwner, head] = input.head.includes(":") ? (input.head.split(":", 2) as [string, string]) : [canPush ? repo.owner : author, input.head];
    const at = this.world.iso();
    const number = repo.nextNumber++;
    const issue: IssueRecord = {
      repoId: repo.id,
      number,
      title: input.title,
      body: input.body,
      state: "open",
      stateReason: null,
      author,
      labels: [],
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      closedBy: null,
      pull: newPull(repo.id, number, headOwner, head, input.base ?? repo.defaultBranch),
    };
    // Each commit's author as git records it (name and e-mail); GitHub links the e-mail to an account when it knows it.
    issue.pull!.commits = (input.commits?.length ? input.commits : [{ message: input.title }]).map((c, i) => {
      const who = this.world.user(c.author ?? author);
      return {
        sha: sha1Hex(`${repo.id}:${number}:commit:${i}:${c.message}`),
        message: c.message,
        authorName: who?.name ?? c.author ?? author,
        authorEmail: who?.email ?? `${c.author ?? author}@example.invalid`,
        authorLogin: who?.login ?? null,
        date: at,
      };
    });
    this.world.state.issues.push(issue);
    for (const ref of mentionedIssues(input.body, repo.owner, repo.name, this.world.config.webUrl)) {
      const target = this.world.findRepo(ref.owner, ref.name)?.repo;
      if (!target || (target.id === repo.id && ref.number === number) || !this.world.issue(target.id, ref.number)) continue;
      this.world.addEvent({ repoId: target.id, number: ref.number, event: "cross-referenced", actor: author, createdAt: at, source: { repoId: repo.id, number } });
    }
    return this.done(issue, [this.issueEvent(repo, issue, "opened", author)]);
  }

  /**
   * New commits pushed to an open pull request's head branch: its head moves to the last of them and
   * `pull_request.synchronize` is delivered (with `before` and `after`), as GitHub does on every push.
   */
  pushToPull(input: { repo: RepoRecord; issue: IssueRecord; commits: { message: string; author?: string }[]; actor: string }): Outcome<IssueRecord> {
    const { repo, issue } = input;
    const pull = issue.pull;
    if (!pull) throw new ActionError(404, "Not Found");
    if (issue.state !== "open") throw new ActionError(422, "Pull request is closed: nothing can be pushed to it.");
    const at = this.touch(issue);
    const before = pull.headSha;
    const existing = pull.commits ?? [];
    const added = input.commits.map((c, i) => {
      const who = this.world.user(c.author ?? issue.author);
      return {
        sha: sha1Hex(`${repo.id}:${issue.number}:commit:${existing.length + i}:${c.message}`),
        message: c.message,
        authorName: who?.name ?? c.author ?? issue.author,
        authorEmail: who?.email ?? `${c.author ?? issue.author}@example.invalid`,
        authorLogin: who?.login ?? null,
        date: at,
      };
    });
    pull.commits = [...existing, ...added];
    pull.headSha = added[added.length - 1]!.sha;
    return this.done(issue, [this.issueEvent(repo, issue, "synchronize", input.actor, { before, after: pull.headSha })]);
  }

  /** Merges, then closes the open issues of the same repository its body closes (only when merged into the default branch, as on GitHub). */
  mergePull(input: { repo: RepoRecord; issue: IssueRecord; actor: string; at?: string }): Outcome<IssueRecord> {
    const { repo, issue, actor } = input;
    const pull = issue.pull;
    if (!pull) throw new ActionError(404, "Not Found");
    if (issue.state !== "open") throw new ActionError(405, "Pull Request is not mergeable");
    const now = this.touch(issue);
    if (input.at && Date.parse(input.at) > Date.parse(now)) throw new ActionError(422, "A merge cannot be recorded in the future.");
    // Recorded as of `at` when given (a merge long ago, for tests); the webhooks go out now.
    const at = input.at ? this.world.iso(Date.parse(input.at)) : now;
    Object.assign(pull, { merged: true, mergedAt: at, mergedBy: actor });
    Object.assign(issue, { state: "closed", closedAt: at, closedBy: actor });
    repo.pushedAt = at;
    this.world.addEvent({ repoId: repo.id, number: issue.number, event: "merged", actor, createdAt: at, commitId: pull.mergeCommitSha });
    this.world.addEvent({ repoId: repo.id, number: issue.number, event: "closed", actor, createdAt: at, commitId: pull.mergeCommitSha });
    const deliveries = [this.issueEvent(repo, issue, "closed", actor)];
    if (pull.base !== repo.defaultBranch) return this.done(issue, deliveries);
    for (const ref of closingReferences(issue.body, repo.owner, repo.name, this.world.config.webUrl)) {
      if (this.world.findRepo(ref.owner, ref.name)?.repo.id !== repo.id) continue;
      const target = this.world.issue(repo.id, ref.number);
      if (!target || target.pull || target.state !== "open") continue;
      this.touch(target);
      Object.assign(target, { state: "closed", stateReason: "completed", closedAt: at, closedBy: actor });
      this.world.addEvent({ repoId: repo.id, number: target.number, event: "closed", actor, createdAt: at, commitId: pull.mergeCommitSha, stateReason: "completed" });
      deliveries.push(this.issueEvent(repo, target, "closed", actor));
    }
    return this.done(issue, deliveries);
  }

  closePull(input: { repo: RepoRecord; issue: IssueRecord; actor: string }): Outcome<IssueRecord> {
    const { repo, issue, actor } = input;
    if (!issue.pull) throw new ActionError(404, "Not Found");
    if (issue.state === "closed") throw new ActionError(422, "Pull request is already closed.");
    const at = this.touch(issue);
    Object.assign(issue, { state: "closed", closedAt: at, closedBy: actor });
    this.world.addEvent({ repoId: repo.id, number: issue.number, event: "closed", actor, createdAt: at });
    return this.done(issue, [this.issueEvent(repo, issue, "closed", actor)]);
  }

  renameRepo(input: { repo: RepoRecord; name: string; actor: string }): Outcome<RepoRecord> {
    const { repo, name, actor } = input;
    if (!REPO_NAME.test(name)) throw new ActionError(422, "Repository name is invalid.");
    const taken = this.world.findRepo(repo.owner, name);
    if (taken && !taken.moved && taken.repo.id !== repo.id) throw new ActionError(422, "Repository creation failed: name already exists on this account.");
    const from = repo.name;
    this.moveTo(repo, repo.owner, name);
    const changes = { repository: { name: { from } } };
    return this.done(repo, [this.hooks.emit("repository", { action: "renamed", changes, ...this.envelope(repo, actor) })]);
  }

  transferRepo(input: { repo: RepoRecord; newOwner: string; actor: string }): Outcome<RepoRecord> {
    const { repo, actor } = input;
    const target = this.world.user(input.newOwner) ?? this.world.org(input.newOwner);
    if (!target) throw new ActionError(422, `${input.newOwner} is not a user or organization.`);
    if (target.login.toLowerCase() === repo.owner.toLowerCase()) throw new ActionError(422, "The repository already belongs to this account.");
    if (this.world.findRepo(target.login, repo.name)?.moved === false) throw new ActionError(422, `${target.login} already has a repository named ${repo.name}.`);
    const before = installationFor(this.world, repo);
    const fromOrg = this.world.org(repo.owner);
    const from = fromOrg ? { organization: orgHookJson(this.world, fromOrg) } : { user: simpleUser(this.world, repo.owner) };
    if (before?.selection === "selected") before.repoIds = before.repoIds.filter((id) => id !== repo.id);
    this.moveTo(repo, target.login, repo.name);
    const payload = { action: "transferred", changes: { owner: { from } }, ...this.envelope(repo, actor, installationFor(this.world, repo) ?? before) };
    return this.done(repo, [this.hooks.emit("repository", payload)]);
  }

  private moveTo(repo: RepoRecord, owner: string, name: string): void {
    const old = fullName(repo).toLowerCase();
    repo.owner = owner;
    repo.name = name;
    repo.previousNames = [...repo.previousNames.filter((n) => n !== fullName(repo).toLowerCase()), old];
    repo.updatedAt = this.world.iso();
  }

  setVisibility(input: { repo: RepoRecord; private: boolean; actor: string }): Outcome<RepoRecord> {
    const { repo, actor } = input;
    if (repo.private === input.private) return this.done(repo, []);
    repo.private = input.private;
    repo.updatedAt = this.world.iso();
    return this.done(repo, [this.hooks.emit("repository", { action: repo.private ? "privatized" : "publicized", ...this.envelope(repo, actor) })]);
  }

  /** Gives, changes or takes a collaborator's permission: GitHub's "member" webhook (added, edited or removed). */
  setCollaborator(input: { repo: RepoRecord; login: string; permission: RepoRecord["collaborators"][string] | null; actor: string }): Outcome<RepoRecord> {
    const { repo, login, actor } = input;
    const key = Object.keys(repo.collaborators).find((k) => k.toLowerCase() === login.toLowerCase());
    const before = key === undefined ? undefined : repo.collaborators[key];
    if (key !== undefined) delete repo.collaborators[key];
    if (input.permission) repo.collaborators[key ?? login] = input.permission;
    repo.updatedAt = this.world.iso();
    const action = !before ? "added" : input.permission ? "edited" : "removed";
    const changes = action === "edited" ? { permission: { from: before, to: input.permission } } : undefined;
    return this.done(repo, [this.hooks.emit("member", { action, member: simpleUser(this.world, login), ...(changes ? { changes } : {}), ...this.envelope(repo, actor) })]);
  }

  /** Installs the app on an account, or changes the repositories of the existing installation there. */
  install(input: { account: string; selection: "all" | "selected"; repoIds: number[]; sender: string }): Outcome<{ installation: InstallationRecord; setupAction: "install" | "update" }> {
    const owner = this.world.user(input.account) ?? this.world.org(input.account);
    if (!owner) throw new ActionError(404, "Not Found");
    const owned = this.world.state.repos.filter((r) => r.owner.toLowerCase() === owner.login.toLowerCase());
    const repoIds = input.selection === "all" ? [] : [...new Set(input.repoIds)];
    if (repoIds.some((id) => !owned.some((r) => r.id === id))) throw new ActionError(422, "Selected repositories must belong to the account.");
    if (input.selection === "selected" && repoIds.length === 0) throw new ActionError(422, "Select at least one repository.");
    const at = this.world.iso();
    const existing = installationOfAccount(this.world, owner.login);
    if (!existing) {
      const installation: InstallationRecord = { id: ++this.world.state.counters.installation, account: owner.login, selection: input.selection, repoIds, createdAt: at, updatedAt: at };
      this.world.state.installations.push(installation);
      const payload = { action: "created", installation: installationJson(this.world, installation), repositories: installationRepos(this.world, installation).map(shortRepo), sender: simpleUser(this.world, input.sender) };
      return this.done({ installation, setupAction: "install" }, [this.hooks.emit("installation", payload)]);
    }
    const before = installationRepos(this.world, existing);
    Object.assign(existing, { selection: input.selection, repoIds, updatedAt: at });
    const after = installationRepos(this.world, existing);
    const added = after.filter((r) => !before.includes(r));
    const removed = before.filter((r) => !installationCovers(existing, r));
    const deliveries: Emitted[] = [];
    for (const [action, repos] of [["added", added], ["removed", removed]] as const) {
      if (repos.length === 0) continue;
      deliveries.push(
        this.hooks.emit("installation_repositories", {
          action,
          installation: installationJson(this.world, existing),
          repository_selection: existing.selection,
          repositories_added: action === "added" ? repos.map(shortRepo) : [],
          repositories_removed: action === "removed" ? repos.map(shortRepo) : [],
          requester: null,
          sender: simpleUser(this.world, input.sender),
        }),
      );
    }
    return this.done({ installation: existing, setupAction: "update" }, deliveries);
  }

  /** Uninstalls the app: the installation and its tokens are gone. */
  uninstall(input: { installation: InstallationRecord; sender: string }): Outcome<InstallationRecord> {
    const { installation } = input;
    const payload = { action: "deleted", installation: installationJson(this.world, installation), repositories: installationRepos(this.world, installation).map(shortRepo), sender: simpleUser(this.world, input.sender) };
    this.world.state.installations = this.world.state.installations.filter((i) => i.id !== installation.id);
    this.world.state.tokens = this.world.state.tokens.filter((t) => t.installationId !== installation.id);
    return this.done(installation, [this.hooks.emit("installation", payload)]);
  }
}
