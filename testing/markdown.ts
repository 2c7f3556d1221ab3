import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/**
 * What a comment's markdown renders as, read the way GitHub reads it (CommonMark with GFM's extensions, its
 * autolinks of bare URLs included, by the micromark/mdast parser): the links (with autolinks), the inline code
 * spans, any raw HTML, and the text that is neither, where an `@login` would notify that person (issue 36).
 */
export interface RenderedMarkdown {
  links: string[];
  codes: string[];
  html: string[];
  /** Text outside code spans, links' labels included, one string per text node. */
  text: string[];
}

export function renderedMarkdown(markdown: string): RenderedMarkdown {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const out: RenderedMarkdown = { links: [], codes: [], html: [], text: [] };
  const walk = (node: { type: string; value?: string; url?: string; children?: unknown[] }) => {
    if (node.type === "link" || node.type === "image" || node.type === "definition") out.links.push(node.url ?? "");
    if (node.type === "inlineCode" || node.type === "code") out.codes.push(node.value ?? "");
    if (node.type === "html") out.html.push(node.value ?? "");
    if (node.type === "text") out.text.push(node.value ?? "");
    for (const child of (node.children ?? []) as (typeof node)[]) walk(child);
  };
  walk(tree as unknown as Parameters<typeof walk>[0]);
  return out;
}

/** The @mentions GitHub would notify: `@login` or `@org/team` in text outside code spans. */
export function mentionsIn(markdown: string): string[] {
  return renderedMarkdown(markdown).text.flatMap((t) => [...t.matchAll(/(?:^|[^\w`])@([A-Za-z0-9](?:[A-Za-z0-9-]*)(?:\/[\w.-]+)?)/g)].map((m) => m[1]!));
}
