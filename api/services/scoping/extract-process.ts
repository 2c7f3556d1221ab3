import { DocumentError, extractDocument } from "./extract.ts";
import { planDocument } from "./builtin-planner.ts";

/**
 * The extraction process's entry (spawned by extractor.ts with IPC): reads
 * one document at a time and answers with its text or why not, or makes the
 * built-in planner's plan of a text (CPU work kept off the server's event
 * loop, like reading). It holds no secret and no database connection; the
 * server kills it when it grows past its memory ceiling or takes too long,
 * and starts another.
 */
process.on("message", async (message: { id: number; bytes: Uint8Array } | { id: number; plan: { fileName: string; text: string } }) => {
  const { id } = message;
  if ("plan" in message) {
    try {
      process.send!({ id, ok: true, plan: planDocument(message.plan) });
    } catch (err) {
      process.send!({ id, ok: false, kind: "unreadable", message: (err as Error).message });
    }
    return;
  }
  const { bytes } = message;
  try {
    const { format, text } = await extractDocument(bytes);
    process.send!({ id, ok: true, format, text });
  } catch (err) {
    const kind = err instanceof DocumentError ? err.kind : "unreadable";
    const text = err instanceof DocumentError ? err.message : "The document could not be read.";
    process.send!({ id, ok: false, kind, message: text });
  }
});
process.send!({ ready: true });
