import { constants, inflateRawSync } from "node:zlib";
import { DocumentError } from "./document-error.ts";

/**
 * Limits applied while a document is inflated, before mammoth or pdf.js see
 * it. Neither library bounds what it inflates (FIELD-NOTES: a 900 KB DOCX
 * took a process to 3.9 GB, a 1 MB PDF to 2.27 GB), so the bytes they would
 * inflate are inflated here first with a counter that stops at the limit
 * (zlib's maxOutputLength: the inflater itself refuses to produce more).
 * The extraction process's memory and time ceilings (extractor.ts) are the
 * backstop for what these checks cannot see (pdf.js object loops, deep
 * nesting inside a content stream).
 */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
/** One ZIP entry or one PDF stream. */
export const MAX_PART_BYTES = 32 * 1024 * 1024;
/** Uncompressed / compressed, for entries over 1 MB (Word's XML is 10-30x). */
export const MAX_COMPRESSION_RATIO = 200;
export const MAX_ZIP_ENTRIES = 1000;
export const MAX_XML_DEPTH = 256;
export const MAX_PDF_PAGES = 2000;
export const MAX_PDF_OBJECTS = 200_000;

export const TOO_LARGE_MESSAGE = `This document expands to more than ${MAX_INFLATED_BYTES / 1024 / 1024} MB of text; upload a smaller or simpler file.`;

const tooLarge = () => new DocumentError("too-long", TOO_LARGE_MESSAGE);
const unreadableDocx = () => new DocumentError("unreadable", "The Word document could not be read. Save it again as .docx or upload it as text.");

/** Inflates at most `limit` bytes; more is a bomb (or a lie about the size). */
function inflateBounded(data: Uint8Array, limit: number): Buffer {
  try {
    return inflateRawSync(data, { maxOutputLength: Math.max(1, limit), finishFlush: constants.Z_SYNC_FLUSH });
  } catch (err) {
    if ((err as Error).name === "RangeError" || (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw err;
  }
}

/**
 * Reads the ZIP's central directory first (entry count, declared sizes,
 * compression ratio), then inflates every entry with a counter capped at
 * its declared size, so what mammoth inflates afterwards is known to be
 * bounded. ZIP64 is refused (no DOCX under 5 MB needs it). XML parts may not
 * declare a DTD (entity expansion, "billion laughs") or nest deeper than
 * MAX_XML_DEPTH.
 */
export function checkDocx(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw unreadableDocx();
  const entries = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (entries === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) throw unreadableDocx();
  if (entries > MAX_ZIP_ENTRIES)
    throw new DocumentError("too-long", `The Word document holds more than ${MAX_ZIP_ENTRIES.toLocaleString("en-US")} parts. Save it again or upload it as text.`);
  if (cdOffset + cdSize > bytes.length) throw unreadableDocx();
  let at = cdOffset;
  let total = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw unreadableDocx();
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const declared = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localOffset = view.getUint32(at + 42, true);
    const name = new TextDecoder("latin1").decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    if (compressed === 0xffffffff || declared === 0xffffffff || localOffset === 0xffffffff) throw unreadableDocx();
    if (declared > MAX_PART_BYTES || total + declared > MAX_INFLATED_BYTES) throw tooLarge();
    if (declared > 1024 * 1024 && declared > compressed * MAX_COMPRESSION_RATIO) throw tooLarge();
    if (localOffset + 30 > bytes.length || view.getUint32(localOffset, true) !== 0x04034b50) throw unreadableDocx();
    const start = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
    const data = bytes.subarray(start, start + compressed);
    if (data.length < compressed) throw unreadableDocx();
    let content: Uint8Array;
    if (method === 0) content = data;
    else if (method === 8) {
      try {
        content = inflateBounded(data, declared);
      } catch (err) {
        if (err instanceof DocumentError) throw err;
        throw unreadableDocx();
      }
    } else throw unreadableDocx();
    if (content.length > declared) throw tooLarge();
    total += content.length;
    if (/\.(xml|rels)$/i.test(name)) checkXml(content);
  }
}

/** No DTD (so no entities to expand) and bounded nesting. */
export function checkXml(xml: Uint8Array): void {
  let depth = 0;
  const n = xml.length;
  for (let i = 0; i < n; i++) {
    if (xml[i] !== 0x3c /* < */) continue;
    const next = xml[i + 1];
    if (next === 0x21 /* ! */) {
      // Comments and CDATA are fine; a DOCTYPE or ENTITY declaration is not.
      const head = String.fromCharCode(...xml.subarray(i + 2, i + 9)).toUpperCase();
      if (head.startsWith("DOCTYPE") || head.startsWith("ENTITY")) throw new DocumentError("unreadable", "The Word document declares a DTD, which Word never writes. Save it again as .docx or upload it as text.");
      continue;
    }
    if (next === 0x3f /* ? */) continue;
    if (next === 0x2f /* / */) {
      depth--;
      continue;
    }
    let j = i + 1;
    while (j < n && xml[j] !== 0x3e /* > */) j++;
    if (xml[j - 1] === 0x2f) continue; // <empty/>
    if (++depth > MAX_XML_DEPTH) throw new DocumentError("unreadable", `The Word document nests its content more than ${MAX_XML_DEPTH} levels deep. Save it again or upload it as text.`);
    i = j;
  }
}

const latin1 = new TextDecoder("latin1");

/**
 * Pre-scans a PDF's raw bytes: every stream whose dictionary names
 * FlateDecode is inflated (once per FlateDecode in its filter chain) with a
 * counter: at most MAX_PART_BYTES per stream and MAX_INFLATED_BYTES in all.
 * Image streams are left out: pdf.js does not decode them to read text.
 * A file with more than MAX_PDF_OBJECTS objects is refused before parsing.
 */
export function checkPdf(bytes: Uint8Array): void {
  const text = latin1.decode(bytes);
  let objects = 0;
  for (const _ of text.matchAll(/\d+\s+\d+\s+obj\b/g)) if (++objects > MAX_PDF_OBJECTS) throw new DocumentError("unreadable", `The PDF has more than ${MAX_PDF_OBJECTS.toLocaleString("en-US")} objects. Save it again or upload it as text.`);
  for (const [, count] of text.matchAll(/\/Count\s+(\d+)/g))
    if (Number(count) > MAX_PDF_PAGES) throw new DocumentError("too-long", `The PDF has more than ${MAX_PDF_PAGES.toLocaleString("en-US")} pages. Split it and upload the parts.`);
  let total = 0;
  const streamKeyword = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streamKeyword.exec(text))) {
    if (match.index > 0 && /[a-z]/i.test(text[match.index - 1]!)) continue; // endstream
    const dictStart = Math.max(text.lastIndexOf("obj", match.index), match.index - 4096, 0);
    const dict = text.slice(dictStart, match.index);
    const flates = dict.match(/\/FlateDecode\b|\/Fl\b/g)?.length ?? 0;
    const start = match.index + match[0].length;
    const end = text.indexOf("endstream", start);
    const stop = end < 0 ? text.length : end;
    streamKeyword.lastIndex = stop;
    if (flates === 0 || /\/Subtype\s*\/Image\b/.test(dict)) continue;
    let data: Uint8Array = bytes.subarray(start, stop);
    for (let layer = 0; layer < flates; layer++) {
      try {
        // Like pdf.js: the zlib header is skipped and the checksum not required.
        const zlibHeader = data.length > 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
        data = inflateBounded(zlibHeader ? data.subarray(2) : data, Math.min(MAX_PART_BYTES, MAX_INFLATED_BYTES - total));
      } catch (err) {
        if (err instanceof DocumentError) throw err;
        break; // damaged stream: pdf.js decides what it makes of it
      }
    }
    if (flates > 0) total += data.length;
    if (total > MAX_INFLATED_BYTES) throw tooLarge();
  }
}
