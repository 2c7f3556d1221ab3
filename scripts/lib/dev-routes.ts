import type { Hono } from "hono";
import { z } from "zod";
import type { AppBindings } from "../../api/context.ts";
import { requireSession } from "../../api/middleware/session.ts";
import { validate } from "../../api/validate.ts";

/** The longest step the chain's clock may take at once. */
export const MAX_CLOCK_STEP_SECONDS = 400 * 86_400;

export interface DevHooks {
  /** The local mail sink's pages (GET only): /dev/mail. */
  mail?: Hono;
  /** Runs the daily digest as of tomorrow; how many users it handled. */
  digestAsOfTomorrow(): Promise<number>;
  /** Moves the chain's clock on by `seconds`, then runs the hourly refund pass as of it; how many refunds it sent. */
  refundBoostsAfter(seconds: number): Promise<number>;
  /** Runs the attempts' lock pass as of `seconds` from now; how many locks it released. */
  expireLocksAfter(seconds: number): Promise<number>;
  /** Sets a user's KYC state at the on-ramp simulator's sell side (by GitHub login); their customer id, or undefined. */
  setKyc?(login: string, status: KycStatus): Promise<string | undefined>;
}

const KYC_STATUSES = ["approved", "required", "pending", "rejected"] as const;
type KycStatus = (typeof KYC_STATUSES)[number];

const DigestBody = z.object({ _csrf: z.string().optional() }).strict();
const RefundBody = z
  .object({ seconds: z.number().int().min(0).max(MAX_CLOCK_STEP_SECONDS).meta({ description: "How far the chain's clock moves on first" }), _csrf: z.string().optional() })
  .strict();

const KycBody = z.object({ login: z.string().min(1).max(39), status: z.enum(KYC_STATUSES), _csrf: z.string().optional() }).strict();

/**
 * The development server's own routes (the embedded default only; never in production): a journey cannot wait a
 * day, so these run a day's passes now. Each write needs a session, the anti-forgery token and a JSON body, checked
 * for all of /dev/* by createApp (api/middleware/dev-routes.ts), and the session again here (a route mounted some
 * other way still refuses an anonymous caller).
 *
 *   GET  /dev/mail/...                    the local mail sink's pages
 *   POST /dev/digest          {}          the daily digest, as of tomorrow        -> { handled }
 *   POST /dev/refund-boosts   { seconds } the chain's clock on, then refunds due  -> { sent }
 *   POST /dev/attempt-locks   { seconds } the lock pass as of that much later     -> { expired }
 *   POST /dev/onramp-kyc      { login, status } a user's KYC state at the simulator's sell side -> { customerId, status }
 */
export function devRoutes(hooks: DevHooks): (app: Hono<AppBindings>) => void {
  return (app) => {
    if (hooks.mail) app.route("/dev/mail", hooks.mail);
    app.post("/dev/digest", validate("json", DigestBody), async (c) => {
      requireSession(c);
      return c.json({ handled: await hooks.digestAsOfTomorrow() });
    });
    app.post("/dev/refund-boosts", validate("json", RefundBody), async (c) => {
      requireSession(c);
      return c.json({ sent: await hooks.refundBoostsAfter(c.req.valid("json").seconds) });
    });
    app.post("/dev/attempt-locks", validate("json", RefundBody), async (c) => {
      requireSession(c);
      return c.json({ expired: await hooks.expireLocksAfter(c.req.valid("json").seconds) });
    });
    const setKyc = hooks.setKyc;
    if (setKyc) {
      app.post("/dev/onramp-kyc", validate("json", KycBody), async (c) => {
        requireSession(c);
        const { login, status } = c.req.valid("json");
        const customerId = await setKyc(login, status);
        if (!customerId) return c.json({ error: "no such user" }, 404);
        return c.json({ customerId, status });
      });
    }
  };
}
