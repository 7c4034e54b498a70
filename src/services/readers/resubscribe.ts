import crypto from "node:crypto";
import { RESUBSCRIBE_TEMPLATE, type ResubscribeMailData } from "../../core/edition/resubscribe-email.ts";
import { enqueueTransactional } from "../../store/mail/outbox.ts";
import { findPlaceByGeoid, type PlaceRow } from "../../store/places/places.ts";
import {
  confirmationSentSince, consumeResubscribeRequest, forgetConfirmationLink, insertResubscribeRequest, usableResubscribeRequest,
} from "../../store/readers/resubscribe.ts";
import { subscriptionsOf } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";
import { startSubscription } from "./subscription-start.ts";
import { townRef, type ResubscribePageView } from "../../site/pages/readers.ts";

// A suppressed address (it unsubscribed from every city, bounced or complained) is never subscribed
// again on a stranger's word: the request changes nothing and its owner gets one email (at most one
// a day) with a link to a page whose one button brings the subscription back. A GET never changes
// anything (link scanners open links), as for one-click unsubscribe.

/** How long a confirmation link works. */
export const CONFIRM_LINK_DAYS = 7;
/** At most one confirmation email per address in this long. */
const ONE_A_DAY_MS = 24 * 3600_000;
const TOKEN = /^[\w-]{43}$/;

const hash = (token: string) => crypto.createHash("sha256").update(token).digest("hex");
const dedupeKey = (tokenHash: string) => `resubscribe:${tokenHash}`;

/**
 * Someone asked to subscribe a suppressed address to `place`: unless a confirmation went to it in
 * the last 24 hours, one is queued (durably, before the caller answers). True when it was.
 */
export async function askOwnerToConfirm(ctx: AppContext, email: string, place: PlaceRow): Promise<boolean> {
  const now = ctx.config.now();
  const nowIso = now.toISOString();
  const token = crypto.randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + CONFIRM_LINK_DAYS * 86_400_000).toISOString();
  const payload: ResubscribeMailData = { town: `${place.name}, ${place.state_name}`, confirmUrl: `${ctx.config.baseUrl}/resubscribe/${token}`, expiresAt, ...cadenceOf(ctx, email, place) };
  const queued = await ctx.commits.run(() => {
    if (confirmationSentSince(ctx.db, email, new Date(now.getTime() - ONE_A_DAY_MS).toISOString())) return false;
    insertResubscribeRequest(ctx.db, { hash: hash(token), email, placeGeoid: place.geoid, expiresAt }, nowIso);
    return enqueueTransactional(ctx.db, { to: email, template: RESUBSCRIBE_TEMPLATE, payload, dedupeKey: dedupeKey(hash(token)) }, now.getTime(), nowIso);
  });
  ctx.log.info({ place: place.slug, queued }, queued ? "resubscribe confirmation queued" : "resubscribe confirmation already sent today");
  if (queued) ctx.mail.kick();
  return queued;
}

export interface ResubscribeView {
  email: string;
  place: PlaceRow;
  /** Set when the address had chosen the town once a week: it comes back so (0 = Sunday). */
  weeklyDay?: number;
}

/**
 * How often the address would get the town once back: as it had chosen, if it followed the town
 * before (the choice outlives leaving, subscription-start.ts), else every morning. Only the address's
 * owner is told (the emailed link and its page).
 */
function cadenceOf(ctx: AppContext, email: string, place: PlaceRow): { weeklyDay?: number } {
  const before = subscriptionsOf(ctx.db, email).find((s) => s.place_geoid === place.geoid);
  return before?.frequency === "weekly" ? { weeklyDay: before.weekly_day } : {};
}

/** What an unused, unexpired link would bring back (the page shown before its button is pressed). */
export function resubscribeLink(ctx: AppContext, token: string): ResubscribeView | undefined {
  if (!TOKEN.test(token)) return undefined;
  const request = usableResubscribeRequest(ctx.db, hash(token), ctx.config.now().toISOString());
  if (!request) return undefined;
  const place = findPlaceByGeoid(ctx.db, request.place_geoid);
  return place && { email: request.email, place, ...cadenceOf(ctx, request.email, place) };
}

/**
 * The button was pressed: the link is used up, the address's suppression lifted and the subscription
 * started as for a new reader (a welcome, and today's edition when it is out). Undefined for a link
 * that is unknown, used or expired; `started: false` when staff's suppression stays (already active
 * counts as started: the reader is subscribed).
 */
export async function confirmResubscribe(ctx: AppContext, token: string): Promise<(ResubscribeView & { started: boolean }) | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const request = consumeResubscribeRequest(ctx.db, hash(token), ctx.config.now().toISOString());
  const place = request ? findPlaceByGeoid(ctx.db, request.place_geoid) : undefined;
  if (!request || !place) return undefined;
  const started = await startSubscription(ctx, place, request.email, { landingPath: "/resubscribe" }, { source: "confirmation link", byOwner: true });
  forgetConfirmationLink(ctx.db, dedupeKey(hash(token)));
  return { email: request.email, place, ...cadenceOf(ctx, request.email, place), started: started !== "refused" };
}

const townOfPlace = (place: PlaceRow) => townRef({ slug: place.slug, name: place.name, state_name: place.state_name });

/** GET /resubscribe/{token}: the page with one button, or that the link no longer works. */
export function resubscribePage(ctx: AppContext, token: string): ResubscribePageView {
  const link = resubscribeLink(ctx, token);
  if (!link) return { kind: "gone" };
  return { ...townOfPlace(link.place), kind: "offer", email: link.email, weeklyDay: link.weeklyDay };
}

/** POST /resubscribe/{token}: the button pressed, and what the page says. */
export async function resubscribeByLink(ctx: AppContext, token: string): Promise<ResubscribePageView> {
  const done = await confirmResubscribe(ctx, token);
  if (!done) return { kind: "gone" };
  if (!done.started) return { kind: "refused", email: done.email };
  return { ...townOfPlace(done.place), kind: "done", email: done.email, weeklyDay: done.weeklyDay };
}
