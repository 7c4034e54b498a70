/**
 * What a server-rendered page (api/http/html-page.ts: subscribe answers, manage and unsubscribe pages,
 * checkout, orders, the operator's pages) hands the site's renderer, so that it is drawn by the
 * site's own layout (src/layouts/Base.astro) through src/pages/server-page.astro: one header,
 * navigation, footer and stylesheet for every page a person sees.
 */
export interface ServerPage {
  title: string;
  /** The page's content below its heading: HTML the caller escaped. */
  body: string;
  /** The page's own path (its canonical address). */
  path: string;
  description?: string;
}

/** The renderer's path of the shell page (never published: no publish lists it). */
export const SERVER_PAGE_ROUTE = "/server-page";

/** What the buying page of a town shows (api/routes/commerce/advertise.ts -> src/pages/advertise-page.astro). */
export interface AdvertiseView {
  slug: string;
  town: string;
  state: string;
  /** The form's own address, `/advertise/{slug}`. */
  path: string;
  /** Whether the town takes listings now; when not, why, and the town page where it can be started or leased. */
  selling: boolean;
  notSelling?: string;
  kind: import("./listing-form.ts").ListingKind;
  tiers: import("../contract/commerce.ts").ListingTier[];
  values: import("./listing-form.ts").ListingFormValues;
  errors: Partial<Record<import("./listing-form.ts").FormField, string>>;
  /** A refusal or failure to show above the form (the screen's reason and what to change). */
  alert?: { heading: string; text: string };
  preview: {
    event?: import("../contract/resources.ts").CalendarEvent;
    business?: import("../contract/resources.ts").DirectoryListing;
    /** The listing's line in the morning email, rendered as the edition renders it; absent when the tier is not in the email. */
    emailHtml?: string;
    emailNote: string;
  };
  /** Where the buyer pays: "stripe" or the built-in page. */
  provider: string;
}

export const ADVERTISE_PAGE_ROUTE = "/advertise-page";
