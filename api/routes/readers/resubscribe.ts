import type { H3 } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { resubscribeByLink, resubscribePage } from "../../../src/services/readers/resubscribe.ts";
import type { ResubscribePageView } from "../../../src/site/pages/readers.ts";
import { viewPage } from "../../http/html-page.ts";

/**
 * The link in the email asking a suppressed address to confirm a new subscription (outside the
 * public API; src/services/readers/resubscribe.ts; the page: src/pages/on-request/readers/resubscribe.astro):
 *   GET  /resubscribe/{token}   a page with one button; a GET never changes anything (link scanners
 *                               open links), as for one-click unsubscribe.
 *   POST /resubscribe/{token}   the button: the subscription is back, a welcome email on its way.
 * A link used, expired or incomplete answers 410.
 */
export function resubscribeRoutes(app: H3, ctx: AppContext): void {
  // The page carries the token in its address: viewPage's headers keep it out of Referer headers and caches.
  const answer = (view: ResubscribePageView) => viewPage(ctx, view.kind === "gone" ? 410 : 200, "readers/resubscribe", view);

  app.get("/resubscribe/:token", (event) => answer(resubscribePage(ctx, event.context.params!.token)));
  app.post("/resubscribe/:token", async (event) => answer(await resubscribeByLink(ctx, event.context.params!.token)));
}
