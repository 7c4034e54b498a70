import type { H3, H3Event } from "h3";
import type { ListingOrder } from "../../../src/contract/commerce.ts";
import { operationsById } from "../../../src/contract/operations/index.ts";
import { AppError } from "../../../src/core/errors.ts";
import { addDays } from "../../../src/lib/time.ts";
import { CALENDAR_DAYS } from "../../../src/core/edition/sections.ts";
import { formatCents } from "../../../src/core/commerce/pricing.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { runOperation } from "../../../src/services/operations/bindings.ts";
import { clockWords, shortDay } from "../../../src/core/calendar/event-time.ts";
import { formatLongDate } from "../../../src/site/format.ts";
import { deadlineWords } from "../../../src/core/places/town-time.ts";
import { findOrder } from "../../../src/store/commerce/orders.ts";
import { listingNumbers, listingNumbersCsv } from "../../../src/services/readers/clicks.ts";
import { clientAddress } from "../../http/client-address.ts";
import { htmlPage } from "../../http/html-page.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * GET /orders/{id}: a listing order for the person who bought it, the human view of
 * GET /api/listing-order (the same operation): its status in words, what was bought and paid, and
 * once published, where it appears. While something is still to happen the page reloads itself
 * (a meta refresh: no JavaScript needed). The checkout's success and cancel addresses lead here.
 */
const op = operationsById.getListingOrder;

/** Seconds between reloads while the status may change by itself (a payment lands in seconds; a person's look takes longer). */
const REFRESH: Partial<Record<ListingOrder["status"], number>> = { pending_payment: 30, paid: 5, held: 60, awaiting_review: 60 };

const HEADINGS: Record<ListingOrder["status"], string> = {
  pending_payment: "Waiting for your payment",
  paid: "Paid: publishing your listing",
  published: "Your listing is published",
  awaiting_review: "Waiting for a person's approval",
  held: "A person will look at your listing first",
  rejected: "Your listing was not accepted",
  expired: "The payment link ran out",
  ended: "Your listing has run its course",
  refunded: "Your listing was refunded",
};

const day = (iso: string) => formatLongDate(iso.slice(0, 10));

function whatHappens(ctx: AppContext, o: ListingOrder, cancelled: boolean): string {
  const town = `${o.town.city}, ${o.town.state}`;
  const hours = ctx.config.listingCheckoutHours;
  switch (o.status) {
    case "pending_payment":
      // The link's deadline on the town's clock (the contract's order has no zone: the stored order's place has).
      return `${cancelled ? "<p>You left the checkout: nothing was charged.</p>" : ""}<p>Your listing is published as soon as you pay${o.checkoutExpiresAt ? `; the payment link is open until ${e(deadlineWords(o.checkoutExpiresAt, findOrder(ctx.db, o.id)?.timezone))}` : ""}.</p>
${o.checkoutUrl ? `<p class="actions"><a class="button" href="${e(o.checkoutUrl)}">Pay ${e(formatCents(o.priceCents))}</a></p>` : ""}`;
    case "paid":
      return "<p>Your payment arrived. The listing goes up within seconds.</p>";
    case "published":
      return "";
    case "awaiting_review":
      return `<p>Free listings are published after a person at citydaily approves them. We email you as soon as it is published, or why not. Nothing is charged.</p>`;
    case "held":
      return `<p>${e(o.held?.reason ?? "A person at citydaily looks at this listing before it can be paid.")}</p>
<p>What happens next: a person at citydaily reads it. If it is fine, we email you a payment link (open for ${hours} hours) and the listing is published as soon as you pay; if not, we email you why. Nothing is charged until you pay.</p>`;
    case "rejected":
      // A person's reason is shown here, never in the email (nobody confirmed the buyer's address).
      return `<p>${o.rejected?.rule === "staff-review" ? `A person who reviewed it gave this reason: <q data-testid="reason">${e(o.rejected.reason)}</q>` : e(o.rejected?.reason ?? "It does not meet the listing policy.")} Nothing was charged.</p>
<p><a href="/advertise/${e(o.town.slug)}?kind=${o.product}">Start a new listing in ${e(town)}</a> · <a href="/listing-policy">The listing policy</a></p>`;
    case "expired":
      return `<p>The listing was not paid before its link ran out, so it was not published. Nothing was charged.</p>
<p><a href="/advertise/${e(o.town.slug)}?kind=${o.product}">Start again</a></p>`;
    case "ended":
      return `<p>It ran ${o.product === "business" ? "its 30 days" : "until the event was over"} and is no longer shown. <a href="/advertise/${e(o.town.slug)}?kind=${o.product}">List it again</a></p>`;
    case "refunded":
      return "<p>The payment was refunded and the listing taken down.</p>";
  }
}

/** Where a published listing appears, with links. */
function whereItAppears(ctx: AppContext, o: ListingOrder): string {
  if (o.status !== "published") return "";
  const town = `${o.town.city}, ${o.town.state}`;
  const items = [`<li>On the <a href="/${e(o.town.slug)}#${o.product === "event" ? "calendar" : "directory"}-heading">${e(town)} page</a>, in its ${o.product === "event" ? "calendar" : "directory"}${o.runEndsAt ? ` until ${e(day(o.runEndsAt))}` : ""}</li>`,
    `<li>In <a href="/api/city/${e(o.town.slug)}">the town's data</a> that apps and assistants read</li>`];
  if (o.tier === "featured" && o.product === "event" && o.startsAt) {
    // The composer's calendar looks CALENDAR_DAYS ahead: the email carries it from then (or from publication) to its day.
    const d = o.startsAt.slice(0, 10);
    const published = (o.publishedAt ?? o.createdAt).slice(0, 10);
    const from = addDays(d, -CALENDAR_DAYS) > published ? addDays(d, -CALENDAR_DAYS) : published;
    items.push(`<li>In ${e(o.town.city)}'s morning email from ${e(day(from))} to ${e(day(d))}, on the calendar; the edition of its day will be at <a href="/${e(o.town.slug)}/${e(d)}">${e(o.town.city)}, ${e(day(d))}</a></li>`);
  } else if (o.tier === "featured") {
    items.push(`<li>Mentioned by name in ${e(o.town.city)}'s morning email once a week</li>`);
  }
  return `<h2>Where it appears</h2><ul>${items.join("")}</ul>`;
}

/** What the listing got: the editions and emails that carried it, and clicks on its link, per day. */
function numbers(ctx: AppContext, o: ListingOrder): string {
  if (o.status !== "published" && o.status !== "ended") return "";
  const n = listingNumbers(ctx, o.id);
  if (!n) return "";
  const carried = n.editions.length === 0
    ? `<p>No edition has carried it yet${o.tier === "featured" ? "" : ": standard listings are on the town page and in its data, not in the email"}.</p>`
    : `<p>${n.editions.length === 1 ? "One edition" : `${n.editions.length} editions`} carried it, delivered in ${n.delivered.toLocaleString("en-US")} email${n.delivered === 1 ? "" : "s"}; its link was followed ${n.totalClicks.toLocaleString("en-US")} time${n.totalClicks === 1 ? "" : "s"} from them.</p>`;
  const days = [...new Set([...n.editions.map((x) => x.date), ...n.clicks.map((c) => c.day)])].sort();
  const table = days.length === 0 ? "" : `<section class="scroll" aria-label="By day" tabindex="0"><table data-testid="numbers">
<thead><tr><th scope="col">Day</th><th scope="col">Edition</th><th scope="col" class="num">Emails</th><th scope="col" class="num">Clicks</th></tr></thead>
<tbody>${days.map((d) => {
    const ed = n.editions.find((x) => x.date === d);
    const clicks = n.clicks.find((c) => c.day === d)?.clicks ?? 0;
    return `<tr><td>${e(shortDay(d))}</td><td>${ed ? `<a href="/${e(o.town.slug)}/${e(d)}">Carried it</a>` : "No"}</td><td class="num">${ed ? ed.delivered.toLocaleString("en-US") : ""}</td><td class="num">${clicks}</td></tr>`;
  }).join("")}</tbody></table></section>
<p><a href="/orders/${e(o.id)}/numbers.csv" download>Download these numbers (CSV)</a></p>`;
  return `<h2>How it is doing</h2>${carried}${table}
<p class="status">Clicks are counted in total per link and day, through citydaily's own redirect; nothing says who clicked (no cookies, no pixels, no reader ids). Link scanners of mail servers are left out. Page views of the town page are not counted.</p>`;
}

export async function orderPage(ctx: AppContext, event: H3Event, id: string): Promise<Response> {
  const notFound = () => htmlPage(ctx, 404, "No such order", "<p>Check the link in your email: an order address ends in its number, lo_ followed by 36 letters, digits and hyphens.</p>");
  const input = op.query.safeParse({ id });
  if (!input.success) return notFound();
  let o: ListingOrder;
  try {
    o = (await runOperation(ctx, op, input.data, { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false })).data as ListingOrder;
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") return notFound();
    throw err;
  }
  const cancelled = event.url.searchParams.get("checkout") === "cancelled";
  // Reloading is announced and can be stopped (WCAG 2.2.1): `?updates=off` answers without the Refresh header.
  const still = event.url.searchParams.get("updates") !== "off";
  const refresh = REFRESH[o.status];
  const updating = refresh === undefined ? "" : still
    ? `<p class="status" data-testid="updates">This page updates by itself every ${refresh} seconds. <a href="/orders/${e(o.id)}?updates=off">Stop updating</a></p>`
    : `<p class="status" data-testid="updates">Updates are off. <a href="/orders/${e(o.id)}">Check again</a></p>`;
  const what = `${o.product === "event" ? "Event" : "Business"} listing, ${o.tier}`;
  const paid = o.paidAt ? `${formatCents(o.priceCents)}, paid ${day(o.paidAt)}` : o.priceCents === 0 ? "Free" : `${formatCents(o.priceCents)} (not paid${o.status === "pending_payment" ? " yet" : ""})`;
  const facts: Array<[string, string]> = [
    ["Status", `<span data-testid="status">${e(HEADINGS[o.status])}</span>`],
    ["What", e(`${what} in ${o.town.city}, ${o.town.state}`)],
    [o.product === "event" ? "Event" : "Business", `<strong>${e(o.title)}</strong>`],
    ...(o.startsAt ? [["When", e(o.startsAt.length > 10 ? `${day(o.startsAt)}, ${clockWords(o.startsAt.slice(11, 16))}` : day(o.startsAt)) + (o.endsAt ? ` to ${e(day(o.endsAt))}` : "")] as [string, string]] : []),
    ...(o.venue ? [["Venue", e(o.venue)] as [string, string]] : []),
    ...(o.address ? [["Address", e(o.address)] as [string, string]] : []),
    ...(o.category ? [["Category", e(o.category)] as [string, string]] : []),
    ["Web page", `<a href="${e(o.url)}">${e(o.url)}</a>`],
    ["Price", e(paid)],
    ["Order", `<code>${e(o.id)}</code>`],
  ];
  const body = `${whatHappens(ctx, o, cancelled)}
${updating}
<dl class="facts">${facts.map(([k, v]) => `<dt>${e(k)}</dt><dd>${v}</dd>`).join("")}</dl>
${whereItAppears(ctx, o)}
${numbers(ctx, o)}
<p class="status">Keep this page's address to check on your order; the emails about it link here. For programs: <a href="${e(o.statusUrl)}">this order as JSON</a>.</p>`;
  return htmlPage(ctx, 200, HEADINGS[o.status], body, { refreshSeconds: still ? refresh : undefined, path: `/orders/${o.id}` });
}

export function orderPageRoutes(app: H3, ctx: AppContext): void {
  app.get("/orders/:id", (event) => orderPage(ctx, event, event.context.params!.id));
  app.get("/orders/:id/numbers.csv", (event) => {
    const n = op.query.safeParse({ id: event.context.params!.id }).success ? listingNumbers(ctx, event.context.params!.id) : undefined;
    if (!n) return htmlPage(ctx, 404, "No numbers yet", "<p>An order has numbers once its listing is published. Check the link in your email.</p>");
    return new Response(listingNumbersCsv(n), { headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${event.context.params!.id}-numbers.csv"`, "Cache-Control": "no-store" } });
  });
}
