import type { H3, H3Event } from "h3";
import { EMBED_SIZE } from "../../../src/contract/operations/oembed.ts";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { embedCard } from "../../../src/services/site/oembed.ts";
import { cachedResponse } from "../../http/caching.ts";
import { viewDocument } from "../../http/html-page.ts";

/**
 * `/embed/{slug}` (the city's latest edition) and `/embed/{slug}/{date}`: what oEmbed iframes load, the
 * card of src/pages/on-request/site/embed.astro (its own small document: no header, footer or script).
 */
export function embedRoutes(app: H3, ctx: AppContext): void {
  const serve = async (event: H3Event, slug: string, date?: string) => {
    const card = embedCard(ctx, slug, date);
    if (!card) throw new AppError("not_found", `Nothing to embed at ${event.url.pathname}.`);
    const html = await viewDocument(ctx, "site/embed", {
      pageUrl: card.pageUrl, title: card.title, kicker: `${card.city}, ${card.state} · ${card.date}`, subject: card.subject, excerpt: card.excerpt,
      width: EMBED_SIZE.width, height: EMBED_SIZE.height,
    });
    // Meant to be framed by any site (no frame-ancestors or X-Frame-Options); a dated card never changes.
    return cachedResponse(event, html, "text/html; charset=utf-8", date ? "public, max-age=86400, s-maxage=31536000" : "public, max-age=300, s-maxage=600", {
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    });
  };
  app.get("/embed/:slug", (event) => serve(event, String(event.context.params?.slug)));
  app.get("/embed/:slug/:date", (event) => serve(event, String(event.context.params?.slug), String(event.context.params?.date)));
}
