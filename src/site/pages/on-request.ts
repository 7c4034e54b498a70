/**
 * The pages the server renders per request (manage, order, checkout, the operator's desk, consent...):
 * Astro pages under src/pages/on-request/, drawn by the site's own layout and renderer, each fed one
 * typed view. A route in api/ parses the request, calls one service function and hands the view to
 * `viewPage` (api/http/html-page.ts); none of these pages is ever published.
 *
 * Each domain declares its pages' views beside its own view types, by augmenting this interface:
 *
 *   declare module "./on-request.ts" { interface OnRequestViews { "readers/manage": ManageView } }
 *
 * The key is the page's file under src/pages/on-request/ without `.astro`.
 */
export interface OnRequestViews {}

export type OnRequestRoute = keyof OnRequestViews;

/** The renderer's path of an on-request page. */
export function onRequestPath(route: OnRequestRoute): string {
  return `/on-request/${route}`;
}

/** The view a route handed its page (in the page: `const view = viewOf(Astro.locals, "readers/manage")`). */
export function viewOf<R extends OnRequestRoute>(locals: { view?: unknown }, _route: R): OnRequestViews[R] {
  if (locals.view === undefined) throw new Error(`the page ${String(_route)} was rendered without its view`);
  return locals.view as OnRequestViews[R];
}
