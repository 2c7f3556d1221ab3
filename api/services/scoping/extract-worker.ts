/// <reference lib="webworker" />
import { DocumentError, extractDocument } from "./extract.ts";

/** Runs document extraction off the server's event loop (see extractor.ts). */
declare const self: Worker;

self.onmessage = async (event: MessageEvent<{ id: number; bytes: Uint8Array }>) => {
  const { id, bytes } = event.data;
  try {
    const { format, text } = await extractDocument(bytes);
    self.postMessage({ id, ok: true, format, text });
  } catch (err) {
    const kind = err instanceof DocumentError ? err.kind : "unreadable";
    const message = err instanceof DocumentError ? err.message : "The document could not be read.";
    self.postMessage({ id, ok: false, kind, message });
  }
};
