import type { H3, H3Event } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { leaseCheckout, leasePage } from "../../../src/services/commerce/lease-page.ts";
import { readBodyText } from "../../http/body.ts";
import { clientAddress } from "../../http/client-address.ts";
import { viewPage } from "../../http/html-page.ts";
import "../../../src/site/pages/commerce.ts";

/**
 * The lease checkout for people: GET /lease/{slug} shows the town's monthly price (the territories
 * quote) with an email field and a checkbox to subscribe to the town's newsletter too (a newsletter
 * starts with its first subscriber; nobody is subscribed without ticking it); POST runs the same
 * services as POST /api/operator-actions (guest-checkout) and, when ticked, POST /api/subscribe,
 * then sends the person to the payment page. The operator desk after payment is /operator.
 * The page: src/pages/on-request/commerce/lease.astro.
 */
const redirect = (to: string) => new Response(null, { status: 303, headers: { Location: to, "Cache-Control": "no-store" } });

const address = (ctx: AppContext, event: H3Event) => clientAddress(event, ctx.config.mail.trustProxyHops);

export function leaseRoutes(app: H3, ctx: AppContext): void {
  const unknown = () => viewPage(ctx, 404, "commerce/missing", { what: "lease-town" });

  app.get("/lease/:slug", async (event) => {
    const view = leasePage(ctx, event.context.params!.slug);
    return view ? viewPage(ctx, 200, "commerce/lease", view, { toCheckout: true }) : unknown();
  });

  app.post("/lease/:slug", async (event) => {
    const posted = new URLSearchParams(await readBodyText(event).catch(() => ""));
    const typed = { email: (posted.get("email") ?? "").trim().slice(0, 254), subscribe: posted.get("subscribe") === "1" };
    const answer = await leaseCheckout(ctx, event.context.params!.slug, typed, address(ctx, event));
    if (!answer) return unknown();
    return "to" in answer ? redirect(answer.to) : viewPage(ctx, answer.status, "commerce/lease", answer.view, { toCheckout: true });
  });
}
