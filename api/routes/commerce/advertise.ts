import type { H3, H3Event } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { advertiseCheckout, advertisePage, advertiseTowns } from "../../../src/services/commerce/advertise-page.ts";
import { readBodyText } from "../../http/body.ts";
import { clientAddress } from "../../http/client-address.ts";
import { viewPage } from "../../http/html-page.ts";
import "../../../src/site/pages/commerce.ts";

/**
 * The buying page of a town, for people, who buy through pages rather than the API
 * (src/pages/on-request/commerce/advertise.astro; the towns: towns.astro):
 *   GET  /advertise                                 every town with a newsletter, each to its buying page
 *   GET  /advertise/{slug}[?kind=event|business]   the form: kind, tier and price, fields, preview
 *   POST /advertise/{slug}                          `action=preview` answers the page with the preview;
 *        otherwise the listing checkout runs through the same service as POST /api/listing-checkout
 *        (or /api/business-checkout): a payment link is a 303 to the checkout, a held or free listing a
 *        303 to its order page, a refusal the page again with the reason next to its field.
 * Its form redirects to the payment provider's page: the CSP allows it (`toCheckout`).
 */
const redirect = (to: string) => new Response(null, { status: 303, headers: { Location: to, "Cache-Control": "no-store" } });

/** A HEAD request is answered with the page's status and headers alone. */
async function page(event: H3Event, answer: Promise<Response>): Promise<Response> {
  const res = await answer;
  return event.req.method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res;
}

export function advertiseRoutes(app: H3, ctx: AppContext): void {
  const unknownTown = () => viewPage(ctx, 404, "commerce/missing", { what: "advertise-town" });

  // The home page's link: every town with a newsletter, each to its buying page.
  app.get("/advertise", () => viewPage(ctx, 200, "commerce/towns", advertiseTowns(ctx)));

  app.get("/advertise/:slug", (event) => {
    const kind = event.url.searchParams.get("kind") === "business" ? "business" : "event";
    const view = advertisePage(ctx, event.context.params!.slug, kind);
    return view ? page(event, viewPage(ctx, 200, "commerce/advertise", view, { toCheckout: true })) : unknownTown();
  });

  app.post("/advertise/:slug", async (event) => {
    const form = new URLSearchParams(await readBodyText(event).catch(() => ""));
    const answer = await advertiseCheckout(ctx, event.context.params!.slug, (n) => form.get(n), clientAddress(event, ctx.config.mail.trustProxyHops));
    if (!answer) return unknownTown();
    return "to" in answer ? redirect(answer.to) : viewPage(ctx, answer.status, "commerce/advertise", answer.view, { toCheckout: true });
  });
}
