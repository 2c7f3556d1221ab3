/** What the route modules are built from. */
import type { Actions } from "./actions.ts";
import type { Webhooks } from "./webhooks.ts";
import type { World } from "./world.ts";

export interface EmulatorContext {
  world: World;
  actions: Actions;
  webhooks: Webhooks;
  /** The app's public key, imported once for JWT verification. */
  appKey: Promise<CryptoKey>;
}
