/**
 * Pure rendering of the transactional emails of the buying flow (to buyers and operators, who need
 * not be subscribers): an HTML and a plain-text part each, no list headers (they are not list mail),
 * the postal address in the footer.
 *
 * Nobody confirmed the address a buyer typed, so an email to it carries no free text typed by anyone
 * but the service: not the listing's title (the buyer's), not a reviewer's reason (the operator's or
 * staff's). Whoever typed someone else's address cannot make citydaily mail them their words. The
 * email names the listing by kind, town, tier, date and order number, and links to the order page,
 * which shows the title and the reason.
 */
import { mailFooter, page, styleForEmail, type RenderedEmail } from "../edition/email-render.ts";
import type { Sender } from "../edition/email-headers.ts";
import { dateParts } from "../edition/escape.ts";
import { deadlineWords as until } from "../places/town-time.ts";
import { formatCents } from "./pricing.ts";
import { escapeHtml as e } from "../../lib/html.ts";

export type TransactionalTemplate = "listing_released" | "listing_published" | "listing_rejected" | "listing_expired" | "listing_ended" | "operator_activated" | "operator_sign_in";

export interface ListingMailData {
  orderId: string;
  product: "event" | "business";
  /** The buyer's title: kept in the payload for staff, never rendered (see above). */
  title: string;
  /** Events: the first day (YYYY-MM-DD), a date the contract validated, named in the email. */
  startsOn?: string;
  town: string;
  /** The machine-readable status (kept for mail queued before the order page existed; never linked). */
  statusUrl: string;
  /** The tier and its price (absent in mail queued before they were recorded). */
  tier?: "free" | "standard" | "featured";
  priceCents?: number;
  /** Rejected: the rule id. (A reason in mail queued before reasons left the email is not rendered.) */
  rule?: string;
  reason?: string;
  /** Businesses: the last day shown. */
  endsOn?: string;
  townUrl?: string;
  /** Released after a hold: the payment link and when it closes. */
  checkoutUrl?: string;
  checkoutExpiresAt?: string;
  /** The town's zone: the email says when the link closes on its clock (mail queued without it: UTC). */
  timeZone?: string;
}

export interface OperatorMailData {
  town: string;
  priceCents: number;
  /** The desk's sign-in page (`/operator`); it carries no token and no address. */
  operatorUrl: string;
}

export interface SignInMailData {
  /** The one-time link (`/operator/sign-in/{token}`). */
  signInUrl: string;
  /** When it stops working (ISO). */
  expiresAt: string;
  /** The operator's town's zone: the email says the expiry on its clock (mail queued without it: UTC). */
  timeZone?: string;
}

const PURCHASE = (to: string) => `citydaily sent this email about your purchase to ${to}.`;

/** `why` is the footer's sentence of why the email came (a purchase, unless told otherwise), given the address. */
function build(sender: Sender, to: string, subject: string, paragraphs: Array<{ text: string; link?: string | undefined; linkText?: string }>, why = PURCHASE): RenderedEmail {
  const footerText = ["--", why(to), sender.postalAddress];
  const text = [...paragraphs.map((p) => (p.link ? `${p.text} ${p.link}` : p.text)), "", ...footerText].join("\n\n");
  const body = styleForEmail(`<h1>${e(subject)}</h1>
${paragraphs.map((p) => `<p>${e(p.text)}${p.link ? ` <a href="${e(p.link)}">${e(p.linkText ?? p.link)}</a>` : ""}</p>`).join("\n")}`);
  const html = page(subject, `${body}\n${mailFooter(why(e(to)), "", sender.postalAddress)}`, {
    preheader: paragraphs[0]?.text ?? subject,
    dateline: "Listings and town leases",
  });
  return { to, from: sender.from, subject, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}

const TIER_NAME = { free: "Free", standard: "Standard", featured: "Featured" } as const;

/** The listing in the service's own words: "event listing for Saturday, November 28, 2026 in Boise, Idaho". */
function listing(d: ListingMailData): string {
  const kind = d.product === "event" ? "event listing" : "business listing";
  const day = d.startsOn && /^\d{4}-\d{2}-\d{2}$/.test(d.startsOn) ? ` for ${dateParts(d.startsOn).long}` : "";
  return `${kind}${day} in ${d.town}`;
}

/** What was bought, in words: "Featured event listing for Saturday, November 28, 2026 in Boise, Idaho (order lo_...)". */
function bought(d: ListingMailData): string {
  const words = listing(d);
  return `${d.tier ? `${TIER_NAME[d.tier]} ${words}` : words.charAt(0).toUpperCase() + words.slice(1)} (order ${d.orderId})`;
}

/** The order's page for people (never the JSON status URL): it shows the title and any reviewer's reason. */
const orderPage = (sender: Sender, d: ListingMailData, words = "Your order, with the listing as you wrote it:") => ({ text: words, link: `${sender.baseUrl}/orders/${d.orderId}` });

/** The amount, as the buyer paid it (or will). */
function amount(d: ListingMailData, paid: boolean): Array<{ text: string }> {
  if (d.priceCents === undefined) return [];
  if (d.priceCents === 0) return [{ text: "Amount: free." }];
  return [{ text: paid ? `Amount paid: ${formatCents(d.priceCents)}.` : `Amount to pay: ${formatCents(d.priceCents)}. Nothing was charged.` }];
}

export function renderTransactional(sender: Sender, to: string, template: string, data: unknown): RenderedEmail {
  switch (template as TransactionalTemplate) {
    case "listing_published": {
      const d = data as ListingMailData;
      return build(sender, to, `Your ${listing(d)} is live`, [
        { text: `Your ${listing(d)} is now published on the town's ${d.product === "event" ? "calendar" : "directory"}.` },
        { text: `You bought: ${bought(d)}.` },
        ...amount(d, true),
        ...(d.endsOn ? [{ text: `It runs until ${d.endsOn}.` }] : []),
        ...(d.townUrl ? [{ text: "See it on the town's page:", link: d.townUrl }] : []),
        orderPage(sender, d),
      ]);
    }
    case "listing_released": {
      const d = data as ListingMailData;
      return build(sender, to, `Your ${listing(d)} is approved: complete the payment`, [
        { text: `A person reviewed your ${listing(d)} and approved it. It is published as soon as it is paid.` },
        { text: `Your listing: ${bought(d)}.` },
        ...amount(d, false),
        { text: "Pay here:", link: d.checkoutUrl },
        ...(d.checkoutExpiresAt ? [{ text: `The link is open until ${until(d.checkoutExpiresAt, d.timeZone)}.` }] : []),
        orderPage(sender, d),
      ]);
    }
    case "listing_rejected": {
      const d = data as ListingMailData;
      return build(sender, to, `Your ${listing(d)} was not accepted`, [
        { text: `A person reviewed your ${listing(d)} and did not publish it.` },
        orderPage(sender, d, "Their reason is on your order page:"),
        { text: `Your listing: ${bought(d)}.` },
        { text: "Nothing was charged. The listing policy:", link: `${sender.baseUrl}/listing-policy` },
      ]);
    }
    case "listing_expired": {
      const d = data as ListingMailData;
      return build(sender, to, `Your checkout for ${d.product === "event" ? "an" : "a"} ${listing(d)} expired`, [
        { text: `The payment link for your ${listing(d)} expired before it was paid. Nothing was charged and nothing was published.` },
        { text: `Your listing: ${bought(d)}.` },
        { text: "You can start a new order at any time." },
        orderPage(sender, d),
      ]);
    }
    case "listing_ended": {
      const d = data as ListingMailData;
      return build(sender, to, `Your ${listing(d)} has ended`, [
        { text: `Your ${listing(d)} has finished its run and is no longer shown.` },
        { text: `You bought: ${bought(d)}.` },
        ...amount(d, true),
        orderPage(sender, d),
      ]);
    }
    case "operator_activated": {
      const d = data as OperatorMailData;
      return build(sender, to, `You now operate the ${d.town} daily`, [
        { text: `Your lease of ${d.town} is active (${formatCents(d.priceCents)} a month). You receive half the net of every listing sold in your town.` },
        { text: "Your operator desk (tomorrow's note, feeds, listings to review, your readers, your statement and payouts) is at", link: d.operatorUrl, linkText: "citydaily's operator desk" },
        { text: `Sign in there with this email address (${to}): we email you a link that works once, for 15 minutes.` },
      ]);
    }
    case "operator_sign_in": {
      const d = data as SignInMailData;
      return build(sender, to, "Your citydaily sign-in link", [
        { text: "Open this link to sign in to your operator desk:", link: d.signInUrl, linkText: "Sign in to the operator desk" },
        { text: `It works once, until ${until(d.expiresAt, d.timeZone)}. If you did not ask to sign in, ignore this email: nobody can sign in without it.` },
      ], (address) => `citydaily sent this email to ${address} because a sign-in link to the operator desk was asked for with this address.`);
    }
    default:
      throw new Error(`unknown transactional template ${template}`);
  }
}
