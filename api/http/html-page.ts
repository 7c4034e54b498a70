import { loadRenderer } from "../../src/publish/site-renderer.ts";
import { sitePagePolicy } from "./security-headers.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { SERVER_PAGE_ROUTE, type ServerPage } from "../../src/site/server-page.ts";
import { createSiteData } from "../../src/site/views.ts";
import { onRequestPath, type OnRequestRoute, type OnRequestViews } from "../../src/site/pages/on-request.ts";

/**
 * The one shell of the pages the server renders per request (subscribe answers, unsubscribe and
 * manage pages, checkout, orders, the buying page, the operator's pages): drawn by the site's own
 * layout (src/layouts/Base.astro, through src/pages/server-page.astro) with the site's stylesheet,
 * so the header, navigation and footer have one source. `body` is HTML the caller escaped.
 */
export interface HtmlPageOptions {
  headers?: Record<string, string>;
  /**
   * Reload after this many seconds (a status still changing), without JavaScript: an HTTP `Refresh`
   * header, which browsers apply as a meta refresh; in the markup a delayed refresh is an
   * accessibility failure (axe, html-validate), so the page says it updates and offers to stop.
   */
  refreshSeconds?: number;
  description?: string;
  /** The page's own path (titles and links are as on the site's pages). */
  path?: string;
  /** Its form answers with a redirect to the payment provider's page: allowed in the CSP's form-action. */
  toCheckout?: boolean;
}

/** The page's HTML alone. */
export async function htmlDocument(ctx: AppContext, title: string, body: string, options: HtmlPageOptions = {}): Promise<string> {
  const page: ServerPage = { title, body, path: options.path ?? SERVER_PAGE_ROUTE, description: options.description };
  return renderServerPage(ctx, SERVER_PAGE_ROUTE, { page });
}

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

export async function htmlPage(ctx: AppContext, status: number, title: string, body: string, options: HtmlPageOptions = {}): Promise<Response> {
  const refresh: Record<string, string> = options.refreshSeconds ? { Refresh: String(options.refreshSeconds) } : {};
  const html = await htmlDocument(ctx, title, body, options);
  const policy = options.toCheckout ? checkoutFormPolicy(ctx) : {};
  return new Response(html, { status, headers: htmlHeaders({ ...refresh, ...policy, ...options.headers }) });
}

export interface ViewPageOptions {
  headers?: Record<string, string>;
  /** Reload after this many seconds (a status still changing): an HTTP `Refresh` header (see `HtmlPageOptions`). */
  refreshSeconds?: number;
  /** Its form answers with a redirect to the payment provider's page: allowed in the CSP's form-action. */
  toCheckout?: boolean;
}

/** A per-person page: the on-request Astro page `route` drawn with its typed `view`. */
export async function viewPage<R extends OnRequestRoute>(ctx: AppContext, status: number, route: R, view: OnRequestViews[R], options: ViewPageOptions = {}): Promise<Response> {
  const html = await renderServerPage(ctx, onRequestPath(route), { view });
  const refresh: Record<string, string> = options.refreshSeconds ? { Refresh: String(options.refreshSeconds) } : {};
  const policy = options.toCheckout ? checkoutFormPolicy(ctx) : {};
  return new Response(html, { status, headers: htmlHeaders({ ...refresh, ...policy, ...options.headers }) });
}
