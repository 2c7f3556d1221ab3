/**
 * Driving the emulated world from outside, as people do on github.com:
 * open and close issues, open and merge pull requests, comment, label,
 * rename, transfer, change visibility, install and uninstall, redeliver.
 * The same operations are available programmatically (`controls`) and as
 * JSON (or HTML form) endpoints under /_emulator/; each resolves after the
 * webhooks it caused have been delivered, and reports their delivery ids.
 */
import { Hono, type Context } from "hono";
import { html } from "hono/html";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ActionError, type Outcome } from "./actions.ts";
import type { EmulatorContext } from "./context.ts";
import { layout } from "./html.ts";
import { installationJson, type Json } from "./shapes-accounts.ts";
import { commentJson, issueJson, pullJson, reviewJson } from "./shapes-issues.ts";
import { repoJson } from "./shapes-repos.ts";
import type { IssueRecord, RepoRecord } from "./state.ts";
import type { WebhookDelivery } from "./webhooks.ts";

const repo = z.string().regex(/^[^/\s]+\/[^/\s]+$/, "repo must be owner/name");
/** Forms send numbers as text. */
const number = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).pipe(z.number().int().positive());
const login = z.string().min(1);
/** Forms send comma-separated text where JSON sends a list. */
const list = z.union([z.array(z.string()), z.string().transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))]);

const schemas = {
  openIssue: z.object({ repo, title: z.string().min(1), body: z.string().default(""), author: login, labels: list.default([]) }),
  closeIssue: z.object({ repo, number, reason: z.enum(["completed", "not_planned"]).default("completed"), actor: login.optional() }),
  reopenIssue: z.object({ repo, number, actor: login.optional() }),
  addLabel: z.object({ repo, number, label: z.string().min(1), actor: login.optional() }),
  addComment: z.object({ repo, number, author: login, body: z.string().min(1) }),
  openPullRequest: z.object({
    repo,
    author: login,
    title: z.string().min(1),
    body: z.string().default(""),
    head: z.string().min(1),
    base: z.string().min(1).optional(),
    /** Commit messages (with any `Co-authored-by:` trailers), authored by the pull request's author unless `author` says otherwise. */
    commits: z.array(z.object({ message: z.string().min(1), author: login.optional() })).optional(),
    /** The control page's one commit message (a form cannot send `commits`): trailers such as `Co-authored-by:` included. */
    commitMessage: z.string().optional(),
  }),
  /** Commits pushed to an open pull request (`pull_request.synchronize`); `actor` defaults to the pull request's author. */
  pushToPullRequest: z.object({ repo, number, commits: z.array(z.object({ message: z.string().min(1), author: login.optional() })).min(1), actor: login.optional() }),
  /** `at`: when GitHub records the merge (ISO, not in the future), for tests of a pull request merged long ago. */
  mergePullRequest: z.object({ repo, number, actor: login.optional(), at: z.iso.datetime().optional() }),
  closePullRequest: z.object({ repo, number, actor: login.optional() }),
  /** A submitted review (GitHub's APPROVE, REQUEST_CHANGES or COMMENT), or a pending one without `event`. */
  reviewPullRequest: z.object({ repo, number, author: login, event: z.enum(["APPROVE", "REQUEST_CHANGES", "COMMENT"]).optional(), body: z.string().default("") }),
  renameRepository: z.object({ repo, name: z.string().min(1), actor: login.optional() }),
  transferRepository: z.object({ repo, newOwner: login, actor: login.optional() }),
  setRepositoryVisibility: z.object({ repo, visibility: z.enum(["public", "private"]), actor: login.optional() }),
  setCollaborator: z.object({ repo, login, permission: z.enum(["admin", "maintain", "write", "triage", "read"]).nullable(), actor: login.optional() }),
  install: z.object({ account: login, repositories: z.union([z.literal("all"), list]).default("all"), sender: login.optional() }),
  uninstall: z.object({ installationId: number, actor: login.optional() }),
};

type Inputs = { [K in keyof typeof schemas]: z.input<(typeof schemas)[K]> };
export type ControlResult<K extends string> = { [P in K]: Json } & { deliveryIds: string[] };

export interface EmulatorControls {
  openIssue(input: Inputs["openIssue"]): Promise<ControlResult<"issue">>;
  closeIssue(input: Inputs["closeIssue"]): Promise<ControlResult<"issue">>;
  reopenIssue(input: Inputs["reopenIssue"]): Promise<ControlResult<"issue">>;
  addLabel(input: Inputs["addLabel"]): Promise<ControlResult<"issue">>;
  addComment(input: Inputs["addComment"]): Promise<ControlResult<"comment">>;
  openPullRequest(input: Inputs["openPullRequest"]): Promise<ControlResult<"pull_request">>;
  pushToPullRequest(input: Inputs["pushToPullRequest"]): Promise<ControlResult<"pull_request">>;
  mergePullRequest(input: Inputs["mergePullRequest"]): Promise<ControlResult<"pull_request">>;
  closePullRequest(input: Inputs["closePullRequest"]): Promise<ControlResult<"pull_request">>;
  /** A review of a pull request: the pull_request_review webhook when submitted. */
  reviewPullRequest(input: Inputs["reviewPullRequest"]): Promise<ControlResult<"review">>;
  renameRepository(input: Inputs["renameRepository"]): Promise<ControlResult<"repository">>;
  transferRepository(input: Inputs["transferRepository"]): Promise<ControlResult<"repository">>;
  setRepositoryVisibility(input: Inputs["setRepositoryVisibility"]): Promise<ControlResult<"repository">>;
  /** A collaborator's permission given, changed or taken away (null): the "member" webhook. */
  setCollaborator(input: Inputs["setCollaborator"]): Promise<ControlResult<"repository">>;
  install(input: Inputs["install"]): Promise<ControlResult<"installation"> & { setupAction: "install" | "update" }>;
  uninstall(input: Inputs["uninstall"]): Promise<ControlResult<"installation">>;
  /** Sends a recorded delivery again: same X-GitHub-Delivery id, same body. */
  redeliver(deliveryId: string): Promise<WebhookDelivery>;
  /** Waits for webhooks triggered through the REST API (which, like GitHub, does not wait for them). */
  settle(): Promise<void>;
}

function parse<K extends keyof typeof schemas>(kind: K, input: unknown): z.output<(typeof schemas)[K]> {
  const result = schemas[kind].safeParse(input);
  if (!result.success) throw new ActionError(422, result.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
  return result.data as z.output<(typeof schemas)[K]>;
}

export function createControls({ world, actions, webhooks }: EmulatorContext): EmulatorControls {
  const findRepo = (fullName: string): RepoRecord => {
    const [owner = "", name = ""] = fullName.split("/");
    const found = world.findRepo(owner, name);
    if (!found || found.moved) throw new ActionError(404, `No repository ${fullName}`);
    return found.repo;
  };
  const findIssue = (r: RepoRecord, n: number): IssueRecord => {
    const issue = world.issue(r.id, n);
    if (!issue) throw new ActionError(404, `No issue or pull request #${n} in ${r.owner}/${r.name}`);
    return issue;
  };
  const user = (name: string): string => {
    const record = world.user(name);
    if (!record) throw new ActionError(422, `No user ${name}`);
    return record.login;
  };
  /** Who acts when nobody is named: the account itself for a user, else the organisation's first owner. */
  const actorFor = (account: string, actor?: string): string => {
    if (actor) return user(actor);
    const org = world.org(account);
    return org ? Object.entries(org.members).find(([, role]) => role === "admin")![0] : user(account);
  };
  const delivered = async <T>(outcome: Outcome<T>) => {
    await Promise.all(outcome.deliveries.map((d) => d.done));
    return outcome.deliveries.map((d) => d.id);
  };
  const issueResult = async (r: RepoRecord, outcome: Outcome<IssueRecord>) => ({ issue: issueJson(world, r, outcome.value, true), deliveryIds: await delivered(outcome) });
  const pullResult = async (r: RepoRecord, outcome: Outcome<IssueRecord>) => ({ pull_request: pullJson(world, r, outcome.value, true), deliveryIds: await delivered(outcome) });
  const repoResult = async (outcome: Outcome<RepoRecord>) => ({ repository: repoJson(world, outcome.value), deliveryIds: await delivered(outcome) });
  const withIssue = <K extends "closeIssue" | "reopenIssue" | "addLabel" | "mergePullRequest" | "closePullRequest">(kind: K, raw: unknown) => {
    const input = parse(kind, raw);
    const r = findRepo(input.repo);
    return { input, repo: r, issue: findIssue(r, input.number), actor: actorFor(r.owner, input.actor) };
  };

  return {
    async openIssue(raw) {
      const input = parse("openIssue", raw);
      const r = findRepo(input.repo);
      return issueResult(r, actions.openIssue({ repo: r, author: user(input.author), title: input.title, body: input.body, labels: input.labels }));
    },
    async closeIssue(raw) {
      const { input, repo: r, issue, actor } = withIssue("closeIssue", raw);
      return issueResult(r, actions.closeIssue({ repo: r, issue, actor, reason: input.reason }));
    },
    async reopenIssue(raw) {
      const { repo: r, issue, actor } = withIssue("reopenIssue", raw);
      return issueResult(r, actions.reopenIssue({ repo: r, issue, actor }));
    },
    async addLabel(raw) {
      const { input, repo: r, issue, actor } = withIssue("addLabel", raw);
      return issueResult(r, actions.addLabel({ repo: r, issue, label: input.label, actor }));
    },
    async addComment(raw) {
      const input = parse("addComment", raw);
      const r = findRepo(input.repo);
      const issue = findIssue(r, input.number);
      const outcome = actions.addComment({ repo: r, issue, author: user(input.author), body: input.body });
      return { comment: commentJson(world, r, issue, outcome.value), deliveryIds: await delivered(outcome) };
    },
    async openPullRequest(raw) {
      const input = parse("openPullRequest", raw);
      const r = findRepo(input.repo);
      // A form's text area sends CRLF line ends; a commit message has LF.
      const typed = input.commitMessage?.replace(/\r\n/g, "\n").trim();
      const commits = input.commits ?? (typed ? [{ message: typed }] : undefined);
      return pullResult(r, actions.openPull({ repo: r, author: user(input.author), title: input.title, body: input.body, head: input.head, base: input.base, commits }));
    },
    async pushToPullRequest(raw) {
      const input = parse("pushToPullRequest", raw);
      const r = findRepo(input.repo);
      const issue = findIssue(r, input.number);
      return pullResult(r, actions.pushToPull({ repo: r, issue, commits: input.commits, actor: input.actor ? user(input.actor) : issue.author }));
    },
    async mergePullRequest(raw) {
      const { repo: r, issue, actor, input } = withIssue("mergePullRequest", raw);
      return pullResult(r, actions.mergePull({ repo: r, issue, actor, at: input.at }));
    },
    async closePullRequest(raw) {
      const { repo: r, issue, actor } = withIssue("closePullRequest", raw);
      return pullResult(r, actions.closePull({ repo: r, issue, actor }));
    },
    async reviewPullRequest(raw) {
      const input = parse("reviewPullRequest", raw);
      const r = findRepo(input.repo);
      const issue = findIssue(r, input.number);
      const outcome = actions.reviewPull({ repo: r, issue, author: user(input.author), event: input.event, body: input.body });
      return { review: reviewJson(world, r, issue, outcome.value), deliveryIds: await delivered(outcome) };
    },
    async renameRepository(raw) {
      const input = parse("renameRepository", raw);
      const r = findRepo(input.repo);
      return repoResult(actions.renameRepo({ repo: r, name: input.name, actor: actorFor(r.owner, input.actor) }));
    },
    async transferRepository(raw) {
      const input = parse("transferRepository", raw);
      const r = findRepo(input.repo);
      return repoResult(actions.transferRepo({ repo: r, newOwner: input.newOwner, actor: actorFor(r.owner, input.actor) }));
    },
    async setRepositoryVisibility(raw) {
      const input = parse("setRepositoryVisibility", raw);
      const r = findRepo(input.repo);
      return repoResult(actions.setVisibility({ repo: r, private: input.visibility === "private", actor: actorFor(r.owner, input.actor) }));
    },
    async setCollaborator(raw) {
      const input = parse("setCollaborator", raw);
      const r = findRepo(input.repo);
      return repoResult(actions.setCollaborator({ repo: r, login: input.login, permission: input.permission, actor: actorFor(r.owner, input.actor) }));
    },
    async install(raw) {
      const input = parse("install", raw);
      const names = input.repositories === "all" ? [] : input.repositories;
      const repoIds = names.map((n) => findRepo(n.includes("/") ? n : `${input.account}/${n}`).id);
      const outcome = actions.install({ account: input.account, selection: input.repositories === "all" ? "all" : "selected", repoIds, sender: actorFor(input.account, input.sender) });
      return { installation: installationJson(world, outcome.value.installation), setupAction: outcome.value.setupAction, deliveryIds: await delivered(outcome) };
    },
    async uninstall(raw) {
      const input = parse("uninstall", raw);
      const installation = world.state.installations.find((i) => i.id === input.installationId);
      if (!installation) throw new ActionError(404, `No installation ${input.installationId}`);
      const json = installationJson(world, installation);
      const outcome = actions.uninstall({ installation, sender: actorFor(installation.account, input.actor) });
      return { installation: json, deliveryIds: await delivered(outcome) };
    },
    async redeliver(deliveryId) {
      const delivery = await webhooks.redeliver(deliveryId);
      if (!delivery) throw new ActionError(404, `No delivery ${deliveryId}`);
      return delivery;
    },
    settle: () => webhooks.settle(),
  };
}

/** The HTTP face of the controls. Form posts (from the control page) are redirected back to it. */
export function controlRoutes(controls: EmulatorControls, { webhooks }: EmulatorContext): Hono {
  const app = new Hono();
  const isForm = (c: Context) => (c.req.header("content-type") ?? "").includes("form");
  const refused = (c: Context, err: ActionError) => {
    const status = err.status as ContentfulStatusCode;
    return isForm(c) ? c.html(layout("Refused", html`<h1>Refused</h1><p>${err.message}</p><p><a href="/_emulator">Back to the control panel</a></p>`), status) : c.json({ message: err.message }, status);
  };
  // Each control validates its own input, so the routes hand over whatever arrived.
  const routes: Record<string, (input: never) => Promise<unknown>> = {
    "/issues": controls.openIssue,
    "/issues/close": controls.closeIssue,
    "/issues/reopen": controls.reopenIssue,
    "/issues/label": controls.addLabel,
    "/comments": controls.addComment,
    "/pulls": controls.openPullRequest,
    "/pulls/push": controls.pushToPullRequest,
    "/pulls/merge": controls.mergePullRequest,
    "/pulls/close": controls.closePullRequest,
    "/pulls/review": controls.reviewPullRequest,
    "/repos/rename": controls.renameRepository,
    "/repos/transfer": controls.transferRepository,
    "/repos/visibility": controls.setRepositoryVisibility,
    "/repos/collaborators": controls.setCollaborator,
    "/installations": controls.install,
    "/installations/delete": controls.uninstall,
  };
  for (const [path, run] of Object.entries(routes)) {
    app.post(`/_emulator${path}`, async (c) => {
      const input = isForm(c) ? await c.req.parseBody() : await c.req.json().catch(() => undefined);
      try {
        const result = await run(input as never);
        return isForm(c) ? c.redirect("/_emulator", 303) : c.json(result as Json);
      } catch (err) {
        if (!(err instanceof ActionError)) throw err;
        return refused(c, err);
      }
    });
  }

  app.get("/_emulator/deliveries", (c) => c.json(webhooks.deliveries));

  app.post("/_emulator/deliveries/:id/redeliver", async (c) => {
    try {
      const delivery = await controls.redeliver(c.req.param("id"));
      return isForm(c) ? c.redirect("/_emulator", 303) : c.json(delivery);
    } catch (err) {
      if (!(err instanceof ActionError)) throw err;
      return refused(c, err);
    }
  });

  return app;
}
