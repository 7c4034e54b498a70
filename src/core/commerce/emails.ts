/**
 * Pure rendering of the transactional emails of the buying flow (to buyers and operators, who need
 * not be subscribers): an HTML and a plain-text part each, no list headers (they are not list mail),
 * the postal address in the footer. User text (titles, reasons) is escaped.
 */
import { escapeHtml as e, mailFooter, page, styleForEmail, type RenderedEmail } from "../edition/email-render.ts";
import type { Sender } from "../edition/email-headers.ts";
import { formatCents } from "./pricing.ts";

export type TransactionalTemplate = "listing_released" | "listing_published" | "listing_rejected" | "listing_expired" | "listing_ended" | "operator_activated" | "operator_sign_in";

export interface ListingMailData {
  orderId: string;
  product: "event" | "business";
  title: string;
  town: string;
  /** The machine-readable status (kept for mail queued before the order page existed; never linked). */
  statusUrl: string;
  /** The tier and its price (absent in mail queued before they were recorded). */
  tier?: "free" | "standard" | "featured";
  priceCents?: number;
  /** Rejected: the rule id and human reason. */
  rule?: string;
  reason?: string;
  /** Businesses: the last day shown. */
  endsOn?: string;
  townUrl?: string;
  /** Released after a hold: the payment link and when it closes. */
  checkoutUrl?: string;
  checkoutExpiresAt?: string;
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
}

function build(sender: Sender, to: string, subject: string, paragraphs: Array<{ text: string; link?: string | undefined; linkText?: string }>): RenderedEmail {
  const footerText = ["--", `citydaily sent this email about your purchase to ${to}.`, sender.postalAddress];
  const text = [...paragraphs.map((p) => (p.link ? `${p.text} ${p.link}` : p.text)), "", ...footerText].join("\n\n");
  const body = styleForEmail(`<h1>${e(subject)}</h1>
${paragraphs.map((p) => `<p>${e(p.text)}${p.link ? ` <a href="${e(p.link)}">${e(p.linkText ?? p.link)}</a>` : ""}</p>`).join("\n")}`);
  const html = page(subject, `${body}\n${mailFooter(`citydaily sent this email about your purchase to ${e(to)}.`, "", sender.postalAddress)}`, {
    preheader: paragraphs[0]?.text ?? subject,
    dateline: "Listings and town leases",
  });
  return { to, from: sender.from, subject, text, html, headers: { "Auto-Submitted": "auto-generated" } };
}

const what = (d: ListingMailData) => (d.product === "event" ? "event" : "business listing");

const TIER_NAME = { free: "Free", standard: "Standard", featured: "Featured" } as const;

/** What was bought, in words: "Featured event listing in Boise, Idaho: "Harvest Fair"". */
function bought(d: ListingMailData): string {
  const kind = d.product === "event" ? "event listing" : "business listing";
  return `${d.tier ? `${TIER_NAME[d.tier]} ${kind}` : kind.charAt(0).toUpperCase() + kind.slice(1)} in ${d.town}: "${d.title}"`;
}

/** The order's page for people (never the JSON status URL). */
const orderPage = (sender: Sender, d: ListingMailData) => ({ text: `Your order ${d.orderId}:`, link: `${sender.baseUrl}/orders/${d.orderId}` });

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
      return build(sender, to, `Your ${what(d)} "${d.title}" is live in ${d.town}`, [
        { text: `"${d.title}" is now published on the ${d.town} ${d.product === "event" ? "calendar" : "directory"}.` },
        { text: `You bought: ${bought(d)}.` },
        ...amount(d, true),
        ...(d.endsOn ? [{ text: `It runs until ${d.endsOn}.` }] : []),
        ...(d.townUrl ? [{ text: "See it on the town's page:", link: d.townUrl }] : []),
        orderPage(sender, d),
      ]);
    }
    case "listing_released": {
      const d = data as ListingMailData;
      return build(sender, to, `Your ${what(d)} "${d.title}" is approved: complete the payment`, [
        { text: `A person reviewed "${d.title}" for ${d.town} and approved it. It is published as soon as it is paid.` },
        { text: `Your listing: ${bought(d)}.` },
        ...amount(d, false),
        { text: "Pay here:", link: d.checkoutUrl },
        ...(d.checkoutExpiresAt ? [{ text: `The link is open until ${d.checkoutExpiresAt.replace("T", " ").slice(0, 16)} UTC.` }] : []),
        orderPage(sender, d),
      ]);
    }
    case "listing_rejected": {
      const d = data as ListingMailData;
      return build(sender, to, `Your ${what(d)} "${d.title}" was not accepted`, [
        { text: `A person reviewed "${d.title}" for ${d.town} and did not publish it.` },
        { text: `Reason: ${d.reason ?? "not given"}${d.rule ? ` (policy rule ${d.rule})` : ""}.` },
        { text: `Your listing: ${bought(d)}.` },
        { text: "Nothing was charged. The listing policy:", link: `${sender.baseUrl}/listing-policy` },
        orderPage(sender, d),
      ]);
    }
    case "listing_expired": {
      const d = data as ListingMailData;
      return build(sender, to, `Your checkout for "${d.title}" expired`, [
        { text: `The payment link for "${d.title}" in ${d.town} expired before it was paid. Nothing was charged and nothing was published.` },
        { text: `Your listing: ${bought(d)}.` },
        { text: "You can start a new order at any time." },
        orderPage(sender, d),
      ]);
    }
    case "listing_ended": {
      const d = data as ListingMailData;
      return build(sender, to, `Your ${what(d)} "${d.title}" has ended`, [
        { text: `"${d.title}" has finished its run in ${d.town} and is no longer shown.` },
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
        { text: `It works once, until ${d.expiresAt.replace("T", " ").slice(0, 16)} UTC. If you did not ask to sign in, ignore this email: nobody can sign in without it.` },
      ]);
    }
    default:
      throw new Error(`unknown transactional template ${template}`);
  }
}
