import { join } from "node:path";
import { answersThatBrokeTheDocument } from "../api/openapi/broken-answers.ts";

/**
 * After the journeys: the stack checked every answer it sent the browser
 * against the API document (CHECK_API_ANSWERS in playwright.config.ts) and
 * logged any mismatch; one fails the run, naming the call and the field.
 * Read here rather than in a journey because the answers of every journey
 * count, whichever worker ran it.
 */
export default async function teardown(): Promise<void> {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) return;
  const broken = await answersThatBrokeTheDocument(join(dataDir, "server.log"));
  if (broken.length) {
    throw new Error(`The stack answered the browser against the API document (api/openapi/), ${broken.length} time(s):\n${[...new Set(broken)].slice(0, 10).join("\n")}`);
  }
}
