// The operator's note: a small markdown subset (paragraphs, emphasis, links) that the edition carries
// under the greeting. Whatever is typed is parsed once and written back as canonical markdown in which
// every other construct is inert text, so the stored note, its preview and the edition show the same.
import { Lexer, type Token, type Tokens } from "marked";
import { safeUrl } from "../../lib/safe-url.ts";

/** Characters of markdown an operator may write for one date (about 300 words). */
export const NOTE_MAX_CHARS = 2000;
/** Paragraphs in one note: a note, not an article. */
export const NOTE_MAX_PARAGRAPHS = 8;
export const NOTE_AUTHOR_MAX = 80;

export interface NoteIssue { path: "markdown" | "authorName" | "date"; message: string }

export type NoteResult = { ok: true; markdown: string } | { ok: false; issues: NoteIssue[] };

/** Inline text made inert for markdown (no trimming: spaces between emphasis and text matter). */
function inert(s: string): string {
  return s.normalize("NFC")
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(/[\\`*_[\]<>|~&@#]/g, "\\$&")
    .replace(/:(?=\/\/)/g, "\\:")
    .replace(/\b(www)\./gi, "$1\\.");
}

/** A paragraph must not start like a list, a heading, a quote or a setext underline. */
function inertStart(line: string): string {
  return line.replace(/^\s+/, "").replace(/^(\d+)([.)])/, "$1\\$2").replace(/^[-+=>]/, "\\$&");
}

function inline(tokens: Token[] | undefined): string {
  let out = "";
  for (const t of tokens ?? []) {
    switch (t.type) {
      case "strong": { const inner = inline((t as Tokens.Strong).tokens).trim(); if (inner) out += `**${inner}**`; break; }
      case "em": { const inner = inline((t as Tokens.Em).tokens).trim(); if (inner) out += `*${inner}*`; break; }
      case "link": {
        const l = t as Tokens.Link;
        const text = inline(l.tokens).trim() || inert(l.href);
        const href = l.href.startsWith("mailto:") && /^mailto:[^\s<>()]+@[^\s<>()]+$/.test(l.href) ? l.href : safeUrl(l.href);
        // A link to anything but http(s) or mailto keeps its words and loses its destination.
        out += href ? `[${text}](${href})` : text;
        break;
      }
      case "text": {
        const x = t as Tokens.Text;
        out += x.tokens && x.tokens.length > 0 ? inline(x.tokens) : inert(x.text);
        break;
      }
      case "escape": out += inert((t as Tokens.Escape).text); break;
      case "br": out += " "; break;
      case "image": out += inert((t as Tokens.Image).text); break; // no images: the alt text stays
      case "del": out += inline((t as Tokens.Del).tokens); break;
      case "codespan": out += inert((t as Tokens.Codespan).text); break;
      default: out += inert(("raw" in t ? String(t.raw) : "")); // raw HTML and the rest: shown as typed
    }
  }
  return out.replace(/\s+/g, " ");
}

/** Block tokens flattened to paragraphs of inline markdown. */
function paragraphs(tokens: Token[]): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case "paragraph": case "heading": out.push(inline((t as Tokens.Paragraph).tokens)); break;
      case "text": out.push(inline((t as Tokens.Text).tokens ?? [{ type: "text", raw: t.raw, text: (t as Tokens.Text).text } as Tokens.Text])); break;
      case "blockquote": out.push(...paragraphs((t as Tokens.Blockquote).tokens)); break;
      case "list": for (const item of (t as Tokens.List).items) out.push(...paragraphs(item.tokens)); break;
      case "code": out.push(inert((t as Tokens.Code).text)); break;
      case "html": out.push(inert((t as Tokens.HTML).text)); break;
      case "table": {
        const tb = t as Tokens.Table;
        for (const row of [tb.header, ...tb.rows]) out.push(row.map((c) => inline(c.tokens)).join(" "));
        break;
      }
      default: break; // space, hr, def
    }
  }
  return out.map((p) => inertStart(p.trim())).filter((p) => p.length > 0);
}

/**
 * The note as the edition will carry it: paragraphs, *emphasis*, **strong** and http(s)/mailto links
 * kept; headings, lists, quotes, code, images, tables and HTML become plain paragraphs of their words.
 */
export function parseNote(markdown: string): NoteResult {
  const raw = markdown.replace(/\r\n?/g, "\n");
  if (raw.trim() === "") return { ok: false, issues: [{ path: "markdown", message: "The note is empty; write at least a sentence, or delete the note" }] };
  if (raw.length > NOTE_MAX_CHARS) return { ok: false, issues: [{ path: "markdown", message: `The note is ${raw.length} characters; at most ${NOTE_MAX_CHARS} fit (about 300 words)` }] };
  const paras = paragraphs(new Lexer({ gfm: true }).lex(raw));
  if (paras.length === 0) return { ok: false, issues: [{ path: "markdown", message: "The note has no words a reader would see" }] };
  if (paras.length > NOTE_MAX_PARAGRAPHS) return { ok: false, issues: [{ path: "markdown", message: `The note has ${paras.length} paragraphs; at most ${NOTE_MAX_PARAGRAPHS}` }] };
  return { ok: true, markdown: paras.join("\n\n") };
}

/** The operator's name as signed under the note: one line of plain text. */
export function parseAuthorName(name: string): { ok: true; name: string } | { ok: false; issues: NoteIssue[] } {
  const flat = name.normalize("NFC").replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim();
  if (!flat) return { ok: false, issues: [{ path: "authorName", message: "Sign the note: the operator's name is shown under it" }] };
  if (flat.length > NOTE_AUTHOR_MAX) return { ok: false, issues: [{ path: "authorName", message: `The name is ${flat.length} characters; at most ${NOTE_AUTHOR_MAX}` }] };
  return { ok: true, name: flat };
}

/** The note section of an edition: the canonical note and its signature, as markdown. */
export function noteSection(note: { markdown: string; authorName: string }): string[] {
  return [note.markdown, "", `— ${inertStart(inert(note.authorName))}, for citydaily`, ""];
}
