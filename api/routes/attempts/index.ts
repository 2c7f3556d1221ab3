import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { declareRoute, json, OPTIONAL_USER, SESSION_WRITE } from "../../openapi/declare.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { requireManagedRepository, visibleRepository, registeredRepository } from "../../services/money/access.ts";
import { chooseSettings, flagAccount, REPOSITORY_DEFAULT } from "../../services/attempts/settings.ts";
import { attemptsView } from "../../services/attempts/view.ts";
import { pickApplicant, releaseAttemptOf, stopAttempt } from "../../services/attempts/attempts.ts";
import { DAY_MS } from "../../../lib/attempt-rules.ts";
import { positiveId } from "../params.ts";
import { AttemptsView, BountySettingsBody, FlagBody, LoginBody, SettingsBody } from "./schemas.ts";

/**
 * Attempts that hold a place (issue 39; api/services/attempts). Attempting itself is the spec's Contribute
 * (POST /api/blockchain/register, with a `note` for applications) and the bot's `/attempt`.
 * GET    /api/attempts/{repoId}                              the repository's settings, each bounty's holder, queue,
 *                                                            applications and competing pull requests; the viewer's own
 * PUT    /api/attempts/{repoId}/settings                     { mode, audience, lockDays } the repository's default (pool manager)
 * PUT    /api/attempts/{repoId}/issues/{issueNumber}/settings       { mode|null, audience|null, lockDays|null } one bounty (pool manager)
 * DELETE /api/attempts/{repoId}/issues/{issueNumber}                the viewer drops their attempt (a holder's lock passes on)
 * POST   /api/attempts/{repoId}/issues/{issueNumber}/release        { login } the pool manager ends someone's attempt
 * POST   /api/attempts/{repoId}/issues/{issueNumber}/pick           { login } the pool manager picks an applicant
 * POST   /api/attempts/{repoId}/flags                        { login, flagged } the pool manager marks an account as automated
 */
const RepoParam = z.object({ repoId: positiveId });
const IssueParam = RepoParam.extend({ issueNumber: positiveId });
const Done = z.object({ message: z.string() });
const SettingsAnswer = z.object({ mode: z.string(), audience: z.string(), lockDays: z.number().int() });

export const ATTEMPT_WRITE_RATE_LIMIT = { name: "attempt-write", perIp: 120, perUser: 60, windowMs: 15 * 60_000 };

const settingsAnswer = (s: { mode: string; audience: string; lockMs: number }) => ({ mode: s.mode, audience: s.audience, lockDays: Math.round(s.lockMs / DAY_MS) });

export function attemptRoutes(ctx: AppContext) {
  const limit = rateLimit(ctx, ATTEMPT_WRITE_RATE_LIMIT);
  const manage = async (user: Parameters<typeof requireManagedRepository>[1], repoId: number) => (await requireManagedRepository(ctx, user, { repoId, orRegisteredName: true, action: "manage" })).repository;
  return new Hono<AppBindings>()
    .get("/:repoId", validate("param", RepoParam), async (c) => {
      c.header("Cache-Control", "no-store");
      const user = c.get("user");
      const repository = await visibleRepository(ctx, c.req.valid("param").repoId, user);
      return c.json(await attemptsView(ctx, repository, user));
    })
    .put("/:repoId/settings", limit, validate("param", RepoParam), validate("json", SettingsBody), async (c) => {
      const { user } = requireSession(c);
      const body = c.req.valid("json");
      const settings = await chooseSettings(ctx, { user, repoId: c.req.valid("param").repoId, issueNumber: REPOSITORY_DEFAULT, choice: { mode: body.mode, audience: body.audience, lockMs: body.lockDays * DAY_MS } });
      return c.json(settingsAnswer(settings));
    })
    .post("/:repoId/flags", limit, validate("param", RepoParam), validate("json", FlagBody), async (c) => {
      const { user } = requireSession(c);
      const body = c.req.valid("json");
      return c.json({ flagged: await flagAccount(ctx, { user, repoId: c.req.valid("param").repoId, login: body.login.replace(/^@/, ""), flagged: body.flagged }) });
    })
    .put("/:repoId/issues/:issueNumber/settings", limit, validate("param", IssueParam), validate("json", BountySettingsBody), async (c) => {
      const { user } = requireSession(c);
      const { repoId, issueNumber } = c.req.valid("param");
      const body = c.req.valid("json");
      const settings = await chooseSettings(ctx, { user, repoId, issueNumber, choice: { mode: body.mode, audience: body.audience, lockMs: body.lockDays === null ? null : body.lockDays * DAY_MS } });
      return c.json(settingsAnswer(settings));
    })
    .delete("/:repoId/issues/:issueNumber", limit, validate("param", IssueParam), async (c) => {
      const { user } = requireSession(c);
      const { repoId, issueNumber } = c.req.valid("param");
      return c.json(await stopAttempt(ctx, { repository: await registeredRepository(ctx, repoId), issueNumber, user }));
    })
    .post("/:repoId/issues/:issueNumber/release", limit, validate("param", IssueParam), validate("json", LoginBody), async (c) => {
      const { user } = requireSession(c);
      const { repoId, issueNumber } = c.req.valid("param");
      return c.json(await releaseAttemptOf(ctx, { repository: await manage(user, repoId), issueNumber, login: c.req.valid("json").login.replace(/^@/, "") }));
    })
    .post("/:repoId/issues/:issueNumber/pick", limit, validate("param", IssueParam), validate("json", LoginBody), async (c) => {
      const { user } = requireSession(c);
      const { repoId, issueNumber } = c.req.valid("param");
      const picked = await pickApplicant(ctx, { repository: await manage(user, repoId), issueNumber, login: c.req.valid("json").login.replace(/^@/, "") });
      return c.json({ message: picked.message, lockedUntil: picked.lockedUntil.toISOString() });
    });
}

const body = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });

export const attemptsApi = [
  declareRoute({
    method: "get", path: "/api/attempts/{repoId}", operationId: "listAttempts", tags: ["attempts"],
    errors: ["github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "validation_failed"], security: OPTIONAL_USER,
    summary: "A repository's attempt settings and, per bounty, who holds it and until when, the queue, the applications and the competing pull requests",
    request: { params: RepoParam },
    responses: { 200: json("The attempts", AttemptsView) },
  }),
  declareRoute({
    method: "put", path: "/api/attempts/{repoId}/settings", operationId: "setRepositoryAttemptSettings", tags: ["attempts"],
    errors: ["admin_required", "github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "rate_limited", "repository_mismatch", "role_required", "validation_failed", "wallet_required"], security: SESSION_WRITE,
    summary: "The pool manager sets the repository's default: open, exclusive or application; humans only or automated agents allowed; how many days an exclusive attempt holds a bounty",
    request: { params: RepoParam, body: body(SettingsBody) },
    responses: { 200: json("The repository's default now", SettingsAnswer) },
  }),
  declareRoute({
    method: "put", path: "/api/attempts/{repoId}/issues/{issueNumber}/settings", operationId: "setBountyAttemptSettings", tags: ["attempts"],
    errors: ["admin_required", "github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "rate_limited", "repository_mismatch", "role_required", "validation_failed", "wallet_required"], security: SESSION_WRITE,
    summary: "The pool manager sets one bounty's choices (null: follow the repository's default)",
    request: { params: IssueParam, body: body(BountySettingsBody) },
    responses: { 200: json("What the bounty follows now", SettingsAnswer) },
  }),
  declareRoute({
    method: "post", path: "/api/attempts/{repoId}/flags", operationId: "flagAutomatedAccount", tags: ["attempts"],
    errors: ["admin_required", "github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "rate_limited", "repository_mismatch", "role_required", "validation_failed", "wallet_required"], security: SESSION_WRITE,
    summary: "The pool manager marks (or unmarks) a GitHub account as automated: refused on the repository's humans-only bounties",
    request: { params: RepoParam, body: body(FlagBody) },
    responses: { 200: json("The accounts marked now", z.object({ flagged: z.array(z.string()) })) },
  }),
  declareRoute({
    method: "delete", path: "/api/attempts/{repoId}/issues/{issueNumber}", operationId: "dropAttempt", tags: ["attempts"],
    errors: ["already_paid", "idempotency_conflict", "no_attempt", "not_found", "rate_limited", "validation_failed"], security: SESSION_WRITE,
    summary: "The signed-in contributor drops their attempt (`/unattempt`); a holder's lock passes to the first in the queue, who is told (404 no_attempt when there is none)",
    request: { params: IssueParam },
    responses: { 200: json("Dropped", Done) },
  }),
  declareRoute({
    method: "post", path: "/api/attempts/{repoId}/issues/{issueNumber}/release", operationId: "releaseAttempt", tags: ["attempts"],
    errors: ["admin_required", "already_paid", "github_sign_in_required", "github_unavailable", "idempotency_conflict", "invalid_repository", "no_attempt", "not_found", "rate_limited", "repository_mismatch", "role_required", "validation_failed", "wallet_required"], security: SESSION_WRITE,
    summary: "The pool manager ends someone's attempt; a holder's lock passes to the first in the queue, who is told",
    request: { params: IssueParam, body: body(LoginBody) },
    responses: { 200: json("Released", Done) },
  }),
  declareRoute({
    method: "post", path: "/api/attempts/{repoId}/issues/{issueNumber}/pick", operationId: "pickApplicant", tags: ["attempts"],
    errors: ["admin_required", "already_paid", "bounty_locked", "github_sign_in_required", "github_unavailable", "idempotency_conflict", "invalid_repository", "no_attempt", "not_found", "rate_limited", "repository_mismatch", "role_required", "validation_failed", "wallet_required"], security: SESSION_WRITE,
    summary: "The pool manager picks an applicant, who then holds the bounty for its lock time and is told (409 bounty_locked while someone holds it)",
    request: { params: IssueParam, body: body(LoginBody) },
    responses: { 200: json("Picked", z.object({ message: z.string(), lockedUntil: z.string() })) },
  }),
];
