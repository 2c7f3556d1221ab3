import { readFile } from "node:fs/promises";

/**
 * The log line of an answer that breaks the API document, written by a
 * server that checks its own answers in tests (conformance.ts,
 * answersCheckedAgainstDocument), and how a harness finds those lines in its
 * log: process-stack.ts for server processes, e2e/teardown.ts for the
 * browser journeys' stack. Node's fs, so Playwright's runner can read it too.
 */
export const BREAKS_DOCUMENT_LOG = "answer breaks the API document";

/** The problems logged into `logFile` (none when there is no such file), in either log format (json or pretty). */
export async function answersThatBrokeTheDocument(logFile: string): Promise<string[]> {
  const text = await readFile(logFile, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.includes(BREAKS_DOCUMENT_LOG))
    .map((line) => {
      // json: {"level":"error","msg":"answer breaks…","problems":"…"}; pretty: `12:00:00 ERROR answer breaks… {"problems":"…"}`.
      const fields = line.startsWith("{") ? line : line.slice(line.indexOf(BREAKS_DOCUMENT_LOG) + BREAKS_DOCUMENT_LOG.length).trim();
      try {
        return String((JSON.parse(fields) as { problems?: unknown }).problems ?? line);
      } catch {
        return line;
      }
    });
}
