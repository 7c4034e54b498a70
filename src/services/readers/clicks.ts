import { clickSignatureValid, looksLikeScanner } from "../../core/edition/click-links.ts";
import { AppError } from "../../core/errors.ts";
import { addDays } from "../../lib/time.ts";
import { csv } from "../../core/commerce/operator-statement.ts";
import { isWellFormedSlug } from "../../contract/slug.ts";
import { localDate } from "../../lib/time.ts";
import { addClicks, clicksOfLink, clicksPerEdition, editionsCarrying, topLinks } from "../../store/readers/clicks.ts";
import { findOrder } from "../../store/commerce/orders.ts";
import { findPlaceBySlug } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";

// Clicks on editions' outbound links: counted in aggregate through /go/... (src/core/edition/click-links.ts),
// shown to a listing's buyer (its order page), to the town's operator (the desk) and to staff (admin
// CLI), each also as CSV. Nothing stored says who clicked.

/** The key the /go/ links are signed with (kept in the database like the other generated keys). */
export const clickKey = (ctx: AppContext) => ctx.secrets.stored("click_link_secret");

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface LinkFollow { slug: string; date: string; sig: string; to: string | null; method: string; address: string; userAgent: string | undefined }

/**
 * Where a /go/ link leads, counting the click when a person most likely made it: GET only (link
 * checkers send HEAD), not a known scanner's agent, not part of a burst of one edition's links from
 * one address (a mail gateway opening every link of a message). A link we did not sign is refused.
 */
export function followLink(ctx: AppContext, f: LinkFollow): string {
  const to = f.to ?? "";
  const valid = isWellFormedSlug(f.slug) && DATE.test(f.date) && /^https?:\/\//i.test(to) && clickSignatureValid(clickKey(ctx), f.slug, f.date, to, f.sig);
  if (!valid) throw new AppError("not_found", "This link is not one of citydaily's: its address was changed or cut short. Open the edition again and follow the link from there.");
  if (f.method !== "GET" || looksLikeScanner(f.userAgent)) return to;
  const place = findPlaceBySlug(ctx.db, f.slug);
  if (!place) return to;
  const now = ctx.config.now();
  const day = localDate(now, place.timezone);
  const verdict = ctx.clickWindow.see(f.address, `${f.slug}/${f.date}`, to, now.getTime());
  ctx.db.transaction(() => {
    if (verdict.count) addClicks(ctx.db, place.geoid, f.date, to, day, 1);
    for (const url of verdict.takeBack) addClicks(ctx.db, place.geoid, f.date, url, day, -1);
  })();
  return to;
}

export interface ListingNumbers {
  /** Editions that carried the listing's link, with the emails of each delivered. */
  editions: Array<{ date: string; delivered: number }>;
  /** Clicks on the listing's link in those editions (web and email), per local day. */
  clicks: Array<{ day: string; clicks: number }>;
  delivered: number;
  totalClicks: number;
}

/** A listing's numbers: the editions and emails that carried it and the clicks it got, per day. */
export function listingNumbers(ctx: AppContext, orderId: string): ListingNumbers | undefined {
  const o = findOrder(ctx.db, orderId);
  if (!o || !o.published_at) return undefined;
  const from = o.published_at.slice(0, 10);
  const to = o.ends_at?.slice(0, 10) ?? o.starts_at?.slice(0, 10) ?? o.run_ends_at?.slice(0, 10) ?? addDays(from, 31);
  const editions = editionsCarrying(ctx.db, o.place_geoid, o.url, addDays(from, -1), to).map((e) => ({ date: e.date, delivered: e.sent }));
  const clicks = clicksOfLink(ctx.db, o.place_geoid, o.url).filter((c) => c.clicks > 0);
  return {
    editions, clicks,
    delivered: editions.reduce((n, e) => n + e.delivered, 0),
    totalClicks: clicks.reduce((n, c) => n + c.clicks, 0),
  };
}

/** The listing's numbers per day as CSV: editions that carried it, emails delivered, clicks. */
export function listingNumbersCsv(n: ListingNumbers): string {
  const days = [...new Set([...n.editions.map((e) => e.date), ...n.clicks.map((c) => c.day)])].sort();
  return csv(["date", "in_edition", "emails_delivered", "clicks"], days.map((d) => {
    const e = n.editions.find((x) => x.date === d);
    return [d, e ? "yes" : "no", e?.delivered ?? 0, n.clicks.find((c) => c.day === d)?.clicks ?? 0];
  }));
}

export interface TownClicks {
  perEdition: Array<{ date: string; clicks: number; links: number }>;
  topLinks: Array<{ url: string; clicks: number; editions: number }>;
}

/** A town's clicks per edition (the last 14) and its most clicked links of the last 30 days. */
export function townClicks(ctx: AppContext, placeGeoid: string, timezone: string): TownClicks {
  const today = localDate(ctx.config.now(), timezone);
  return { perEdition: clicksPerEdition(ctx.db, placeGeoid, 14), topLinks: topLinks(ctx.db, placeGeoid, addDays(today, -30), 10) };
}

export function townClicksCsv(slug: string, t: TownClicks): string {
  return csv(["town", "edition_date", "clicks", "links_clicked"], t.perEdition.map((e) => [slug, e.date, e.clicks, e.links]));
}
