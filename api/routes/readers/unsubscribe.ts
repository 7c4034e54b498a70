import type { H3 } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { unsubscribeByLink, unsubscribePage } from "../../../src/services/readers/unsubscribe.ts";
import { viewPage } from "../../http/html-page.ts";
import { formBody, managePageRoutes } from "./manage-page.ts";
import { resubscribeRoutes } from "./resubscribe.ts";

/**
 * Unsubscribing, outside the public API (links in emails):
 *   POST /unsubscribe/{token}   RFC 8058 one-click: unsubscribes at once, 200, no redirect.
 *                               The confirmation page's form posts here too (`scope=all` for every city).
 *   GET  /unsubscribe/{token}   a confirmation page; a GET never unsubscribes, so link scanners cannot.
 * The manage page (/subscriptions/{token}) and the weekly switch, the other pages of these links,
 * are in manage-page.ts and mounted with these.
 * Tokens carry a signature over the subscriber and address (src/core/readers/unsubscribe-tokens.ts).
 * Beside them, the emailed link that brings a suppressed address back (./resubscribe.ts).
 * The page: src/pages/on-request/readers/unsubscribe.astro.
 */

const invalid = (ctx: AppContext) => viewPage(ctx, 404, "readers/invalid-link", { link: "unsubscribe" });

export function unsubscribeRoutes(app: H3, ctx: AppContext): void {
  managePageRoutes(app, ctx);
  resubscribeRoutes(app, ctx);
  app.get("/unsubscribe/:token", (event) => {
    const view = unsubscribePage(ctx, event.context.params!.token);
    return view ? viewPage(ctx, 200, "readers/unsubscribe", view) : invalid(ctx);
  });

  app.post("/unsubscribe/:token", async (event) => {
    const form = await formBody(event);
    const scope = form.get("scope") === "all" ? "all" : "city";
    // RFC 8058 clients post `List-Unsubscribe=One-Click`; the confirmation page posts its form.
    const source = form.get("List-Unsubscribe") === "One-Click" ? "one-click" : "confirmation page";
    const view = await unsubscribeByLink(ctx, event.context.params!.token, scope, source);
    return view ? viewPage(ctx, 200, "readers/unsubscribe", view) : invalid(ctx);
  });
}
