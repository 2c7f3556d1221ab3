import { getDocumentProxy } from "unpdf";
import mammoth from "mammoth";
import { DocumentError } from "./document-error.ts";
import { checkDocx, checkPdf, MAX_PDF_PAGES } from "./document-limits.ts";

/**
 * Documents the scoping agent reads, told apart by their content (never by
 * the file name): PDF by its header, DOCX as a ZIP holding
 * word/document.xml, plain text and Markdown as UTF-8 (or UTF-16 with a BOM)
 * without binary bytes. Everything else is refused.
 */
export const DOCUMENT_FORMATS = ["text", "markdown", "pdf", "docx"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** Beyond this much extracted text a document is refused (about 150 pages). */
export const MAX_DOCUMENT_CHARS = 400_000;

export { DocumentError };

export const UNSUPPORTED_MESSAGE = "This file type is not supported. Upload a plain-text, Markdown, PDF or Word (.docx) document.";

export function detectFormat(bytes: Uint8Array): DocumentFormat | "zip" | "binary" {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  if (/^\s*%PDF-/.test(head.replace(/^\uFEFF/, "")) || head.startsWith("%PDF-")) return "pdf";
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) {
    return new TextDecoder("latin1").decode(bytes).includes("word/document.xml") ? "docx" : "zip";
  }
  const text = decodeText(bytes);
  if (text === undefined) return "binary";
  return looksLikeMarkdown(text) ? "markdown" : "text";
}

function decodeText(bytes: Uint8Array): string | undefined {
  let decoded: string;
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) decoded = new TextDecoder("utf-16le", { fatal: true }).decode(bytes.subarray(2));
    else if (bytes[0] === 0xfe && bytes[1] === 0xff) decoded = new TextDecoder("utf-16be", { fatal: true }).decode(bytes.subarray(2));
    else decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  // Control characters other than tab, newline, carriage return and form feed mark a binary file.
  const controls = decoded.match(/[\u0000-\u0008\u000e-\u001f\u007f]/g)?.length ?? 0;
  if (decoded.includes("\u0000") || controls > decoded.length / 1000) return undefined;
  return decoded.replace(/^\uFEFF/, "");
}

function looksLikeMarkdown(text: string): boolean {
  return /^#{1,6}\s+\S/m.test(text) || /^\s*[-*+]\s+\S/m.test(text) || /\*\*[^*]+\*\*|\[[^\]]+\]\([^)]+\)/.test(text);
}

/** The document's text (Markdown where the format carries structure), or a DocumentError saying why not. */
export async function extractDocument(bytes: Uint8Array): Promise<{ format: DocumentFormat; text: string }> {
  const format = detectFormat(bytes);
  let text: string;
  switch (format) {
    case "pdf":
      text = await pdfText(bytes);
      break;
    case "docx":
      text = await docxText(bytes);
      break;
    case "text":
    case "markdown":
      text = decodeText(bytes)!;
      break;
    default:
      throw new DocumentError("unsupported", UNSUPPORTED_MESSAGE);
  }
  text = text.replace(/\r\n?/g, "\n").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
  if (!text) throw new DocumentError("empty", "The document contains no text to plan from. Scanned pages (images) cannot be read.");
  if (text.length > MAX_DOCUMENT_CHARS) throw tooManyChars();
  return { format, text };
}

const tooManyChars = () =>
  new DocumentError("too-long", `The document has more than ${MAX_DOCUMENT_CHARS.toLocaleString("en-US")} characters of text. Split it and upload the parts.`);

async function pdfText(bytes: Uint8Array): Promise<string> {
  checkPdf(bytes);
  try {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    try {
      if (pdf.numPages > MAX_PDF_PAGES) throw new DocumentError("too-long", `The PDF has more than ${MAX_PDF_PAGES.toLocaleString("en-US")} pages. Split it and upload the parts.`);
      // Page by page (unpdf's extractText asks for every page at once), counting characters as they come.
      const pages: string[] = [];
      let chars = 0;
      for (let n = 1; n <= pdf.numPages; n++) {
        const content = await (await pdf.getPage(n)).getTextContent();
        const page = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
        chars += page.length;
        // Twice the limit before whitespace is collapsed below: past that no normalising brings it under.
        if (chars > MAX_DOCUMENT_CHARS * 2) throw tooManyChars();
        pages.push(page);
      }
      return pages.join("\n\n");
    } finally {
      await pdf.cleanup();
    }
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    // pdf.js names the refusal of an encrypted document (PasswordException); its message is not for deciding.
    const encrypted = (err as { name?: unknown }).name === "PasswordException";
    throw new DocumentError("unreadable", encrypted ? "The PDF is protected by a password. Upload it without the password." : "The PDF could not be read. Save it again or upload it as text.");
  }
}

async function docxText(bytes: Uint8Array): Promise<string> {
  checkDocx(bytes);
  try {
    // Markdown keeps the headings and lists the planner reads.
    const { value } = await (mammoth as unknown as { convertToMarkdown: typeof mammoth.convertToHtml }).convertToMarkdown({ buffer: Buffer.from(bytes) });
    return value.replace(/__(.+?)__/g, "$1").replace(/<a id="[^"]*"><\/a>/g, "");
  } catch {
    throw new DocumentError("unreadable", "The Word document could not be read. Save it again as .docx or upload it as text.");
  }
}
