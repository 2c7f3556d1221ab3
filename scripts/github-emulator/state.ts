/**
 * The emulator's whole world as one JSON-serialisable value: seeded from the
 * fixture, changed only through actions.ts, and (when a state file is given)
 * written to disk after every change so a dev restart keeps installations,
 * tokens, comments and new pull requests.
 */
import { existsSync, readFileSync, renameSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { FIXTURE_LABELS, FIXTURE_ORGS, FIXTURE_REPOS, FIXTURE_USERS, type FixtureIssue } from "./fixture.ts";
import { mentionedIssues } from "./references.ts";

export type Role = "admin" | "maintain" | "write" | "triage" | "read";
export type StateReason = "completed" | "not_planned" | "reopened" | null;

export interface UserRecord {
  id: number;
  login: string;
  name: string;
  email: string;
  bio: string | null;
  location: string | null;
  blog: string;
  persona: string;
  createdAt: string;
  /** A bot account (not the app's own bot user): comments as type "Bot", never signs in. */
  type?: "Bot";
}

export interface OrgRecord {
  id: number;
  login: string;
  name: string;
  members: Record<string, "admin" | "member">;
  createdAt: string;
}

export interface LabelRecord {
  id: number;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}

export interface RepoRecord {
  id: number;
  owner: string;
  name: string;
  description: string;
  private: boolean;
  collaborators: Record<string, Role>;
  stars: number;
  forks: number;
  language: string;
  defaultBranch: string;
  labels: LabelRecord[];
  /** Lower-cased full names the repository had before a rename or transfer; they redirect. */
  previousNames: string[];
  /** Issues and pull requests share one number sequence per repository, as on GitHub. */
  nextNumber: number;
  createdAt: string;
  updatedAt: string;
  pushedAt: string;
}

export interface PullRecord {
  headOwner: string;
  head: string;
  base: string;
  headSha: string;
  /** Known from the start (GitHub computes a test merge); becomes the real merge commit on merge. */
  mergeCommitSha: string;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: string | null;
  /** The pull request's commits (message and author's e-mail, as git records them); absent in older state files: one commit from the pull request's title. */
  commits?: CommitRecord[];
}

export interface CommitRecord {
  sha: string;
  message: string;
  authorName: string;
  authorEmail: string;
  /** The GitHub account GitHub matched the author's e-mail to, if any. */
  authorLogin: string | null;
  date: string;
}

export interface IssueRecord {
  repoId: number;
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  stateReason: StateReason;
  author: string;
  labels: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  closedBy: string | null;
  pull?: PullRecord;
}

export interface CommentRecord {
  id: number;
  repoId: number;
  number: number;
  author: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/** A pull request review (GitHub's "pull request review"): PENDING until submitted with an event. */
export interface ReviewRecord {
  id: number;
  repoId: number;
  number: number;
  author: string;
  body: string;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "PENDING";
  commitId: string;
  /** null while PENDING. */
  submittedAt: string | null;
}

export interface EventRecord {
  id: number;
  repoId: number;
  number: number;
  event: "cross-referenced" | "closed" | "reopened" | "labeled" | "merged";
  actor: string;
  createdAt: string;
  commitId?: string;
  stateReason?: StateReason;
  label?: string;
  /** The issue or pull request whose body mentioned this one (cross-referenced). */
  source?: { repoId: number; number: number };
}

export interface InstallationRecord {
  id: number;
  account: string;
  selection: "all" | "selected";
  repoIds: number[];
  createdAt: string;
  updatedAt: string;
}

export interface TokenRecord {
  token: string;
  /** oauth: gho_ from the OAuth app; user-app: ghu_ from the GitHub App's client; installation: ghs_. */
  kind: "oauth" | "user-app" | "installation";
  login?: string;
  installationId?: number;
  scope: string;
  expiresAt: string | null;
}

export interface State {
  version: typeof STATE_VERSION;
  users: UserRecord[];
  orgs: OrgRecord[];
  repos: RepoRecord[];
  issues: IssueRecord[];
  comments: CommentRecord[];
  /** Absent in state files from before reviews existed (read as none). */
  reviews?: ReviewRecord[];
  events: EventRecord[];
  installations: InstallationRecord[];
  tokens: TokenRecord[];
  deliveries: WebhookDelivery[];
  counters: { comment: number; event: number; installation: number };
}

const STATE_VERSION = 1;
const DAY_MS = 24 * 3600 * 1000;
/** GitHub's default labels of a new repository. */
const GITHUB_DEFAULT_LABELS = new Set(["bug", "documentation", "duplicate", "enhancement", "good first issue", "help wanted", "invalid", "question", "wontfix"]);

/** GitHub timestamps have no milliseconds: 2011-01-26T19:01:12Z. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function sha1Hex(text: string): string {
  return new Bun.CryptoHasher("sha1").update(text).digest("hex");
}

export function newLabel(repoId: number, index: number, name: string, color: string, description: string | null): LabelRecord {
  return { id: repoId * 1000 + index + 1, name, color, description, default: GITHUB_DEFAULT_LABELS.has(name) };
}

export function newPull(repoId: number, number: number, headOwner: string, head: string, base: string): PullRecord {
  return {
    headOwner,
    head,
    base,
    headSha: sha1Hex(`${repoId}:${number}:head:${head}`),
    mergeCommitSha: sha1Hex(`${repoId}:${number}:merge`),
    merged: false,
    mergedAt: null,
    mergedBy: null,
  };
}

/** The fixture as state, with timestamps relative to `nowMs`. */
function seedState(nowMs: number): State {
  const at = (daysAgo: number) => isoTime(nowMs - daysAgo * DAY_MS);
  const state: State = {
    version: STATE_VERSION,
    users: FIXTURE_USERS.map((u) => ({
      id: u.id,
      login: u.login,
      name: u.name,
      email: u.email,
      bio: u.bio ?? null,
      location: u.location ?? null,
      blog: u.blog ?? "",
      persona: u.persona,
      createdAt: at(900),
      ...(u.type ? { type: u.type } : {}),
    })),
    orgs: FIXTURE_ORGS.map((o) => ({ id: o.id, login: o.login, name: o.name, members: { ...o.members }, createdAt: at(800) })),
    repos: [],
    issues: [],
    comments: [],
    events: [],
    installations: [],
    tokens: [],
    deliveries: [],
    counters: { comment: 1_200_000_000, event: 9_000_000_000, installation: 40_000_000 },
  };
  const event = (e: Omit<EventRecord, "id">) => state.events.push({ id: ++state.counters.event, ...e });

  for (const fr of FIXTURE_REPOS) {
    const labels = FIXTURE_LABELS.map((l, i) => newLabel(fr.id, i, l.name, l.color, l.description ?? null));
    state.repos.push({
      id: fr.id,
      owner: fr.owner,
      name: fr.name,
      description: fr.description,
      private: fr.private,
      collaborators: { ...fr.collaborators },
      stars: fr.stars,
      forks: fr.forks,
      language: fr.language,
      defaultBranch: "main",
      labels,
      previousNames: [],
      nextNumber: Math.max(0, ...fr.issues.map((i) => i.number)) + 1,
      createdAt: at(fr.createdDaysAgo),
      updatedAt: at(1),
      pushedAt: at(1),
    });
    for (const fi of fr.issues) state.issues.push(seedIssue(fr.id, fi, at));
  }

  for (const issue of state.issues) {
    for (const label of issue.labels) event({ repoId: issue.repoId, number: issue.number, event: "labeled", actor: issue.author, createdAt: issue.createdAt, label });
    if (issue.pull?.merged) {
      event({ repoId: issue.repoId, number: issue.number, event: "merged", actor: issue.author, createdAt: issue.closedAt!, commitId: issue.pull.mergeCommitSha });
    }
    if (issue.state === "closed") {
      event({ repoId: issue.repoId, number: issue.number, event: "closed", actor: issue.author, createdAt: issue.closedAt!, stateReason: issue.stateReason });
    }
    if (!issue.pull) continue;
    const repo = state.repos.find((r) => r.id === issue.repoId)!;
    for (const ref of mentionedIssues(issue.body, repo.owner, repo.name)) {
      const target = state.repos.find((r) => `${r.owner}/${r.name}`.toLowerCase() === `${ref.owner}/${ref.name}`.toLowerCase());
      if (!target || !state.issues.some((i) => i.repoId === target.id && i.number === ref.number)) continue;
      event({ repoId: target.id, number: ref.number, event: "cross-referenced", actor: issue.author, createdAt: issue.createdAt, source: { repoId: issue.repoId, number: issue.number } });
    }
  }
  return state;
}

function seedIssue(repoId: number, fi: FixtureIssue, at: (daysAgo: number) => string): IssueRecord {
  const createdAt = at(fi.createdDaysAgo);
  const closed = fi.state === "closed" || fi.pull?.merged === true;
  const closedAt = closed ? at(Math.max(0, fi.createdDaysAgo - 1)) : null;
  const record: IssueRecord = {
    repoId,
    number: fi.number,
    title: fi.title,
    body: fi.body,
    state: closed ? "closed" : "open",
    stateReason: closed && !fi.pull ? "completed" : null,
    author: fi.author,
    labels: [...fi.labels],
    createdAt,
    updatedAt: closedAt ?? createdAt,
    closedAt,
    closedBy: closed ? fi.author : null,
  };
  if (fi.pull) {
    const [headOwner, head] = fi.pull.head.includes(":") ? (fi.pull.head.split(":") as [string, string]) : [fi.author, fi.pull.head];
    record.pull = newPull(repoId, fi.number, headOwner, head, "main");
    if (fi.pull.merged) Object.assign(record.pull, { merged: true, mergedAt: closedAt, mergedBy: fi.author });
  }
  return record;
}

/** Loads the state file, or seeds a fresh world when there is none (or it is from another version). */
export function loadState(file: string | undefined, nowMs: number): State {
  if (file && existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as State;
    if (parsed.version === STATE_VERSION) return parsed;
  }
  return seedState(nowMs);
}

/** Writes atomically (temp file, then rename) so a crash never leaves half a file. */
export function saveState(file: string, state: State): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, file);
}

/** Webhook deliveries as Hookshot keeps them (webhooks.ts sends them). */
export interface DeliveryAttempt {
  at: string;
  /** HTTP status of the receiver's answer; 0 when there was none (refused, timed out). */
  status: number;
  response: string;
  durationMs: number;
}

export interface WebhookDelivery {
  /** The X-GitHub-Delivery GUID; redeliveries keep it. */
  id: string;
  event: string;
  action: string | null;
  payload: Record<string, unknown>;
  /** The exact bytes that were signed and sent. */
  body: string;
  installationId: number | null;
  repositoryId: number | null;
  createdAt: string;
  /** The latest attempt's status; null while the first attempt is under way. */
  status: number | null;
  response: string;
  durationMs: number;
  attempts: DeliveryAttempt[];
}
