import { marked, type Token, type Tokens } from "marked";
import { escapeHtml } from "../../lib/html.ts";

/** Marks that `snippet()` puts around matched terms; stripped from indexed text so they cannot be forged. */
export const MARK_START = "\u0002";
export const MARK_END = "\u0003";
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function walk(tokens: Token[] | undefined, out: string[]): void {
  for (const t of tokens ?? []) {
    switch (t.type) {
      case "list":
        for (const item of (t as Tokens.List).items) { walk(item.tokens, out); out.push("\n"); }
        break;
      case "table": {
        const table = t as Tokens.Table;
        for (const row of [table.header, ...table.rows]) {
          for (const cell of row) { walk(cell.tokens, out); out.push(" "); }
          out.push("\n");
        }
        break;
      }
      case "html":
        out.push((t as Tokens.HTML).text.replace(/<[^>]*>/g, " "));
        break;
      case "image":
        out.push((t as Tokens.Image).text);
        break;
      case "space": case "hr": case "br":
        out.push("\n");
        break;
      default:
        if ("tokens" in t && Array.isArray(t.tokens)) walk(t.tokens, out);
        else if ("text" in t && typeof t.text === "string") out.push(t.text);
    }
    if (t.type === "heading" || t.type === "paragraph" || t.type === "blockquote" || t.type === "code") out.push("\n");
  }
}

/**
 * The words of an edition as a reader sees them: markdown syntax, link targets and HTML tags
 * dropped, so the index holds no URL fragments and snippets show no `**` or `](`.
 */
export function plainTextOf(markdown: string): string {
  const out: string[] = [];
  walk(marked.lexer(markdown), out);
  return decodeEntities(out.join(""))
    .replace(CONTROL, " ")
    .replace(/[ \t]+/g, " ")
    .replace(/ ?\n[\s]*/g, "\n")
    .trim();
}

/** Plain text for the index: control characters (including the snippet marks) become spaces. */
export function indexableText(text: string): string {
  return text.replace(CONTROL, " ");
}

/**
 * A snippet from FTS5 (matched terms between MARK_START and MARK_END) as HTML: everything escaped,
 * then the marks become `<mark>` elements, balanced even if a mark was cut off.
 */
export function snippetToHtml(snippet: string): string {
  let html = "";
  let open = false;
  for (const part of snippet.split(/([\u0002\u0003])/)) {
    if (part === MARK_START) { if (!open) { html += "<mark>"; open = true; } }
    else if (part === MARK_END) { if (open) { html += "</mark>"; open = false; } }
    else html += escapeHtml(part);
  }
  return open ? html + "</mark>" : html;
}
