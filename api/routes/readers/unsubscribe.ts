import type { H3 } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { cadenceWords } from "../../../src/core/readers/preferences.ts";
import { manageView, resolveToken, unsubscribeByToken } from "../../../src/services/readers/unsubscribe.ts";
import type { SubscriptionRow } from "../../../src/store/readers/subscribers.ts";
import { htmlPage } from "../../http/html-page.ts";
import { place } from "./manage-markup.ts";
import { formBody, managePageRoutes } from "./manage-page.ts";
import { resubscribeRoutes } from "./resubscribe.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * Unsubscribing, outside the public API (links in emails):
 *   POST /unsubscribe/{token}   RFC 8058 one-click: unsubscribes at once, 200, no redirect.
 *                               The confirmation page's form posts here too (`scope=all` for every city).
 *   GET  /unsubscribe/{token}   a confirmation page; a GET never unsubscribes, so link scanners cannot.
 * The manage page (/subscriptions/{token}) and the weekly switch, the other pages of these links,
 * are in manage-page.ts and mounted with these.
 * Tokens carry a signature over the subscriber and address (src/core/readers/unsubscribe-tokens.ts).
 * Beside them, the emailed link that brings a suppressed address back (./resubscribe.ts).
 */

const invalid = (ctx: AppContext) =>
  htmlPage(ctx, 404, "This link is not valid", "<p>The link may be incomplete. Use the unsubscribe link from your most recent email, or reply to it and we will remove you by hand.</p>");

/** The town's page stays open to everyone, subscribed or not. */
const townLink = (s: SubscriptionRow) => `<a href="/${encodeURIComponent(s.slug)}">Read the ${e(s.name)} edition on the web</a>`;

export function unsubscribeRoutes(app: H3, ctx: AppContext): void {
  managePageRoutes(app, ctx);
  resubscribeRoutes(app, ctx);
  app.get("/unsubscribe/:token", (event) => {
    const token = event.context.params!.token;
    const sub = resolveToken(ctx, token);
    if (!sub) return invalid(ctx);
    const manage = `/subscriptions/${encodeURIComponent(token)}`;
    if (sub.status !== "active") {
      return htmlPage(ctx, 200, "You are unsubscribed", `<p>${e(sub.email)} no longer gets the ${e(place(sub))} newsletter.</p><p><a href="${manage}">Manage your cities</a> · ${townLink(sub)}</p>`);
    }
    return htmlPage(ctx, 200, `Unsubscribe from ${place(sub)}?`, `<p>${e(sub.email)} gets the ${e(place(sub))} newsletter ${e(cadenceWords(sub.frequency, sub.weekly_day))}.</p>
<form method="post"><button type="submit">Unsubscribe from ${e(sub.name)}</button></form>
<form method="post"><input type="hidden" name="scope" value="all"><button type="submit" class="secondary">Unsubscribe from every city</button></form>
<p><a href="${manage}">Manage your cities</a> · ${townLink(sub)}</p>`);
  });

  app.post("/unsubscribe/:token", async (event) => {
    const token = event.context.params!.token;
    const form = await formBody(event);
    const scope = form.get("scope") === "all" ? "all" : "city";
    // RFC 8058 clients post `List-Unsubscribe=One-Click`; the confirmation page posts its form.
    const source = form.get("List-Unsubscribe") === "One-Click" ? "one-click" : "confirmation page";
    const sub = await unsubscribeByToken(ctx, token, scope, source);
    if (!sub) return invalid(ctx);
    const manage = `/subscriptions/${encodeURIComponent(token)}`;
    if (scope === "all") return htmlPage(ctx, 200, "You are unsubscribed", `<p>${e(sub.email)} will get no more email from citydaily.</p>`);
    // "Your other cities" only when the address follows another; else the page of the town just left, to undo it.
    const others = manageView(ctx, token)?.subscriptions.some((s) => s.id !== sub.id && s.status === "active") ?? false;
    const next = others ? "Manage your other cities" : `Changed your mind? Subscribe to ${e(sub.name)} again`;
    return htmlPage(ctx, 200, "You are unsubscribed", `<p>${e(sub.email)} will get no more ${e(place(sub))} ${sub.frequency === "weekly" ? "weekly emails" : "editions"}.</p><p><a href="${manage}">${next}</a> · ${townLink(sub)}</p>`);
  });
}
