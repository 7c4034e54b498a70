import { escapeMarkdown } from "../core/edition/escape.ts";

// Building blocks of the markdown twins. Data text (place names, subjects) only ever enters a twin
// through `md`, so it renders as the characters stored and cannot open a link, heading, table cell
// or HTML element.

/** Data text as inert inline markdown (one line, every syntax character escaped). */
export function md(text: string): string {
  return escapeMarkdown(text, 1000);
}

/** A link destination we built ourselves from the base URL and slugs; brackets and spaces are encoded anyway. */
export function mdUrl(url: string): string {
  return url.replace(/[\s()<>]/g, (c) => encodeURIComponent(c));
}

/**
 * `[text](url)` with the text escaped. Parentheses are escaped too inside link text: CommonMark does
 * not need it, but some parsers (marked) otherwise read `\](` in the text as the end of the link.
 */
export function mdLink(text: string, url: string): string {
  return `[${md(text).replace(/[()]/g, "\\$&")}](${mdUrl(url)})`;
}

/** A GFM table; cells must already be markdown (use `md` for data). */
export function mdTable(headers: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * YAML front matter. Every value is written as a JSON string or number, which YAML 1.2 reads as the
 * same scalar, so no subject can end the block or inject a key.
 */
export function frontMatter(fields: Record<string, string | number | undefined>): string {
  const lines = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${JSON.stringify(typeof v === "string" ? v.replace(/[\u2028\u2029]/g, " ") : v)}`);
  return ["---", ...lines, "---", ""].join("\n");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^( {0,3})(#{1,6})(?=[ \t]|$)/;

/**
 * Shifts every ATX heading `levels` deeper (capped at h6), outside fenced code, so an embedded
 * document (a stored edition) nests under the headings of the page that includes it.
 */
export function demoteHeadings(markdown: string, levels: number): string {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const f = FENCE.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = undefined;
      return line;
    }
    if (fence !== undefined) return line;
    return line.replace(ATX, (_, indent: string, hashes: string) => indent + "#".repeat(Math.min(6, hashes.length + levels)));
  }).join("\n");
}

/** Whether the document's first non-blank line is an ATX h1. */
export function startsWithH1(markdown: string): boolean {
  const first = markdown.split("\n").find((l) => l.trim() !== "");
  return first !== undefined && /^ {0,3}#(?:[ \t]|$)/.test(first);
}

const int = new Intl.NumberFormat("en-US");
const longDate = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", weekday: "long", year: "numeric", month: "long", day: "numeric" });

export function formatInt(n: number): string {
  return int.format(n);
}

/** "Sunday, November 22, 2026" for a YYYY-MM-DD date. */
export function formatDate(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? date : longDate.format(d);
}
