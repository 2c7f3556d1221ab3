import { constants, deflateRawSync } from "node:zlib";

/**
 * Hostile documents, generated (no binary fixtures): ZIP bombs shaped as
 * DOCX, XML that expands entities or nests without end, PDFs whose streams
 * inflate to a gigabyte, loop or claim two billion pages. A bomb's deflate
 * data is one compressed megabyte chunk repeated (each chunk is flushed with
 * a fresh dictionary, so repeating it stays valid deflate): a gigabyte of
 * output costs a megabyte of input and no time to make.
 */

const MB = 1024 * 1024;
const enc = (s: string) => new TextEncoder().encode(s);

/** Raw deflate data that inflates to `megabytes` MB of `byte`. */
export function deflateBomb(megabytes: number, byte = 0x61): Uint8Array {
  const chunk = deflateRawSync(Buffer.alloc(MB, byte), { finishFlush: constants.Z_FULL_FLUSH });
  const out = new Uint8Array(chunk.length * megabytes + 2);
  for (let i = 0; i < megabytes; i++) out.set(chunk, i * chunk.length);
  out.set([0x03, 0x00], chunk.length * megabytes); // final empty block
  return out;
}

/** Zlib-wrapped (PDF FlateDecode): header, deflate data, a checksum the counter never reaches. */
export function zlibBomb(megabytes: number, byte = 0x20): Uint8Array {
  const raw = deflateBomb(megabytes, byte);
  const out = new Uint8Array(raw.length + 6);
  out.set([0x78, 0x01]);
  out.set(raw, 2);
  return out;
}

export interface ZipEntry {
  name: string;
  /** Uncompressed content, or already deflated data with the size to declare. */
  data?: Uint8Array;
  deflated?: { data: Uint8Array; declaredSize: number };
}

/** A ZIP archive (local headers, central directory, end record). */
export function zip(entries: ZipEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = enc(entry.name);
    const compressed = entry.deflated ? entry.deflated.data : deflateRawSync(entry.data!);
    const size = entry.deflated ? entry.deflated.declaredSize : entry.data!.length;
    const crc = entry.data ? Bun.hash.crc32(entry.data) : 0;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, 8, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, compressed.length, true);
    local.setUint32(22, size, true);
    local.setUint16(26, name.length, true);
    const header = new DataView(new ArrayBuffer(46));
    header.setUint32(0, 0x02014b50, true);
    header.setUint16(4, 20, true);
    header.setUint16(6, 20, true);
    header.setUint16(10, 8, true);
    header.setUint32(16, crc, true);
    header.setUint32(20, compressed.length, true);
    header.setUint32(24, size, true);
    header.setUint16(28, name.length, true);
    header.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, compressed);
    central.push(new Uint8Array(header.buffer), name);
    offset += 30 + name.length + compressed.length;
  }
  const centralSize = central.reduce((n, p) => n + p.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, Math.min(entries.length, 0xffff), true);
  end.setUint16(10, Math.min(entries.length, 0xffff), true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  return Buffer.concat([...parts, ...central, new Uint8Array(end.buffer)]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const W = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;

/** A DOCX around the given word/document.xml entry (and any extra entries). */
export function docxWith(document: ZipEntry, extra: ZipEntry[] = []): Uint8Array {
  return zip([{ name: "[Content_Types].xml", data: enc(CONTENT_TYPES) }, { name: "_rels/.rels", data: enc(RELS) }, { ...document, name: "word/document.xml" }, ...extra]);
}

export const paragraphsXml = (text: string) => `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`;

export function billionLaughsXml(): string {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0"?><!DOCTYPE w:document [${entities.join("")}]><w:document ${W}><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`;
}

export function deepXml(depth: number): string {
  return `<?xml version="1.0"?><w:document ${W}><w:body>${"<w:p><w:r>".repeat(depth)}x${"</w:r></w:p>".repeat(depth)}</w:body></w:document>`;
}

/** A PDF from its objects' bodies (object n is bodies[n-1]), with a correct cross-reference table. */
export function pdf(bodies: (string | Uint8Array)[], rootRef = "1 0 R"): Uint8Array {
  const parts: Uint8Array[] = [enc("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  bodies.forEach((body, i) => {
    offsets.push(offset);
    const bytes = Buffer.concat([enc(`${i + 1} 0 obj\n`), typeof body === "string" ? enc(body) : body, enc("\nendobj\n")]);
    parts.push(bytes);
    offset += bytes.length;
  });
  const xref = [`xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`)].join("");
  parts.push(enc(`${xref}trailer\n<< /Size ${bodies.length + 1} /Root ${rootRef} >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

export function pdfStream(dict: string, data: Uint8Array): Uint8Array {
  return Buffer.concat([enc(`<< ${dict} /Length ${data.length} >>\nstream\n`), data, enc("\nendstream")]);
}

/** One page whose content stream is `content` (with the given filter entry). */
export function onePagePdf(content: Uint8Array, filter = "", pagesExtra = ""): Uint8Array {
  return pdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [3 0 R] /Count 1 ${pagesExtra} >>`,
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    pdfStream(filter, content),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ]);
}

export const textContent = (text: string) => enc(`BT /F1 12 Tf 50 790 Td (${text}) Tj ET`);

/** The hostile corpus, by name: each within the 5 MB upload cap. */
export function hostileCorpus(): Record<string, Uint8Array> {
  const oneEntry = deflateBomb(900);
  const manyChunk = deflateBomb(1);
  return {
    "DOCX zip bomb, one entry of 900 MB declared": docxWith({ name: "", deflated: { data: oneEntry, declaredSize: 900 * MB } }),
    "DOCX zip bomb, one entry of 900 MB declared as 100 KB": docxWith({ name: "", deflated: { data: oneEntry, declaredSize: 100 * 1024 } }),
    "DOCX zip bomb, 900 entries of 1 MB": docxWith(
      { name: "", data: enc(paragraphsXml("Users must be able to sign in.")) },
      Array.from({ length: 900 }, (_, i) => ({ name: `word/media/part${i}.xml`, deflated: { data: manyChunk, declaredSize: MB } })),
    ),
    "DOCX with 20,000 entries": docxWith({ name: "", data: enc(paragraphsXml("Users must be able to sign in.")) }, Array.from({ length: 20_000 }, (_, i) => ({ name: `e${i}`, data: enc("x") }))),
    "DOCX holding a nested zip bomb": docxWith({ name: "", data: enc(paragraphsXml("Users must be able to sign in.")) }, [
      { name: "word/embeddings/inner.docx", data: docxWith({ name: "", deflated: { data: deflateBomb(1000), declaredSize: 1000 * MB } }) },
    ]),
    "DOCX with billion-laughs entities": docxWith({ name: "", data: enc(billionLaughsXml()) }),
    "DOCX nested 100,000 levels deep": docxWith({ name: "", data: enc(deepXml(100_000)) }),
    "PDF FlateDecode stream bomb of 1,000 MB": onePagePdf(zlibBomb(1000), "/Filter /FlateDecode"),
    "PDF FlateDecode twice (small outside, a bomb inside)": onePagePdf(zlibWrap(deflateRawSync(zlibBomb(1000))), "/Filter [/FlateDecode /FlateDecode]"),
    "PDF object-stream loop and deep nesting": pdf([
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
      `<< /Type /Page /Parent 3 0 R /Contents 4 0 R /Extra ${"[".repeat(100_000)}${"]".repeat(100_000)} >>`,
      pdfStream("/Type /ObjStm /N 1 /First 4 /Extends 4 0 R", enc("3 0 4 0 R")),
    ]),
    "PDF claiming 2 billion pages": pdf([
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 2000000000 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
      pdfStream("", textContent("Users must be able to sign in.")),
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]),
  };
}

function zlibWrap(raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(raw.length + 6);
  out.set([0x78, 0x01]);
  out.set(raw, 2);
  return out;
}

/** The first half of a file: a truncated upload. */
export const truncated = (bytes: Uint8Array) => bytes.subarray(0, Math.floor(bytes.length / 2));
