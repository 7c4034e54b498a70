import path from "node:path";

/**
 * The HTTP headers of a published file, by its path relative to the site: one set of rules for the
 * server (api/routes/site/site-files.ts) and for the object-storage target (src/integrations/publish/s3.ts),
 * so the CDN and the server answer a file with the same Content-Type and Cache-Control.
 */

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
};

const EDITION = /^[a-z0-9-]+\/\d{4}-\d{2}-\d{2}\.(html|md)$/;
export const SHORT_CACHE = "public, max-age=300, s-maxage=600";
/** An edition never changes once published; a redesign re-renders it, so browsers revalidate daily (a cheap 304). */
export const EDITION_CACHE = "public, max-age=86400, s-maxage=31536000";
export const HASHED_ASSET_CACHE = "public, max-age=31536000, immutable";

export function contentTypeOf(file: string): string | undefined {
  if (path.basename(file) === "feed.xml") return "application/rss+xml; charset=utf-8";
  return TYPES[path.extname(file)];
}

/** Hashed client assets and dated editions are written once; everything else is an index that changes. */
export function isImmutable(rel: string): boolean {
  return rel.startsWith("_astro/") || EDITION.test(rel);
}

export function cacheControlOf(rel: string): string {
  if (rel.startsWith("_astro/")) return HASHED_ASSET_CACHE;
  if (EDITION.test(rel)) return EDITION_CACHE;
  return SHORT_CACHE;
}
