import { PDFDocument, StandardFonts } from "pdf-lib";
import { Document, HeadingLevel, Packer, Paragraph } from "docx";

/**
 * The scoping agent's test documents, written in each format it reads from
 * one Markdown requirements document: the Markdown itself, plain text (the
 * marks removed), a PDF (one text line per line, as a word processor's
 * export lays it out) and a DOCX (real headings and bullet lists).
 */
export const REQUIREMENTS_MD_PATH = new URL("../api/services/scoping/fixtures/requirements.md", import.meta.url).pathname;

export async function requirementsMarkdown(): Promise<string> {
  return Bun.file(REQUIREMENTS_MD_PATH).text();
}

export function markdownToPlainText(markdown: string): string {
  return markdown.replace(/^#+\s*/gm, "").replace(/^- /gm, "• ");
}

export async function markdownToPdf(markdown: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  let page = pdf.addPage([595, 842]);
  let y = 790;
  for (const raw of markdown.split("\n")) {
    const heading = raw.match(/^(#+)\s+(.*)$/);
    const text = (heading ? heading[2]! : raw.replace(/^- /, "• ")).replace(/[^\x20-\x7e•]/g, "-");
    const size = heading ? 16 - heading[1]!.length * 1.5 : 11;
    for (const line of wrap(text, heading ? 70 : 95)) {
      if (y < 60) {
        page = pdf.addPage([595, 842]);
        y = 790;
      }
      page.drawText(line, { x: 50, y, size, font: heading ? bold : font });
      y -= size + 6;
    }
    if (raw.trim() === "") y -= 4;
  }
  return pdf.save();
}

export async function markdownToDocx(markdown: string): Promise<Uint8Array> {
  const headingLevels = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4];
  const children = markdown
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const heading = line.match(/^(#+)\s+(.*)$/);
      if (heading) return new Paragraph({ text: heading[2]!, heading: headingLevels[Math.min(3, heading[1]!.length - 1)] });
      if (line.startsWith("- ")) return new Paragraph({ text: line.slice(2), bullet: { level: 0 } });
      return new Paragraph({ text: line });
    });
  const document = new Document({ sections: [{ children }] });
  return new Uint8Array(await Packer.toBuffer(document));
}

/** A long requirements document: `sections` feature sections of the same kind, for benchmarks. */
export function longRequirementsMarkdown(sections: number): string {
  const parts = ["# Requirements: Regional Transit Companion", "", "## Overview", "", "A travel companion for the buses and trams of one region: plans journeys, sells tickets and tells riders about delays.", ""];
  const topics = ["Journey planner", "Ticket shop", "Live departures", "Disruption alerts", "Rider accounts", "Accessibility info", "Operator console", "Fare rules", "Reporting", "Offline timetables"];
  for (let i = 0; i < sections; i++) {
    const topic = `${topics[i % topics.length]}${i >= topics.length ? ` ${Math.floor(i / topics.length) + 1}` : ""}`;
    parts.push(`## ${topic}`, "", `This part covers ${topic.toLowerCase()} for riders and operators of the region, in the first release and the one after.`, "");
    for (let r = 0; r < 12; r++)
      parts.push(`- Riders ${r % 3 === 0 ? "must" : "should"} be able to use ${topic.toLowerCase()} feature ${r + 1} from the phone and the web, with results within two seconds and clear errors when the data is stale.`);
    parts.push("");
  }
  return parts.join("\n");
}

function wrap(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if ((line + " " + word).trim().length > width) {
      lines.push(line.trim());
      line = "  " + word;
    } else line += ` ${word}`;
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}
