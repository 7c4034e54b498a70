import { loadRenderer } from "../../src/publish/site-renderer.ts";
import { sitePagePolicy } from "./security-headers.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { createSiteData } from "../../src/site/views.ts";
import { onRequestPath, type OnRequestRoute, type OnRequestViews } from "../../src/site/pages/on-request.ts";

/**
 * The pages the server renders per request (manage, unsubscribe, order, checkout, the operator's desk,
 * consent, ...) are Astro pages under src/pages/on-request/, each with one typed view
 * (src/site/pages/on-request.ts), drawn by the site's own layout and renderer: one header, navigation,
 * footer and stylesheet for every page a person sees. Routes hand a view to `viewPage`.
 */

/** Renders any on-request page of the Astro site (`route`) with `locals` beside the site's data. */
export async function renderServerPage(ctx: AppContext, route: string, locals: object): Promise<string> {
  const renderer = await loadRenderer();
  const html = await renderer.render(route, createSiteData(ctx.db, ctx.config.baseUrl, { now: () => ctx.config.now() }), locals);
  if (html === undefined) throw new Error(`the site has no page ${route}`);
  return html;
}

/**
 * The page policy of a page whose form redirects to the payment provider's hosted page (browsers
 * apply `form-action` to the redirect too); other pages get the default policy from the middleware.
 */
export function checkoutFormPolicy(ctx: AppContext): Record<string, string> {
  return { "Content-Security-Policy": sitePagePolicy(ctx.payments.checkoutOrigins), "X-Frame-Options": "DENY" };
}

/** The headers of every per-person page. */
export function htmlHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    // These addresses carry tokens or order ids: keep them out of Referer headers and search engines.
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
    ...extra,
  };
}

export interface ViewPageOptions {
  headers?: Record<string, string>;
  /**
   * Reload after this many seconds (a status still changing), without JavaScript: an HTTP `Refresh`
   * header, which browsers apply as a meta refresh; in the markup a delayed refresh is an
   * accessibility failure (axe, html-validate), so the page says it updates and offers to stop.
   */
  refreshSeconds?: number;
  /** Its form answers with a redirect to the payment provider's page: allowed in the CSP's form-action. */
  toCheckout?: boolean;
}

/** The HTML of the on-request Astro page `route` drawn with its typed `view` (for an answer made elsewhere: a cached one, oidc-provider's). */
export function viewDocument<R extends OnRequestRoute>(ctx: AppContext, route: R, view: OnRequestViews[R]): Promise<string> {
  return renderServerPage(ctx, onRequestPath(route), { view });
}

/** A per-person page: the on-request Astro page `route` drawn with its typed `view`. */
export async function viewPage<R extends OnRequestRoute>(ctx: AppContext, status: number, route: R, view: OnRequestViews[R], options: ViewPageOptions = {}): Promise<Response> {
  const html = await viewDocument(ctx, route, view);
  const refresh: Record<string, string> = options.refreshSeconds ? { Refresh: String(options.refreshSeconds) } : {};
  const policy = options.toCheckout ? checkoutFormPolicy(ctx) : {};
  return new Response(html, { status, headers: htmlHeaders({ ...refresh, ...policy, ...options.headers }) });
}
