// The one escaper of markup written by hand (emails, the fediverse's Article, search snippets, feeds
// and sitemaps, the MCP Apps' documents): Astro escapes the pages itself. Escaped for element content
// and double- or single-quoted attribute values alike.
const HTML: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const DECODED: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
// XML 1.0 has no `&#39;` habit: feeds have always written `&apos;`, which every reader knows.
const XML: Record<string, string> = { ...HTML, "'": "&apos;" };
// Characters XML 1.0 forbids cannot be escaped: C0 controls other than tab, newline and carriage
// return, and U+FFFE/U+FFFF are dropped; lone surrogates become U+FFFD.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML[c]!);
}

/** Back from `escapeHtml` (the five entities it writes, nothing else). */
export function unescapeHtml(html: string): string {
  return html.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => DECODED[e]!);
}

/** XML 1.0 text, for element content and attribute values alike. */
export function escapeXml(text: string): string {
  return text.toWellFormed().replace(NOT_XML, "").replace(/[&<>"']/g, (c) => XML[c]!);
}
