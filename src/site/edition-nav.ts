import { escapeHtml } from "../lib/html.ts";

/** An edition a dated page links to: the day's subject names it (readers never see ISO dates). */
export interface NavEntry {
  date: string;
  subject: string;
}

/**
 * The links under a dated edition: back to the one before, forward to the one after, the town's
 * page and the twin. One function draws them for the page (src/pages/[slug]/[date].astro) and for
 * the morning's patch of the page before a new edition (src/publish/next-links.ts), so a patched page
 * is byte for byte the page a full rebuild renders.
 */
export function editionNavHtml(place: { slug: string; name: string }, date: string, nav: { previous?: NavEntry; next?: NavEntry }): string {
  const town = `/${place.slug}`;
  return [
    nav.previous ? `<a href="${town}/${nav.previous.date}" rel="prev">← ${escapeHtml(nav.previous.subject)}</a> · ` : "",
    nav.next ? `<a href="${town}/${nav.next.date}" rel="next">${escapeHtml(nav.next.subject)} →</a> · ` : "",
    `<a href="${town}">All ${escapeHtml(place.name)} editions and the latest</a> · <a href="${town}/${date}.md">Markdown</a>`,
  ].join("");
}
