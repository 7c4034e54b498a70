import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";
import { SPONSORED } from "./sections.ts";

// The edition's HTML: rendered once from its markdown, sanitised as a second line of defence.

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** Tags our markdown produces; anything else (from any source) is dropped. */
const ALLOWED_TAGS = ["h1", "h2", "h3", "p", "strong", "em", "a", "ul", "ol", "li", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "code", "del"];

function alignToClass(tagName: string, attribs: Record<string, string>): { tagName: string; attribs: Record<string, string> } {
  const cls = attribs.align === "right" ? "num" : attribs.align === "center" ? "center" : undefined;
  return { tagName, attribs: cls ? { class: cls } : {} };
}

function sponsoredRel(tagName: string, attribs: Record<string, string>): { tagName: string; attribs: Record<string, string> } {
  return { tagName, attribs: { ...(attribs.href !== undefined ? { href: attribs.href } : {}), ...(attribs.title === SPONSORED ? { rel: "sponsored" } : {}) } };
}

/** The edition's HTML, rendered once from its markdown and sanitised as a second line of defence. */
export function renderEditionHtml(markdown: string): string {
  const html = marked.parse(markdown) as string;
  const clean = sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    // Markdown table alignment arrives as the obsolete `align` attribute; it becomes a class.
    allowedAttributes: { a: ["href", "rel"], th: ["class"], td: ["class"] },
    allowedClasses: { th: ["num", "center"], td: ["num", "center"] },
    // A paid placement's link is written with the title "Sponsored" (linkSuffix): it becomes rel="sponsored".
    transformTags: { th: alignToClass, td: alignToClass, a: sponsoredRel },
    allowedSchemes: ["http", "https", "mailto"],
    allowProtocolRelative: false,
    disallowedTagsMode: "escape",
  });
  return clean.replace(/<(hr|br)\s*\/>/g, "<$1>");
}
