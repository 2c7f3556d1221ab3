/**
 * The state plus what every part of the emulator needs to read it: the
 * configuration, the clock, lookups by name and id, and persistence.
 */
import { isoTime, saveState, type EventRecord, type IssueRecord, type OrgRecord, type RepoRecord, type State, type UserRecord } from "./state.ts";

export interface WorldConfig {
  webUrl: string;
  apiUrl: string;
  app: { id: number; slug: string; clientId: string; clientSecret: string; publicKeyPem: string; setupUrl: string };
  oauth: { clientId: string; clientSecret: string };
  webhook: { url: string; secret: string };
  rateLimits: { authenticated: number; anonymous: number };
  now: () => number;
}

/** What the emulated app may do; installation tokens carry exactly these. */
export const APP_PERMISSIONS = { issues: "write", metadata: "read", pull_requests: "read", members: "read" } as const;
export const APP_EVENTS = ["issues", "issue_comment", "pull_request", "pull_request_review", "repository"];

export class World {
  constructor(
    public state: State,
    public readonly config: WorldConfig,
    private readonly stateFile?: string,
  ) {}

  now(): number {
    return this.config.now();
  }

  iso(ms = this.now()): string {
    return isoTime(ms);
  }

  /** Called after every change: the state file always matches memory. */
  save(): void {
    if (this.stateFile) saveState(this.stateFile, this.state);
  }

  get botLogin(): string {
    return `${this.config.app.slug}[bot]`;
  }

  /** Bot users have their own id space on GitHub; derive one from the app id so it is stable. */
  get botId(): number {
    return 41_000_000 + this.config.app.id;
  }

  user(login: string): UserRecord | undefined {
    const key = login.toLowerCase();
    return this.state.users.find((u) => u.login.toLowerCase() === key);
  }

  org(login: string): OrgRecord | undefined {
    const key = login.toLowerCase();
    return this.state.orgs.find((o) => o.login.toLowerCase() === key);
  }

  isBot(login: string): boolean {
    return login.toLowerCase() === this.botLogin.toLowerCase();
  }

  repoById(id: number): RepoRecord | undefined {
    return this.state.repos.find((r) => r.id === id);
  }

  /** By current name, or by a former name (then `moved`: GitHub answers those with a redirect). */
  findRepo(owner: string, name: string): { repo: RepoRecord; moved: boolean } | undefined {
    const key = `${owner}/${name}`.toLowerCase();
    const current = this.state.repos.find((r) => fullName(r).toLowerCase() === key);
    if (current) return { repo: current, moved: false };
    const former = this.state.repos.find((r) => r.previousNames.includes(key));
    return former ? { repo: former, moved: true } : undefined;
  }

  issue(repoId: number, number: number): IssueRecord | undefined {
    return this.state.issues.find((i) => i.repoId === repoId && i.number === number);
  }

  issuesOf(repoId: number): IssueRecord[] {
    return this.state.issues.filter((i) => i.repoId === repoId);
  }

  addEvent(event: Omit<EventRecord, "id">): EventRecord {
    const record = { id: ++this.state.counters.event, ...event };
    this.state.events.push(record);
    return record;
  }
}

export function fullName(repo: RepoRecord): string {
  return `${repo.owner}/${repo.name}`;
}

/** GitHub's legacy global node id: base64("0<len>:<Type><id>"), e.g. MDQ6VXNlcjE= for User 1. */
export function nodeId(type: string, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}

/** Issue ids are global on GitHub; derive them from the repository id and number so they are stable. */
export function issueId(repoId: number, number: number): number {
  return repoId * 100_000 + number;
}

/** A pull request has its own id, distinct from the id of its issue. */
export function pullId(repoId: number, number: number): number {
  return 1_000_000_000 + issueId(repoId, number);
}
