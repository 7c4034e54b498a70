import type { ListingOrder, ListingTier } from "../../contract/commerce.ts";
import type { CalendarEvent, DirectoryListing } from "../../contract/resources.ts";
import type { FormField, ListingFormValues, ListingKind } from "../listing-form.ts";

// The buyer's pages, rendered per request (the buying page, orders, the lease, the local hosted
// checkout): their views, drawn by src/pages/on-request/commerce/. Views carry what the page shows;
// the page's words are in the page.

/** What the buying page of a town shows (api/routes/commerce/advertise.ts -> commerce/advertise). */
export interface AdvertiseView {
  slug: string;
  town: string;
  state: string;
  /** The form's own address, `/advertise/{slug}`. */
  path: string;
  /** Whether the town takes listings now; when not, why, and the town page where it can be started or leased. */
  selling: boolean;
  notSelling?: string;
  kind: ListingKind;
  tiers: ListingTier[];
  values: ListingFormValues;
  errors: Partial<Record<FormField, string>>;
  /** A refusal or failure to show above the form (the screen's reason and what to change). */
  alert?: { heading: string; text: string };
  preview: {
    event?: CalendarEvent;
    business?: DirectoryListing;
    /** The listing's line in the morning email, rendered as the edition renders it; absent when the tier is not in the email. */
    emailHtml?: string;
    emailNote: string;
  };
  /** Where the buyer pays: "stripe" or the built-in page. */
  provider: string;
}

/** `GET /advertise`: every town with a newsletter, by state, each to its buying page. */
export interface AdvertiseTownsView {
  states: Array<{ state: string; cities: Array<{ city: string; slug: string }> }>;
}

/** What a published listing got (src/services/readers/clicks.ts `listingNumbers`). */
export interface OrderNumbers {
  editions: Array<{ date: string; delivered: number }>;
  clicks: Array<{ day: string; clicks: number }>;
  delivered: number;
  totalClicks: number;
}

/** `GET /orders/{id}`: a listing order for the person who bought it. */
export interface OrderPageView {
  order: ListingOrder;
  /** The town's zone: the payment link's deadline is said on the town's clock. */
  timezone?: string;
  /** How long a held listing's emailed payment link stays open. */
  checkoutHours: number;
  /** Back from the checkout's Cancel (`?checkout=cancelled`). */
  cancelled: boolean;
  /** Seconds between reloads while the status may change by itself; absent when it cannot. */
  refreshSeconds?: number;
  /** Whether it reloads now (`?updates=off` stops it, WCAG 2.2.1). */
  updating: boolean;
  /** Once published (or ended): the editions and emails that carried it and its clicks. */
  numbers?: OrderNumbers;
}

/** What went wrong with a lease form's post, said above the form or next to its field. */
export type LeaseProblem = { kind: "email" } | { kind: "busy"; retryAfter: string } | { kind: "upstream" } | { kind: "off" };

/** `GET /lease/{slug}`: a town's monthly price, an email field and the newsletter's checkbox. */
export interface LeasePageView {
  slug: string;
  town: string;
  state: string;
  /** False while the town is leased or reserved by a checkout in progress. */
  available: boolean;
  priceCents: number;
  subscribers: number;
  /** The price's tier: it covers up to `tier` thousand subscribers. */
  tier: number;
  reservationMinutes: number;
  typed: { email: string; subscribe: boolean };
  problem?: LeaseProblem;
}

/** The local provider's hosted checkout page (`/checkout/{session}`), or its answer to a post. */
export type CheckoutPageView =
  | { state: "open"; id: string; description: string; amountCents: number; subscription: boolean; email: string; expiresAt: string; timezone?: string }
  | { state: "complete"; description: string; successUrl: string }
  | { state: "expired"; description: string }
  /** Pay was pressed with an address that is not one. */
  | { state: "bad-email"; id: string };

/** A lease's success or cancel page (`/purchase/done?lease=`, `/purchase/cancelled?lease=`). */
export interface PurchasePageView {
  paid: boolean;
  town: string;
  state: string;
  status: string;
  reservedUntil: string;
  timezone: string;
}

/** `GET /listing-policy`: content/listing-policy.md, rendered by marked (our own file, not user input). */
export interface ListingPolicyView {
  html: string;
}

/** The 404 pages of the buyer's addresses: what was not found. */
export interface CommerceMissingView {
  what: "advertise-town" | "lease-town" | "order" | "numbers" | "checkout";
}

declare module "./on-request.ts" {
  interface OnRequestViews {
    "commerce/advertise": AdvertiseView;
    "commerce/towns": AdvertiseTownsView;
    "commerce/order": OrderPageView;
    "commerce/lease": LeasePageView;
    "commerce/checkout": CheckoutPageView;
    "commerce/purchase": PurchasePageView;
    "commerce/listing-policy": ListingPolicyView;
    "commerce/missing": CommerceMissingView;
  }
}
