import { z } from "zod";
import { Timestamp } from "../../openapi/shapes.ts";
import { ATTEMPT_AUDIENCES, ATTEMPT_MODES, MAX_APPLICATION_NOTE, MAX_LOCK_DAYS, MIN_LOCK_DAYS } from "../../../lib/attempt-rules.ts";

/** Where an attempt stands (issue 39): holding until a time, queued at a place behind a holder, applied, or working. */
export const AttemptStanding = z
  .object({
    status: z.enum(["holding", "queued", "applied", "working"]),
    place: z.number().int().positive().optional().meta({ description: "Queued: 1 is next" }),
    lockedUntil: Timestamp.optional().meta({ description: "Holding: until when nobody else can take the bounty" }),
    holder: z.string().optional().meta({ description: "Queued: who holds the bounty now" }),
  })
  .openapi("AttemptStanding");

export const Mode = z.enum(ATTEMPT_MODES);
export const Audience = z.enum(ATTEMPT_AUDIENCES);
export const LockDays = z.number().int().min(MIN_LOCK_DAYS).max(MAX_LOCK_DAYS);

const Settings = z.object({ mode: Mode, audience: Audience, lockDays: z.number().int() });

export const AttemptsView = z
  .object({
    defaults: Settings.meta({ description: "The repository's default for its bounties" }),
    flagged: z.array(z.string()).meta({ description: "Accounts the pool manager marked as automated (pool managers only; empty for others)" }),
    issues: z.array(
      Settings.extend({
        issueNumber: z.number().int(),
        own: z.object({ mode: Mode.nullable(), audience: Audience.nullable(), lockDays: z.number().int().nullable() }).meta({ description: "The bounty's own choices (null: follows the repository)" }),
        holder: z.object({ login: z.string(), lockedUntil: Timestamp }).nullable(),
        queue: z.array(z.string()).meta({ description: "Logins in queue order (the first is next)" }),
        applications: z.array(z.object({ login: z.string(), appliedAt: Timestamp, note: z.string().nullable().meta({ description: "Shown to pool managers and the applicant" }) })),
        working: z.array(z.string()),
        pulls: z.array(z.object({ number: z.number().int(), author: z.string(), attempt: z.string().meta({ description: "e.g. \"holds it until …\", \"1st in the queue\", \"no attempt\"" }), url: z.string() })).meta({ description: "Open pull requests that close the issue (competing when more than one)" }),
        overtaken: z.object({ holder: z.string(), pullNumber: z.number().int() }).nullable().meta({ description: "The last lock ended by someone else's merged pull request" }),
      }),
    ),
    mine: z.array(AttemptStanding.extend({ issueNumber: z.number().int() })).meta({ description: "The viewer's live attempts on this repository" }),
  })
  .openapi("AttemptsView");

export const SettingsBody = z.object({ mode: Mode, audience: Audience, lockDays: LockDays, _csrf: z.string().optional() }).strict();
export const BountySettingsBody = z.object({ mode: Mode.nullable(), audience: Audience.nullable(), lockDays: LockDays.nullable(), _csrf: z.string().optional() }).strict();
export const LoginBody = z.object({ login: z.string().regex(/^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/, "is not a GitHub login"), _csrf: z.string().optional() }).strict();
export const FlagBody = LoginBody.extend({ flagged: z.boolean() }).strict();
export const NoteBody = z.object({ note: z.string().max(MAX_APPLICATION_NOTE).optional(), _csrf: z.string().optional() }).strict();
