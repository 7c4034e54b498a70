import type { CheckoutResponse, ListingTier } from "../../contract/commerce.ts";
import { operationsById } from "../../contract/operations/index.ts";
import { BUSINESS_RUN_DAYS } from "../../core/commerce/pricing.ts";
import { renderEditionHtml } from "../../core/edition/render-html.ts";
import { CALENDAR_DAYS, directoryLine, eventLine } from "../../core/edition/sections.ts";
import { AppError } from "../../core/errors.ts";
import { addDays, localDate } from "../../lib/time.ts";
import { formatLongDate } from "../../site/format.ts";
import { checkoutBody, emptyValues, fieldErrors, fieldLabel, formFieldOf, previewListing, valuesOf, type FormField, type ListingFormValues, type ListingKind } from "../../site/listing-form.ts";
import type { AdvertiseTownsView, AdvertiseView } from "../../site/pages/commerce.ts";
import { findPlaceBySlug } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { listCities } from "../places/cities.ts";
import { createBusinessCheckout, createListingCheckout } from "./checkout.ts";
import { admit } from "./buyer-pages.ts";
import { getListingQuote } from "./pricing.ts";

// The buying page of a town, for people, who buy through pages rather than the API
// (api/routes/commerce/advertise.ts): prices come from the listing quote, rules from the contract
// (src/site/listing-form.ts), the preview from the town page's components and the composer's lines;
// a post runs the same checkout, limit and screen as POST /api/listing-checkout (or business-checkout).

type Quote = ReturnType<typeof getListingQuote>;

const checkoutOps = { event: operationsById.createListingCheckout, business: operationsById.createBusinessCheckout };

const WHAT_TO_CHANGE: Record<string, string> = {
  "url-scheme": "Give the full address of your web page, starting with https://.",
  "url-shortener": "Give the full address your short link leads to.",
  "disposable-email": "Use an email address you keep: the receipt and your listing's news go there.",
  "past-event": "Check the date: it must be today or later, and the last day not before the first.",
  "outside-us": "Listings are for places and events in the United States.",
};

/** `GET /advertise`: every town with a newsletter, each to its buying page. */
export function advertiseTowns(ctx: AppContext): AdvertiseTownsView {
  return { states: listCities(ctx).states };
}

function quote(ctx: AppContext, slug: string): Quote | undefined {
  try {
    return getListingQuote(ctx, slug);
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

type Extra = Pick<AdvertiseView, "errors"> & Partial<AdvertiseView>;

function view(ctx: AppContext, slug: string, q: Quote, v: ListingFormValues, extra: Extra = { errors: {} }): AdvertiseView {
  return {
    slug: q.slug, town: q.city, state: q.state, path: `/advertise/${q.slug}`, selling: q.selling, notSelling: q.reason,
    kind: v.kind, tiers: (v.kind === "event" ? q.event : q.business) as ListingTier[], values: v, preview: preview(ctx, slug, v),
    provider: ctx.payments.name, ...extra,
  };
}

/** The buying page of a town with an empty form of `kind`; undefined for a slug that is no place. */
export function advertisePage(ctx: AppContext, slug: string, kind: ListingKind): AdvertiseView | undefined {
  const q = quote(ctx, slug);
  return q && view(ctx, slug, q, emptyValues(kind));
}

export type AdvertiseAnswer = { to: string } | { status: number; view: AdvertiseView };

/**
 * The buying form posted (`field` reads it): `action=preview` answers the page with the preview;
 * otherwise the checkout runs: a payment link is where to go, a held or free listing goes to its
 * order page, a refusal is the page again with the reason next to its field. Undefined for no such town.
 */
export async function advertiseCheckout(ctx: AppContext, slug: string, field: (name: string) => string | null, clientAddress: string): Promise<AdvertiseAnswer | undefined> {
  const q = quote(ctx, slug);
  if (!q) return undefined;
  const v = valuesOf(field);
  const page = (status: number, extra?: Extra, quoted: Quote = q): AdvertiseAnswer => ({ status, view: view(ctx, slug, quoted, v, extra) });
  if (field("action") === "preview" || !q.selling) return page(200);
  const op = checkoutOps[v.kind];
  try {
    admit(ctx, op.rateLimit, clientAddress);
  } catch (err) {
    if (err instanceof AppError && err.code === "rate_limited") {
      const retry = err.headers?.["Retry-After"] ?? "60";
      return page(429, { errors: {}, alert: { heading: "Too many listings at once from here", text: `Please try again in ${retry} seconds; what you typed is kept.` } });
    }
    throw err;
  }
  const errors = fieldErrors(q.slug, v);
  if (Object.keys(errors).length > 0) return page(400, { errors });
  let answer: CheckoutResponse | "invalid";
  try {
    answer = await runCheckout(ctx, q.slug, v);
  } catch (err) {
    return refusal(err, v, page, q);
  }
  if (answer === "invalid") return page(400, { errors: { title: "Something in the form needs a change." } });
  if (answer.checkoutUrl) return { to: answer.checkoutUrl };
  if (answer.rejected) {
    const f = formFieldOf(answer.rejected.field ?? "") ?? "title";
    const change = WHAT_TO_CHANGE[answer.rejected.rule] ?? `Change the ${fieldLabel(v.kind, f).toLowerCase()} and submit again.`;
    return page(200, {
      errors: { [f]: `${answer.rejected.reason} ${change}` },
      alert: { heading: "We cannot take this listing as it is", text: `${answer.rejected.reason} ${change} Nothing was charged; what you typed is kept.` },
    });
  }
  // Held for a person's look, or a free listing waiting for approval: the order page says what happens next.
  return { to: `/orders/${answer.orderId}` };
}

/** The checkout of the form's kind, through the contract's body; "invalid" when the body is not one. */
async function runCheckout(ctx: AppContext, slug: string, v: ListingFormValues): Promise<CheckoutResponse | "invalid"> {
  const body = checkoutBody(slug, v);
  if (v.kind === "event") {
    const parsed = checkoutOps.event.body.safeParse(body);
    return parsed.success ? createListingCheckout(ctx, parsed.data) : "invalid";
  }
  const parsed = checkoutOps.business.body.safeParse(body);
  return parsed.success ? createBusinessCheckout(ctx, parsed.data) : "invalid";
}

/** A checkout that failed, as the page says it: next to the fields, or above the form. */
function refusal(err: unknown, v: ListingFormValues, page: (status: number, extra?: Extra, quoted?: Quote) => AdvertiseAnswer, q: Quote): AdvertiseAnswer {
  if (!(err instanceof AppError)) throw err;
  if (err.code === "validation_error") {
    const byField: Partial<Record<FormField, string>> = {};
    for (const i of err.issues ?? []) { const f = formFieldOf(i.path) ?? "title"; byField[f] ??= `${fieldLabel(v.kind, f)}: ${i.message}`; }
    return page(400, { errors: byField });
  }
  // The town stopped taking listings between the page and the post (its lease ended): say why.
  if (err.code === "conflict") return page(409, undefined, { ...q, selling: false, reason: err.message });
  if (err.code === "upstream_error") {
    return page(502, { errors: {}, alert: { heading: "The payment page could not be opened", text: "The payment provider did not answer. Nothing was charged; please try again in a few minutes. What you typed is kept." } });
  }
  // A deployment without a payment provider (the start-up log says what is missing).
  if (err.code === "service_misconfigured") {
    return page(503, { errors: {}, alert: { heading: "Purchases are off", text: "This site takes no payments at the moment. Nothing was charged; please try again later." } });
  }
  throw err;
}
