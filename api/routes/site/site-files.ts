import fs from "node:fs/promises";
import path from "node:path";
import type { H3, H3Event } from "h3";
import { LRUCache } from "lru-cache";
import { currentGeneration, siteDirs, type SiteDirs } from "../../../src/publish/site-dir.ts";
import { cacheControlOf, contentTypeOf, SHORT_CACHE } from "../../../src/publish/file-headers.ts";
import { loadRenderer, rendererClientDir } from "../../../src/publish/site-renderer.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { createSiteData } from "../../../src/site/views.ts";
import { isPlace, placeTwin } from "../../../src/services/places/place-answer.ts";
import { bodilessResponse, cachedResponse } from "../../http/caching.ts";
import { etagOf } from "../../../src/publish/precompressed.ts";
import { keepAtEdge } from "../../http/edge-cache.ts";
import { renderServerPage } from "../../http/html-page.ts";
import { markdownHeaders, prefersMarkdown } from "../../http/negotiation.ts";

/**
 * Serves the published site (DATA_DIR/site): the live generation first, then the archive of dated
 * editions. Markdown twins answer at `{page}.md` or on `Accept: text/markdown`.
 */

const SHORT = SHORT_CACHE;
const NOT_FOUND_CACHE = "public, max-age=60";
// The Content-Type and Cache-Control rules are shared with the object-storage publish target.

/** The relative file for a URL path, or undefined for anything that could leave the site directory. */
function relativeFile(pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded === "/") return "index.html";
  const segments = decoded.slice(1).split("/");
  // No file name is longer than NAME_MAX (255 bytes), so a longer segment is not found rather than an ENAMETOOLONG.
  if (segments.some((s) => s === "" || s.startsWith(".") || /[\\\0]/.test(s) || Buffer.byteLength(s) > 255)) return undefined;
  const rel = segments.join("/");
  if (path.extname(rel) === ".html") return undefined; // pages answer at their clean path only
  return path.extname(rel) ? rel : `${rel}.html`;
}

interface SiteFile {
  body: string;
  etag: string;
}

/** What a HEAD or a conditional request needs of a file: no bytes. */
interface SiteFileMeta {
  etag: string;
  size: number;
}

// Files by version (device, inode, size, mtime): a published file is only ever replaced by renaming
// a new one over it, so a version's bytes and ETag never change. Small files are kept in memory (a
// request then costs one stat); a larger one keeps only its ETag (a 4.6 MB file took ~10 ms to hash).
const KEEP_BYTES_UNDER = 256 * 1024;

const versionOf = (st: { dev: number; ino: number; size: number; mtimeMs: number }) => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;

/** The published site's files as the server reads them, with the caches of one app. */
export interface SiteFiles {
  dirs: SiteDirs;
  /** Reads `rel` from the live generation, then the archive. */
  read(rel: string): Promise<SiteFile | undefined>;
  /** The validator and size of `rel` when known without reading it (one stat), else undefined. */
  meta(rel: string): Promise<SiteFileMeta | undefined>;
}

export function createSiteFiles(dirs: SiteDirs): SiteFiles {
  const files = new LRUCache<string, SiteFile>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (f) => Math.max(1, f.body.length) });
  const etags = new LRUCache<string, string>({ max: 20_000 });
  /** Where `rel` may be, in the order it is looked for (none if it would leave the site directory). */
  function candidates(rel: string): string[] {
    const live = currentGeneration(dirs);
    const roots = live ? [live, dirs.archive] : [dirs.archive];
    // The pages the server renders on request name the renderer's current stylesheet and scripts,
    // which a publish copies here; until the first publish they are read from the renderer's build.
    const client = rel.startsWith("_astro/") ? rendererClientDir() : undefined;
    if (client) roots.push(client);
    const where = roots.map((dir) => ({ dir, file: path.join(dir, rel) }));
    return where.every(({ dir, file }) => file.startsWith(dir + path.sep)) ? where.map((w) => w.file) : [];
  }
  async function read(rel: string): Promise<SiteFile | undefined> {
    for (const file of candidates(rel)) {
      let handle;
      try {
        const kept = files.get(versionOf(await fs.stat(file)));
        if (kept) return kept;
        handle = await fs.open(file, "r");
        const st = await handle.stat();
        if (!st.isFile()) continue;
        const body = await handle.readFile("utf8");
        const version = versionOf(st);
        let etag = etags.get(version);
        if (etag === undefined) etags.set(version, (etag = etagOf(body)));
        if (st.size < KEEP_BYTES_UNDER) files.set(version, { body, etag });
        return { body, etag };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EISDIR" && code !== "ENAMETOOLONG") throw e;
      } finally {
        await handle?.close();
      }
    }
    return undefined;
  }
  async function meta(rel: string): Promise<SiteFileMeta | undefined> {
    for (const file of candidates(rel)) {
      const st = await fs.stat(file).catch(() => undefined);
      if (!st) continue;
      const etag = st.isFile() ? etags.get(versionOf(st)) : undefined;
      return etag === undefined ? undefined : { etag, size: st.size };
    }
    return undefined;
  }
  return { dirs, read, meta };
}

/** The site's 404 page: as published, or (before the first publish) drawn by the renderer (src/pages/404.astro). */
async function notFound(event: H3Event, site: SiteFiles, ctx: AppContext): Promise<Response> {
  const page = (await site.read("404.html"))?.body ?? (await renderServerPage(ctx, "/404", {}));
  return new Response(event.req.method === "HEAD" ? null : page, {
    status: 404,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": NOT_FOUND_CACHE },
  });
}

/**
 * Any of the ~32,000 U.S. places can be subscribed to, and the place finder links to all of them, but
 * only cities with editions are published. The others get their page rendered on demand by the same
 * Astro renderer: it invites the first subscriber, and the first edition's publish replaces it.
 */
async function placePage(ctx: AppContext, event: H3Event, rel: string, as: "html" | "markdown"): Promise<Response | undefined> {
  const slug = rel.replace(/\.(html|md)$/, "");
  if (slug.includes("/") || !isPlace(ctx, slug)) return undefined;
  const now = ctx.config.now().getTime();
  // Rendered from the database at this instant: good for the edge until the clock's next second.
  keepAtEdge(event, Math.floor(now / 1000) * 1000 + 1000);
  const twin = `</${slug}.md>; rel="alternate"; type="text/markdown"`;
  if (as === "markdown") {
    // Its markdown twin: the same facts, and the clock, sun and holidays of today there.
    const body = placeTwin(ctx, slug);
    if (body === undefined) return undefined;
    return cachedResponse(event, body, "text/markdown; charset=utf-8", SHORT, { ...markdownHeaders(body), Vary: "Accept", Link: twin });
  }
  const html = await (await loadRenderer()).render(`/${slug}`, createSiteData(ctx.db, ctx.config.baseUrl, { now: () => new Date(now) }));
  if (html === undefined) return undefined;
  return cachedResponse(event, html, "text/html; charset=utf-8", SHORT, { Vary: "Accept", Link: twin });
}

export async function serveSite(event: H3Event, site: SiteFiles, ctx: AppContext): Promise<Response> {
  const { pathname, search } = event.url;
  if (pathname.length > 1 && pathname.endsWith("/")) {
    // One leading slash: `//evil.example/` must not become a protocol-relative redirect off the site.
    const location = `/${pathname.replace(/^\/+|\/+$/g, "")}`;
    return new Response(null, { status: 301, headers: { Location: location + search, "Cache-Control": SHORT } });
  }
  const rel = relativeFile(pathname);
  if (!rel || rel === "404.html") return notFound(event, site, ctx);

  const isPage = rel.endsWith(".html");
  if (isPage && prefersMarkdown(event.req.headers.get("accept"))) {
    const twinRel = rel === "index.html" ? "index.md" : rel.replace(/\.html$/, ".md");
    const twin = await site.read(twinRel);
    if (twin !== undefined) {
      keepAtEdge(event);
      return markdown(event, twin, twinRel);
    }
    // A place without a newsletter has no published twin: the server writes one (llms.txt promises every page has one).
    if (rel !== "index.html") {
      const made = await placePage(ctx, event, rel, "markdown");
      if (made) return made;
    }
  }
  const type = contentTypeOf(rel);
  if (type && !isPage && !rel.endsWith(".md") && (event.req.method === "HEAD" || event.req.headers.has("if-none-match"))) {
    // A large file's HEAD or revalidation is answered from its remembered validator, without reading it.
    const known = await site.meta(rel);
    const bodiless = known && bodilessResponse(event, known.etag, () => known.size, type, cacheControlOf(rel));
    if (bodiless) return bodiless;
  }
  const file = type && (await site.read(rel));
  if (!type || !file) {
    const onDemand = isPage || rel.endsWith(".md") ? await placePage(ctx, event, rel, isPage ? "html" : "markdown") : undefined;
    return onDemand ?? notFound(event, site, ctx);
  }
  // A published file changes only with a new generation (the edge keys its entries on it).
  keepAtEdge(event);
  if (rel.endsWith(".md")) return markdown(event, file, rel);
  // Pages are negotiated on Accept, so a shared cache must key on it too.
  const extra: Record<string, string> = isPage ? { Vary: "Accept" } : {};
  if (isPage) extra.Link = `</${rel.replace(/\.html$/, ".md")}>; rel="alternate"; type="text/markdown"`;
  return cachedResponse(event, file.body, type, cacheControlOf(rel), extra, file.etag);
}

function markdown(event: H3Event, file: SiteFile, rel: string): Response {
  return cachedResponse(event, file.body, "text/markdown; charset=utf-8", cacheControlOf(rel), markdownHeaders(file.body), file.etag);
}

/** Every path outside /api that no other route claims: GET and HEAD read the site; it takes no writes. */
export function siteRoutes(app: H3, ctx: AppContext): void {
  const site = createSiteFiles(siteDirs(ctx.config.dataDir));
  const handler = (event: H3Event) => {
    const method = event.req.method;
    if (method === "GET" || method === "HEAD") return serveSite(event, site, ctx);
    const headers = { Allow: "GET, HEAD, OPTIONS", "Cache-Control": "no-store" };
    if (method === "OPTIONS") return new Response(null, { status: 204, headers });
    return new Response(`${method} is not allowed here: the site is read-only (GET, HEAD).\n`, {
      status: 405, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" },
    });
  };
  app.all("/", handler);
  app.all("/**", handler);
}
