// Writing user text and dates into an edition's markdown: user text is data, never markup.

export const TITLE_MAX = 120;
export const DESCRIPTION_MAX = 400;

/** One line of plain text: control characters and line breaks become spaces, length is capped. */
export function plainText(s: string, max = DESCRIPTION_MAX): string {
  const flat = s.normalize("NFC").replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** Plain ASCII that no rule of `escapeMarkdown` changes: a letter first, no space last, none of its characters. */
const INERT = /^[A-Za-z][A-Za-z0-9 ,.;:'"?!%$()/+=#-]*(?<! )$/;

/**
 * Text made inert for markdown: every character CommonMark could read as syntax (emphasis, links,
 * images, raw HTML, entities, tables, code) is backslash-escaped, and GFM's bare-URL and email
 * autolinks are broken up, so user text renders as exactly the characters typed and links nowhere.
 */
export function escapeMarkdown(s: string, max = DESCRIPTION_MAX): string {
  // Most text (a city twin lists sixty subjects) has nothing to escape: the same answer without the
  // seven regular expressions below, which were a tenth of a morning's markdown.
  if (s.length <= max && INERT.test(s) && !s.includes("  ") && !s.includes("://") && !/www\./i.test(s)) return s;
  return plainText(s, max)
    // Parentheses and "!" only act after "]", so escaping the brackets disarms links and images.
    .replace(/[\\`*_[\]<>|~&@]/g, "\\$&")
    .replace(/:(?=\/\/)/g, "\\:")            // scheme://
    .replace(/\b(www)\./gi, "$1\\.")          // www.example.com
    .replace(/^(\d+)([.)])/, "$1\\$2")        // "1." or "1)" would start a list
    .replace(/^[-+=#]/, "\\$&");              // a list, a setext underline or a heading
}

/** Subject lines are plain text (an email header): user text keeps only harmless characters. */
export function subjectText(s: string, max: number): string {
  return plainText(s.replace(/[<>[\]{}`*_|\\]/g, ""), max);
}

// ---------- dates ----------

// Formatters are costly to build and reused for every edition of a run.
const fmt = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat("en-US", { timeZone: "UTC", ...o });
const LONG = fmt({ weekday: "long", month: "long", day: "numeric", year: "numeric" }); // Sunday, November 22, 2026
const SHORT = fmt({ weekday: "short", month: "short", day: "numeric" });               // Sun, Nov 22
const MONTH_DAY = fmt({ month: "short", day: "numeric" });                             // Nov 22

export function dateParts(date: string) {
  const d = new Date(`${date}T12:00:00Z`);
  return { long: LONG.format(d), short: SHORT.format(d), monthDay: MONTH_DAY.format(d) };
}

export function temperature(n: number): string {
  return `${Math.round(n)}°F`;
}

export function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
