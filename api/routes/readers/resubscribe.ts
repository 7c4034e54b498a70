import type { H3 } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { confirmResubscribe, resubscribeLink } from "../../../src/services/readers/resubscribe.ts";
import { cadenceWords } from "../../../src/core/readers/preferences.ts";
import { resubscribeWhat } from "../../../src/core/readers/resubscribe-email.ts";
import { htmlPage } from "../../http/html-page.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * The link in the email asking a suppressed address to confirm a new subscription (outside the
 * public API; src/services/readers/resubscribe.ts):
 *   GET  /resubscribe/{token}   a page with one button; a GET never changes anything (link scanners
 *                               open links), as for one-click unsubscribe.
 *   POST /resubscribe/{token}   the button: the subscription is back, a welcome email on its way.
 */
export function resubscribeRoutes(app: H3, ctx: AppContext): void {
  const gone = () => htmlPage(ctx, 410, "This link no longer works", `<p>A confirmation link works once, for a few days. This one was used already, has expired or is incomplete.</p>
<p>To subscribe, use the form on <a href="/cities">your town's page</a>; a new link is emailed to you at most once a day.</p>`);
  // The page carries the token in its address: keep it out of Referer headers.
  const quiet = { headers: { "Referrer-Policy": "no-referrer" } };

  app.get("/resubscribe/:token", (event) => {
    const view = resubscribeLink(ctx, event.context.params!.token);
    if (!view) return gone();
    const town = `${view.place.name}, ${view.place.state_name}`;
    // A reader who had chosen once a week comes back to it: the page says so (the link proves the address).
    const again = view.weeklyDay === undefined ? `the ${e(town)} edition each morning` : `${e(town)} ${e(cadenceWords("weekly", view.weeklyDay))}`;
    return htmlPage(ctx, 200, `Subscribe to ${resubscribeWhat(town, view.weeklyDay)} again?`, `<p>${e(view.email)} gets no citydaily email now. Press the button to get ${again} again.</p>
<form method="post"><button type="submit">Subscribe to ${e(view.place.name)} again</button></form>
<p>Not you? Close this page: nothing changes.</p>`, quiet);
  });

  app.post("/resubscribe/:token", async (event) => {
    const done = await confirmResubscribe(ctx, event.context.params!.token);
    if (!done) return gone();
    const town = `${done.place.name}, ${done.place.state_name}`;
    if (!done.started) {
      return htmlPage(ctx, 200, "This address cannot be subscribed", `<p>${e(done.email)} was stopped by citydaily's staff. Reply to any citydaily email to ask about it.</p>`, quiet);
    }
    return htmlPage(ctx, 200, `Subscribed to ${resubscribeWhat(town, done.weeklyDay)}`, `<p class="notice" role="status">${e(done.email)} is subscribed again: a welcome email is on its way.</p>
<p><a href="/${encodeURIComponent(done.place.slug)}">Read the ${e(done.place.name)} edition on the web</a></p>`, quiet);
  });
}
