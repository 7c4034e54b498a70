import { xml, XML_DECLARATION } from "./xml.ts";

// Sitemaps protocol 0.9 (https://www.sitemaps.org/protocol.html): a sitemap index whose children
// each hold at most 50,000 URLs and 50 MB (uncompressed).

export const SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9";
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

export interface SitemapUrl {
  loc: string;
  /** ISO instant. */
  lastmod?: string;
}

/** W3C Datetime to the second ("2026-11-22T11:00:00Z"). */
export function w3cDate(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * File name of part `n` (1-based) of a child: the first part keeps the plain name, so a child that
 * grows a second part never renames the first.
 */
export function childFile(key: string, n: number): string {
  return n === 1 ? `${key}.xml` : `${key}.${n}.xml`;
}

/** Number of parts `count` URLs need. */
export function partCount(count: number, maxUrls: number): number {
  return Math.max(1, Math.ceil(count / maxUrls));
}

/** A urlset, refusing to exceed the byte limit (URLs are short, so this would be a bug, not data). */
export function renderUrlset(urls: readonly SitemapUrl[], maxBytes = SITEMAP_MAX_BYTES): string {
  const out = [XML_DECLARATION, `<urlset xmlns="${SITEMAP_NS}">`];
  for (const u of urls) out.push(`<url><loc>${xml(u.loc)}</loc>${u.lastmod ? `<lastmod>${w3cDate(u.lastmod)}</lastmod>` : ""}</url>`);
  out.push("</urlset>", "");
  const text = out.join("\n");
  if (Buffer.byteLength(text) > maxBytes) throw new Error(`sitemap of ${urls.length} URLs exceeds ${maxBytes} bytes`);
  return text;
}

/** The parts of one child, each within `maxUrls`. */
export function splitUrls<T>(urls: readonly T[], maxUrls: number): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < urls.length; i += maxUrls) parts.push(urls.slice(i, i + maxUrls));
  return parts.length ? parts : [[]];
}

export interface SitemapChild {
  loc: string;
  lastmod: string;
}

export function renderSitemapIndex(children: readonly SitemapChild[]): string {
  return [
    XML_DECLARATION,
    `<sitemapindex xmlns="${SITEMAP_NS}">`,
    ...children.map((c) => `<sitemap><loc>${xml(c.loc)}</loc><lastmod>${w3cDate(c.lastmod)}</lastmod></sitemap>`),
    "</sitemapindex>",
    "",
  ].join("\n");
}
