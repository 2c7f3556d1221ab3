/**
 * What tests under api/ take from scripts/ and site/ (dev secrets, anvil's
 * keys, the emulator's fixture, the mail sink, the site build, the page's
 * return-to rule): one door in test support, so nothing under api/ imports
 * scripts/ or site/, tests included (docs/where-things-go.md).
 */
export { sharedTestSecrets } from "../scripts/lib/dev-secrets.ts";
export { anvilPrivateKey } from "../scripts/lib/anvil.ts";
export { fixtureRepo } from "../scripts/github-emulator/fixture.ts";
export { startMailSink, type MailSink } from "../scripts/mail-sink/index.ts";
export { buildSite } from "../scripts/build-site.ts";
export { safeClientReturnTo } from "../site/lib/auth-flow.ts";
export { startOnrampSimulator, type OnrampSimulator } from "../scripts/onramp-simulator/index.ts";
