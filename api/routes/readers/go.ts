import type { H3, H3Event } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { followLink } from "../../../src/services/readers/clicks.ts";
import { clientAddress } from "../../http/client-address.ts";
import { viewPage } from "../../http/html-page.ts";

/**
 * GET/HEAD /go/{slug}/{date}/{sig}?to=URL: an edition's outbound link. Redirects to the signed target
 * (a link we did not sign answers a page, src/pages/on-request/readers/go.astro, never a redirect) and
 * counts the click in aggregate.
 */
export function goRoutes(app: H3, ctx: AppContext): void {
  const follow = async (event: H3Event) => {
    const p = event.context.params!;
    try {
      const to = followLink(ctx, {
        slug: String(p.slug), date: String(p.date), sig: String(p.sig), to: event.url.searchParams.get("to"),
        method: event.req.method, address: clientAddress(event, ctx.config.mail.trustProxyHops), userAgent: event.req.headers.get("user-agent") ?? undefined,
      });
      // Never cached: each follow is one click; no Referer of ours is passed on.
      return new Response(null, { status: 302, headers: { Location: to, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex" } });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return viewPage(ctx, 404, "readers/go", { message: err.message });
    }
  };
  app.get("/go/:slug/:date/:sig", follow);
  app.on("HEAD", "/go/:slug/:date/:sig", follow);
}
