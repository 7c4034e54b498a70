/**
 * What a server-rendered page (api/html-page.ts: subscribe answers, manage and unsubscribe pages,
 * checkout, orders, the operator's pages) hands the site's renderer, so that it is drawn by the
 * site's own layout (src/layouts/Base.astro) through src/pages/server-page.astro: one header,
 * navigation, footer and stylesheet for every page a person sees.
 */
export interface ServerPage {
  title: string;
  /** The page's content below its heading: HTML the caller escaped. */
  body: string;
  /** The page's own path (its canonical address). */
  path: string;
  description?: string;
  /** Reload the page after this many seconds (a status that is still changing; works without JavaScript). */
  refreshSeconds?: number;
}

/** The renderer's path of the shell page (never published: no publish lists it). */
export const SERVER_PAGE_ROUTE = "/server-page";
