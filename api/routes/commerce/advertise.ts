import type { H3, H3Event } from "h3";
import type { z } from "zod";
import type { CitiesResponse } from "../../../src/contract/resources.ts";
import type { CheckoutResponse, ListingQuoteResponse as QuoteSchema } from "../../../src/contract/commerce.ts";
import { operationsById } from "../../../src/contract/operations/index.ts";
import { CALENDAR_DAYS, directoryLine, eventLine } from "../../../src/core/edition/sections.ts";
import { renderEditionHtml } from "../../../src/core/edition/render-html.ts";
import { formatLongDate } from "../../../src/site/format.ts";
import { AppError } from "../../../src/core/errors.ts";
import { BUSINESS_RUN_DAYS } from "../../../src/core/commerce/pricing.ts";
import { addDays, localDate } from "../../../src/lib/time.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { admit, runOperation, type Caller } from "../../../src/services/operations/bindings.ts";
import { checkoutBody, emptyValues, fieldErrors, fieldLabel, formFieldOf, previewListing, valuesOf, type FormField, type ListingFormValues } from "../../../src/site/listing-form.ts";
import { ADVERTISE_PAGE_ROUTE, type AdvertiseView } from "../../../src/site/server-page.ts";
import { findPlaceBySlug } from "../../../src/store/places/places.ts";
import { readBodyText } from "../../http/body.ts";
import { clientAddress } from "../../http/client-address.ts";
import { checkoutFormPolicy, htmlHeaders, htmlPage, renderServerPage } from "../../http/html-page.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

type ListingQuoteResponse = z.infer<typeof QuoteSchema>;

/**
 * The buying page of a town, for people, who buy through pages rather than the API:
 *   GET  /advertise/{slug}[?kind=event|business]   the form: kind, tier and price, fields, preview
 *   POST /advertise/{slug}                          `action=preview` answers the page with the preview;
 *        otherwise the listing checkout runs through the same operation as POST /api/listing-checkout
 *        (or /api/business-checkout): a payment link is a 303 to the checkout, a held or free listing a
 *        303 to its order page, a refusal the page again with the reason next to its field.
 * Thin: prices come from the listing quote, rules from the contract (src/site/listing-form.ts), the
 * preview from the town page's components and the composer's lines.
 */
const quoteOp = operationsById.getListingQuote;
const checkoutOps = { event: operationsById.createListingCheckout, business: operationsById.createBusinessCheckout };

const WHAT_TO_CHANGE: Record<string, string> = {
  "url-scheme": "Give the full address of your web page, starting with https://.",
  "url-shortener": "Give the full address your short link leads to.",
  "disposable-email": "Use an email address you keep: the receipt and your listing's news go there.",
  "past-event": "Check the date: it must be today or later, and the last day not before the first.",
  "outside-us": "Listings are for places and events in the United States.",
};

function caller(ctx: AppContext, event: H3Event): Caller {
  return { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false };
}

async function quote(ctx: AppContext, event: H3Event, slug: string): Promise<ListingQuoteResponse | undefined> {
  try {
    return (await runOperation(ctx, quoteOp, { slug }, caller(ctx, event))).data as ListingQuoteResponse;
  } catch (err) {
    if (err instanceof AppError && (err.code === "city_not_found" || err.code === "invalid_slug")) return undefined;
    throw err;
  }
}

/** The preview: the town page's item (drawn by the page's component) and the email's line, rendered as the edition is. */
function preview(ctx: AppContext, slug: string, v: ListingFormValues): AdvertiseView["preview"] {
  const place = findPlaceBySlug(ctx.db, slug)!;
  const today = localDate(ctx.config.now(), place.timezone);
  const listing = previewListing(v, addDays(today, BUSINESS_RUN_DAYS));
  const featured = v.tier === "featured";
  if (v.kind === "event") {
    const day = listing.event?.startsAt.slice(0, 10);
    return {
      event: listing.event,
      emailHtml: featured && listing.event ? renderEditionHtml(eventLine(listing.event, true)) : undefined,
      emailNote: featured
        ? `Featured events are in ${place.name}'s morning email every day of the week before them${day ? ` (from ${formatLongDate(addDays(day, -CALENDAR_DAYS) < today ? today : addDays(day, -CALENDAR_DAYS))} to ${formatLongDate(day)})` : ""}, and first on their day.`
        : "Only featured events are in the morning email; this listing is on the town page's calendar.",
    };
  }
  return {
    business: listing.business,
    emailHtml: featured && listing.business ? renderEditionHtml(directoryLine(listing.business)) : undefined,
    emailNote: featured
      ? `Featured businesses are mentioned in ${place.name}'s morning email once a week for ${BUSINESS_RUN_DAYS} days.`
      : `The morning email counts the businesses in the town directory and links to it; featured businesses are also mentioned by name once a week.`,
  };
}

async function page(ctx: AppContext, event: H3Event, status: number, slug: string, q: ListingQuoteResponse, v: ListingFormValues, extra: Pick<AdvertiseView, "errors"> & Partial<AdvertiseView> = { errors: {} }): Promise<Response> {
  const view: AdvertiseView = {
    slug: q.slug, town: q.city, state: q.state, path: `/advertise/${q.slug}`, selling: q.selling, notSelling: q.reason,
    kind: v.kind, tiers: v.kind === "event" ? q.event : q.business, values: v, preview: preview(ctx, slug, v),
    provider: ctx.payments.name, ...extra,
  };
  const html = await renderServerPage(ctx, ADVERTISE_PAGE_ROUTE, { advertise: view });
  return new Response(event.req.method === "HEAD" ? null : html, { status, headers: htmlHeaders(checkoutFormPolicy(ctx)) });
}

const redirect = (to: string) => new Response(null, { status: 303, headers: { Location: to, "Cache-Control": "no-store" } });

const unknownTown = (ctx: AppContext) => htmlPage(ctx, 404, "No such town", `<p>We know no U.S. place at this address. <a href="/cities">Find your town</a> and follow its "Advertise" link.</p>`);

export function advertiseRoutes(app: H3, ctx: AppContext): void {
  // The home page's link: every town with a newsletter, each to its buying page.
  app.get("/advertise", async (event) => {
    const cities = (await runOperation(ctx, operationsById.listCities, {}, caller(ctx, event))).data as CitiesResponse;
    const groups = cities.states.map((g) => `<h2>${e(g.state)}</h2>
<ul class="cities">${g.cities.map((c) => `<li><a href="/advertise/${e(c.slug)}">${e(c.city)}</a></li>`).join("")}</ul>`).join("\n");
    return htmlPage(ctx, 200, "Advertise in your town", `<p class="lede">List an event on a town's calendar or a business in its directory: on the town's page, and for featured listings in its morning email. Choose the town.</p>
${groups || "<p>No town has a newsletter yet.</p>"}
<p>Your town is not here? <a href="/cities">Find it</a>: its newsletter starts with its first subscriber, and it can take listings from then on.</p>`, { path: "/advertise" });
  });

  app.get("/advertise/:slug", async (event) => {
    const slug = event.context.params!.slug;
    const q = await quote(ctx, event, slug);
    if (!q) return unknownTown(ctx);
    const kind = event.url.searchParams.get("kind") === "business" ? "business" : "event";
    return page(ctx, event, 200, slug, q, emptyValues(kind));
  });

  app.post("/advertise/:slug", async (event) => {
    const slug = event.context.params!.slug;
    const q = await quote(ctx, event, slug);
    if (!q) return unknownTown(ctx);
    const form = new URLSearchParams(await readBodyText(event).catch(() => ""));
    const v = valuesOf((n) => form.get(n));
    if (form.get("action") === "preview" || !q.selling) return page(ctx, event, 200, slug, q, v);
    const op = checkoutOps[v.kind];
    const who = caller(ctx, event);
    try {
      admit(ctx, op, who);
    } catch (err) {
      if (err instanceof AppError && err.code === "rate_limited") {
        const retry = err.headers?.["Retry-After"] ?? "60";
        return page(ctx, event, 429, slug, q, v, { errors: {}, alert: { heading: "Too many listings at once from here", text: `Please try again in ${retry} seconds; what you typed is kept.` } });
      }
      throw err;
    }
    const errors = fieldErrors(q.slug, v);
    if (Object.keys(errors).length > 0) return page(ctx, event, 400, slug, q, v, { errors });
    const parsed = op.body.safeParse(checkoutBody(q.slug, v));
    if (!parsed.success) return page(ctx, event, 400, slug, q, v, { errors: { title: "Something in the form needs a change." } });
    let answer: CheckoutResponse;
    try {
      answer = (await runOperation(ctx, op, parsed.data, who)).data as CheckoutResponse;
    } catch (err) {
      if (err instanceof AppError && err.code === "validation_error") {
        const byField: Partial<Record<FormField, string>> = {};
        for (const i of err.issues ?? []) { const f = formFieldOf(i.path) ?? "title"; byField[f] ??= `${fieldLabel(v.kind, f)}: ${i.message}`; }
        return page(ctx, event, 400, slug, q, v, { errors: byField });
      }
      if (err instanceof AppError && err.code === "conflict") {
        // The town stopped taking listings between the page and the post (its lease ended): say why.
        return page(ctx, event, 409, slug, { ...q, selling: false, reason: err.message }, v);
      }
      if (err instanceof AppError && err.code === "upstream_error") {
        return page(ctx, event, 502, slug, q, v, { errors: {}, alert: { heading: "The payment page could not be opened", text: "The payment provider did not answer. Nothing was charged; please try again in a few minutes. What you typed is kept." } });
      }
      if (err instanceof AppError && err.code === "service_misconfigured") {
        // A deployment without a payment provider (the start-up log says what is missing).
        return page(ctx, event, 503, slug, q, v, { errors: {}, alert: { heading: "Purchases are off", text: "This site takes no payments at the moment. Nothing was charged; please try again later." } });
      }
      throw err;
    }
    if (answer.checkoutUrl) return redirect(answer.checkoutUrl);
    if (answer.rejected) {
      const field = formFieldOf(answer.rejected.field ?? "") ?? "title";
      const change = WHAT_TO_CHANGE[answer.rejected.rule] ?? `Change the ${fieldLabel(v.kind, field).toLowerCase()} and submit again.`;
      return page(ctx, event, 200, slug, q, v, {
        errors: { [field]: `${answer.rejected.reason} ${change}` },
        alert: { heading: "We cannot take this listing as it is", text: `${answer.rejected.reason} ${change} Nothing was charged; what you typed is kept.` },
      });
    }
    // Held for a person's look, or a free listing waiting for approval: the order page says what happens next.
    return redirect(`/orders/${answer.orderId}`);
  });
}
