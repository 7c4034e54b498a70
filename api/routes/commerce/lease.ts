import type { H3, H3Event } from "h3";
import type { OperatorActionResponse, TerritoriesResponse } from "../../../src/contract/commerce.ts";
import { operationsById } from "../../../src/contract/operations/index.ts";
import { AppError } from "../../../src/core/errors.ts";
import { formatCents } from "../../../src/core/commerce/pricing.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { admit, runOperation, type Caller } from "../../../src/services/operations/bindings.ts";
import { findPlaceBySlug, type PlaceRow } from "../../../src/store/places/places.ts";
import { readBodyText } from "../../http/body.ts";
import { clientAddress } from "../../http/client-address.ts";
import { htmlPage } from "../../http/html-page.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * The lease checkout for people: GET /lease/{slug} shows the town's monthly price (the territories
 * quote) with an email field and a checkbox to subscribe to the town's newsletter too (a newsletter
 * starts with its first subscriber; nobody is subscribed without ticking it); POST runs the same
 * operations as POST /api/operator-actions (guest-checkout) and, when ticked, POST /api/subscribe,
 * then sends the person to the payment page. The operator desk after payment is /operator.
 */
const quoteOp = operationsById.getTerritories;
const leaseOp = operationsById.operatorAction;
const subscribeOp = operationsById.subscribe;

interface Typed { email: string; subscribe: boolean }

function caller(ctx: AppContext, event: H3Event): Caller {
  return { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false };
}

async function form(ctx: AppContext, event: H3Event, place: PlaceRow, status: number, typed: Typed, problem?: { field?: "email"; text: string }): Promise<Response> {
  const q = ((await runOperation(ctx, quoteOp, { city: place.name, state: place.state_name }, caller(ctx, event))).data as TerritoriesResponse).quote!;
  const town = `${place.name}, ${place.state_name}`;
  const price = `${formatCents(q.priceCents)} a month`;
  const emailError = problem?.field === "email" ? problem.text : "";
  const body = !q.available
    ? `<p>${e(town)} is leased, or reserved by a checkout in progress. A reservation that is not paid lapses after ${ctx.config.reservationMinutes} minutes; <a href="/api/territories?city=${encodeURIComponent(place.name)}&amp;state=${encodeURIComponent(place.state_name)}">check again</a> later.</p>
<p><a href="/${e(place.slug)}">Back to ${e(place.name)}</a></p>`
    : `<p class="lede">Run the ${e(place.name)} daily: you get half the net of every listing sold in ${e(place.name)}, a note in its morning edition, its feeds and its readers' numbers.</p>
${problem && !problem.field ? `<div class="alert" role="alert"><p>${e(problem.text)}</p></div>` : ""}
<dl class="facts"><dt>Price</dt><dd class="price" data-testid="price">${e(price)}</dd><dt>Subscribers</dt><dd>${q.subscribers.toLocaleString("en-US")} (the price covers up to ${(q.tier * 1000).toLocaleString("en-US")})</dd><dt>Billing</dt><dd>Monthly until you cancel; the town stays yours to the end of the paid month.</dd></dl>
<form method="post" action="/lease/${e(place.slug)}" novalidate>
<div class="field"><label for="email">Your email</label>
<p class="help" id="email-help">Your operator account: the payment page starts with it and your sign-in links go there.</p>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${e(typed.email)}" aria-describedby="email-help email-error"${emailError ? ' aria-invalid="true"' : ""}>
<p class="field-error" id="email-error">${e(emailError)}</p></div>
<label class="choice"><input type="checkbox" id="subscribe" name="subscribe" value="1"${typed.subscribe ? " checked" : ""}><span>Also send me the ${e(place.name)} daily newsletter${q.subscribers === 0 ? ": its first edition goes out the morning after its first subscriber" : ""}. One click unsubscribes.</span></label>
<p class="help">${e(town)} is held for you for ${ctx.config.reservationMinutes} minutes while you pay.</p>
<div class="actions"><button type="submit">Continue to payment (${e(price)})</button></div>
</form>
<p><a href="/${e(place.slug)}">Back to ${e(place.name)}</a></p>`;
  return htmlPage(ctx, status, `Lease ${town}`, body, { path: `/lease/${place.slug}`, toCheckout: true });
}

const redirect = (to: string) => new Response(null, { status: 303, headers: { Location: to, "Cache-Control": "no-store" } });

export function leaseRoutes(app: H3, ctx: AppContext): void {
  const placeOr404 = (slug: string) => findPlaceBySlug(ctx.db, slug);
  const unknown = () => htmlPage(ctx, 404, "No such town", `<p>We know no U.S. place at this address. <a href="/cities">Find your town</a>.</p>`);

  app.get("/lease/:slug", async (event) => {
    const place = placeOr404(event.context.params!.slug);
    return place ? form(ctx, event, place, 200, { email: "", subscribe: false }) : unknown();
  });

  app.post("/lease/:slug", async (event) => {
    const place = placeOr404(event.context.params!.slug);
    if (!place) return unknown();
    const posted = new URLSearchParams(await readBodyText(event).catch(() => ""));
    const typed: Typed = { email: (posted.get("email") ?? "").trim().slice(0, 254), subscribe: posted.get("subscribe") === "1" };
    const who = caller(ctx, event);
    try {
      admit(ctx, leaseOp, who);
      const input = leaseOp.body.safeParse({ action: "guest-checkout", city: place.name, state: place.state_name, email: typed.email });
      if (!input.success) return form(ctx, event, place, 400, typed, { field: "email", text: "Enter your email address, like name@example.com." });
      const lease = (await runOperation(ctx, leaseOp, input.data, who)).data as OperatorActionResponse;
      // Only when asked: the operator's own subscription, through the same operation as the API's.
      if (typed.subscribe) {
        admit(ctx, subscribeOp, who);
        const sub = subscribeOp.body.safeParse({ email: typed.email, city: place.name, state: place.state_name, slug: place.slug, landing_path: `/lease/${place.slug}` });
        if (sub.success) await runOperation(ctx, subscribeOp, sub.data, who);
      }
      return redirect(lease.checkoutUrl);
    } catch (err) {
      if (err instanceof AppError && err.code === "conflict") return form(ctx, event, place, 409, typed);
      if (err instanceof AppError && err.code === "rate_limited") return form(ctx, event, place, 429, typed, { text: `Too many checkouts from here at once; try again in ${err.headers?.["Retry-After"] ?? "60"} seconds. What you typed is kept.` });
      if (err instanceof AppError && err.code === "upstream_error") return form(ctx, event, place, 502, typed, { text: "The payment provider did not answer. Nothing was charged; please try again in a few minutes." });
      if (err instanceof AppError && err.code === "service_misconfigured") return form(ctx, event, place, 503, typed, { text: "This site takes no payments at the moment. Nothing was charged; please try again later." });
      throw err;
    }
  });
}
