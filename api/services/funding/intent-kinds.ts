import type { z } from "zod";
import type { AppContext } from "../../context.ts";
import type { User } from "../../../db/schema/index.ts";

/**
 * What each kind of money intent (intents.ts) means: the shape of its payload, the sentence the
 * confirmation page shows, and what confirming does. The confirm route dispatches on the intent's kind
 * through `intentKinds`; a new kind adds one entry (built in its own module, e.g. boost-intent.ts, tip-intent.ts).
 */
export interface IntentKind<P = unknown> {
  payload: z.ZodType<P>;
  /** What the person confirms, in words: a title and a few lines (amount with fee, where it goes, expiry). */
  describe(payload: P): { title: string; lines: string[] };
  /**
   * Carries it out as `user` (the signed-in author of the comment), under the idempotency key given.
   * Returns what to store on the intent (e.g. "boost:12") and the answer's message and link.
   */
  confirm(ctx: AppContext, input: { user: User; payload: P; idempotencyKey: string }): Promise<{ result: string; message: string; link: string | null }>;
}

const registry = new Map<string, IntentKind<never>>();

/** Registers a kind once at module load (boost-intent.ts registers "boost"). */
export function defineIntentKind<P>(name: string, kind: IntentKind<P>): IntentKind<P> {
  registry.set(name, kind as unknown as IntentKind<never>);
  return kind;
}

export function intentKind(name: string): IntentKind<unknown> | undefined {
  return registry.get(name) as IntentKind<unknown> | undefined;
}
