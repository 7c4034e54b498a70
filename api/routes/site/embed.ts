import type { H3, H3Event } from "h3";
import { EMBED_SIZE } from "../../../src/contract/operations/oembed.ts";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { embedCard, type EmbedCard } from "../../../src/services/site/oembed.ts";
import { cachedResponse } from "../../http/caching.ts";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The card an oEmbed iframe shows: no header, footer or script; links open the full page in a new tab. */
function cardHtml(card: EmbedCard): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><link rel="canonical" href="${escape(card.pageUrl)}">
<title>${escape(card.title)}</title>
<style>
html,body{margin:0;height:100%}
body{box-sizing:border-box;width:100%;max-width:${EMBED_SIZE.width}px;height:100vh;max-height:${EMBED_SIZE.height}px;padding:16px 18px;overflow:hidden;font:15px/1.45 system-ui,sans-serif;color:#1d1d1f;background:#fffdf8;border:1px solid #ddd;border-radius:8px;display:flex;flex-direction:column}
.kicker{font-size:12px;letter-spacing:.06em;text-transform:uppercase;color:#8a5a00;margin:0}
h1{font-size:19px;line-height:1.25;margin:6px 0 8px}
main{display:flex;flex-direction:column;flex:1;min-height:0}
p.excerpt{margin:0;color:#444;flex:1;overflow:hidden}
a{color:inherit}
.foot{font-size:13px;margin-top:10px;display:flex;justify-content:space-between}
</style>
</head>
<body>
<main>
<p class="kicker">${escape(`${card.city}, ${card.state}`)} · ${escape(card.date)}</p>
<h1><a href="${escape(card.pageUrl)}" target="_blank" rel="noopener">${escape(card.subject)}</a></h1>
<p class="excerpt">${escape(card.excerpt)}</p>
<p class="foot"><a href="${escape(card.pageUrl)}" target="_blank" rel="noopener">Read the edition</a><span>citydaily</span></p>
</main>
</body>
</html>
`;
}

/** `/embed/{slug}` (the city's latest edition) and `/embed/{slug}/{date}`: what oEmbed iframes load. */
export function embedRoutes(app: H3, ctx: AppContext): void {
  const serve = (event: H3Event, slug: string, date?: string) => {
    const card = embedCard(ctx, slug, date);
    if (!card) throw new AppError("not_found", `Nothing to embed at ${event.url.pathname}.`);
    // Meant to be framed by any site (no frame-ancestors or X-Frame-Options); a dated card never changes.
    return cachedResponse(event, cardHtml(card), "text/html; charset=utf-8", date ? "public, max-age=86400, s-maxage=31536000" : "public, max-age=300, s-maxage=600", {
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    });
  };
  app.get("/embed/:slug", (event) => serve(event, String(event.context.params?.slug)));
  app.get("/embed/:slug/:date", (event) => serve(event, String(event.context.params?.slug), String(event.context.params?.date)));
}
