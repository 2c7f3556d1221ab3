import { describe, expect, test } from "bun:test";
import { pdf, pdfStream } from "../../../testing/hostile-documents.ts";
import { extractDocument } from "./extract.ts";

/** One page saying "Hello"; with `encrypted`, behind the standard security handler with a user password we do not know. */
function helloPdf(encrypted: boolean): Uint8Array {
  const text = new TextEncoder().encode("BT /F1 12 Tf 20 100 Td (Hello) Tj ET");
  const bodies = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    pdfStream("", text),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <${"ab".repeat(32)}> /U <${"cd".repeat(32)}> >>`,
  ];
  const id = "<0123456789abcdef0123456789abcdef>";
  return pdf(bodies, encrypted ? `1 0 R /Encrypt 6 0 R /ID [${id} ${id}]` : "1 0 R");
}

describe("reading a PDF", () => {
  test("a password-protected PDF is told apart by pdf.js's refusal (its type), not by the text of its message", async () => {
    expect(await extractDocument(helloPdf(false))).toEqual({ format: "pdf", text: "Hello" });
    await expect(extractDocument(helloPdf(true))).rejects.toThrow("The PDF is protected by a password. Upload it without the password.");
  });
});
