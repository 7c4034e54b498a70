import { BusinessCheckoutRequest, EventCheckoutRequest } from "../contract/commerce.ts";
import type { CalendarEvent, DirectoryListing } from "../contract/resources.ts";
import { safeUrl } from "../lib/safe-url.ts";

/**
 * The buying page's form (api/routes/commerce/advertise.ts, src/pages/on-request/commerce/advertise.astro): its fields, how
 * they become the contract's checkout body, and the words shown next to a field that needs a change.
 * Pure and free of Node: the page's script imports it too, so the inline validation with JavaScript
 * and the answer of the form without it apply the very same rules (the contract's schemas).
 */
export type ListingKind = "event" | "business";

export interface ListingFormValues {
  kind: ListingKind;
  tier: string;
  title: string;
  description: string;
  url: string;
  /** Events: the day (YYYY-MM-DD), the start time (HH:MM, optional) and the last day (optional). */
  startsDate: string;
  startsTime: string;
  endsDate: string;
  venue: string;
  /** Businesses. */
  address: string;
  category: string;
  buyerEmail: string;
}

export const TEXT_FIELDS = ["title", "description", "url", "startsDate", "startsTime", "endsDate", "venue", "address", "category", "buyerEmail"] as const;
export type FormField = (typeof TEXT_FIELDS)[number] | "tier";

/** The most characters a text field takes: the contract's own limit (the page's `maxlength`). */
export function fieldMaxLength(field: FormField): number | undefined {
  const shape: Record<string, unknown> = { ...EventCheckoutRequest.shape, ...BusinessCheckoutRequest.shape };
  let schema = shape[field] as { maxLength?: number | null; def?: { type?: string }; unwrap?: () => unknown } | undefined;
  if (schema?.def?.type === "optional" && schema.unwrap) schema = schema.unwrap() as typeof schema;
  return schema?.maxLength ?? undefined;
}

/** Each field's label as the page shows it (also what an error names). */
export function fieldLabel(kind: ListingKind, field: FormField): string {
  const labels: Record<FormField, string> = {
    tier: "Listing", title: kind === "event" ? "Event name" : "Business name", description: "Description", url: "Web page",
    startsDate: "Date", startsTime: "Start time", endsDate: "Last day", venue: "Venue", address: "Address", category: "Category",
    buyerEmail: "Your email",
  };
  return labels[field];
}

/** The fields of one kind of listing, in the page's order. */
export function fieldsOf(kind: ListingKind): FormField[] {
  return kind === "event"
    ? ["tier", "title", "description", "startsDate", "startsTime", "endsDate", "venue", "url", "buyerEmail"]
    : ["tier", "title", "category", "description", "address", "url", "buyerEmail"];
}

export function emptyValues(kind: ListingKind, tier = "standard"): ListingFormValues {
  return { kind, tier, title: "", description: "", url: "", startsDate: "", startsTime: "", endsDate: "", venue: "", address: "", category: "", buyerEmail: "" };
}

/** The values of a posted form (or of the page's form in the browser); anything missing is empty. */
export function valuesOf(get: (name: string) => string | null | undefined): ListingFormValues {
  const kind: ListingKind = get("kind") === "business" ? "business" : "event";
  const v = emptyValues(kind, (get("tier") ?? "").trim());
  for (const f of TEXT_FIELDS) v[f] = (get(f) ?? "").slice(0, 4000);
  return v;
}

/** The checkout body of the contract (`/api/listing-checkout` or `/api/business-checkout`). */
export function checkoutBody(slug: string, v: ListingFormValues): Record<string, unknown> {
  const common = { slug, tier: v.tier, title: v.title, description: v.description, url: v.url.trim(), buyerEmail: v.buyerEmail.trim() };
  if (v.kind === "business") return { ...common, address: v.address, category: v.category };
  const time = v.startsTime.trim();
  return {
    ...common,
    // A time without an offset is the town's own local time (the contract's rule).
    startsAt: time ? `${v.startsDate.trim()}T${time}` : v.startsDate.trim(),
    ...(v.endsDate.trim() ? { endsAt: v.endsDate.trim() } : {}),
    ...(v.venue.trim() ? { venue: v.venue } : {}),
  };
}

/** The form field a contract path or a screen rule's field belongs to. */
export function formFieldOf(path: string): FormField | undefined {
  const top = path.split(".")[0];
  if (top === "startsAt") return "startsDate";
  if (top === "endsAt") return "endsDate";
  return (TEXT_FIELDS as readonly string[]).includes(top) || top === "tier" ? (top as FormField) : undefined;
}

interface Issue { path: ReadonlyArray<PropertyKey>; code?: string; message: string; maximum?: unknown; minimum?: unknown }

/** Plain words for one schema issue on one field. */
function wordsFor(kind: ListingKind, field: FormField, issue: Issue): string {
  const label = fieldLabel(kind, field);
  if (field === "tier") return "Choose one of the listings above.";
  if (issue.code === "too_big") return `${label}: at most ${String(issue.maximum)} characters.`;
  if (field === "buyerEmail") return "Enter the email address where we send the receipt, like name@example.com.";
  if (field === "startsDate" || field === "endsDate") return field === "startsDate" ? "Enter the day of the event." : "Enter a real day, or leave it empty for a one-day event.";
  if (issue.code === "too_small") return `Enter the ${label.toLowerCase()}.`;
  return `${label}: ${issue.message}.`;
}

/** What needs a change, by field (empty when the form can be submitted), from the contract's schema. */
export function fieldErrors(slug: string, v: ListingFormValues): Partial<Record<FormField, string>> {
  const schema = v.kind === "event" ? EventCheckoutRequest : BusinessCheckoutRequest;
  const out: Partial<Record<FormField, string>> = {};
  const parsed = schema.safeParse(checkoutBody(slug, v));
  if (!parsed.success) {
    for (const issue of parsed.error.issues as Issue[]) {
      const field = formFieldOf(issue.path.map(String).join("."));
      if (field && !out[field]) out[field] = wordsFor(v.kind, field, issue);
    }
  }
  // The time is part of `startsAt`: a malformed one is named on its own field.
  if (v.kind === "event" && v.startsTime.trim() && !/^\d{2}:\d{2}$/.test(v.startsTime.trim())) {
    out.startsTime = "Enter the time like 19:30, or leave it empty.";
    if (out.startsDate && /^\d{4}-\d{2}-\d{2}$/.test(v.startsDate.trim())) delete out.startsDate;
  }
  // The contract takes any text as a link; the policy takes only a full web address (rule url-scheme).
  if (!out.url && v.url.trim() && !safeUrl(v.url.trim())?.match(/^https?:\/\/[^/]+\.[^/]+/)) out.url = "Enter the full address of the web page, starting with https://";
  return out;
}

/**
 * The listing as readers will see it, in the shapes the town page (CalendarEvent, DirectoryListing)
 * and the edition's composer take; undefined while it lacks what those need.
 */
export function previewListing(v: ListingFormValues, runEndsOn: string): { event?: CalendarEvent; business?: DirectoryListing } {
  const title = v.title.trim() || (v.kind === "event" ? "Your event" : "Your business");
  const common = { id: "preview", title, description: v.description.trim(), url: safeUrl(v.url.trim()), featured: v.tier === "featured", sponsored: v.tier !== "free" };
  if (v.kind === "business") {
    return { business: { ...common, endsOn: runEndsOn, ...(v.address.trim() ? { address: v.address.trim() } : {}), ...(v.category.trim() ? { category: v.category.trim() } : {}) } };
  }
  const day = /^\d{4}-\d{2}-\d{2}$/.test(v.startsDate.trim()) ? v.startsDate.trim() : "";
  if (!day) return {};
  const time = /^\d{2}:\d{2}$/.test(v.startsTime.trim()) ? `T${v.startsTime.trim()}` : "";
  return { event: { ...common, startsAt: `${day}${time}`, ...(v.endsDate.trim() ? { endsAt: v.endsDate.trim() } : {}), ...(v.venue.trim() ? { venue: v.venue.trim() } : {}) } };
}
