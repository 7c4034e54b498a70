import { signSubscriberToken, tokenSubscriberId, verifySubscriberToken } from "../../core/readers/unsubscribe-tokens.ts";
import { findSubscription, findSuppression, subscriptionsOf, suppressAddress, unsubscribeOne, type SubscriptionRow } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";
import { findPlaceBySlug } from "../../store/places/places.ts";
import { startSubscription } from "./subscription-start.ts";
import { cadenceWords } from "../../core/readers/preferences.ts";
import { managePath, townRef, type UnsubscribePageView } from "../../site/pages/readers.ts";

export function subscriberToken(ctx: AppContext, subscriberId: number, email: string): string {
  return signSubscriberToken(ctx.secrets.unsubscribe(), subscriberId, email);
}

/** The subscription a token was signed for, or undefined for a forged, edited or unknown token. */
export function resolveToken(ctx: AppContext, token: string): SubscriptionRow | undefined {
  const id = tokenSubscriberId(token);
  if (id === undefined) return undefined;
  const sub = findSubscription(ctx.db, id);
  if (!sub || !verifySubscriberToken(ctx.secrets.unsubscribe(), token, sub.id, sub.email)) return undefined;
  return sub;
}

export type UnsubscribeScope = "city" | "all";

/**
 * Unsubscribes the token's city (or the whole address), on disk before the reader is told (a group
 * commit: src/store/group-commit.ts). Idempotent: doing it twice is fine.
 */
export async function unsubscribeByToken(ctx: AppContext, token: string, scope: UnsubscribeScope, source: string): Promise<SubscriptionRow | undefined> {
  const sub = resolveToken(ctx, token);
  if (!sub) return undefined;
  const now = ctx.config.now().toISOString();
  await ctx.commits.run(() => {
    if (scope === "all") suppressAddress(ctx.db, sub.email, "unsubscribed", source, null, now);
    else unsubscribeOne(ctx.db, sub.id, source, now);
  });
  ctx.log.info({ subscriberId: sub.id, scope, source }, "unsubscribed");
  return findSubscription(ctx.db, sub.id);
}

export interface ManageView {
  email: string;
  suppressed: boolean;
  /** Whether a city left can be followed again here (not after a bounce or complaint). */
  resubscribable: boolean;
  subscriptions: SubscriptionRow[];
}

/** What the manage page shows: every city of the token's address. */
export function manageView(ctx: AppContext, token: string): ManageView | undefined {
  const sub = resolveToken(ctx, token);
  if (!sub) return undefined;
  const suppression = findSuppression(ctx.db, sub.email);
  return { email: sub.email, suppressed: suppression !== undefined, resubscribable: !suppression || suppression.reason === "unsubscribed", subscriptions: subscriptionsOf(ctx.db, sub.email) };
}

/** From the manage page: leave one city of the token's address (the token proves the address); durable like the above. */
export async function unsubscribeCityOfAddress(ctx: AppContext, token: string, subscriptionId: number): Promise<boolean> {
  const sub = resolveToken(ctx, token);
  if (!sub) return false;
  const target = findSubscription(ctx.db, subscriptionId);
  if (!target || target.email.toLowerCase() !== sub.email.toLowerCase()) return false;
  await ctx.commits.run(() => unsubscribeOne(ctx.db, target.id, "manage page", ctx.config.now().toISOString()));
  return true;
}

/**
 * From the manage page: follow again a city the token's address had left (the token proves the
 * address, so the reader's own "unsubscribe from every city" is lifted here without a confirmation
 * email). It is the subscribe service's own path (reactivation and a new welcome). A bounce or a
 * complaint lifts only through the emailed confirmation (resubscribe.ts). False when the
 * subscription is not this address's, or the address may not be subscribed again here.
 */
export async function resubscribeCityOfAddress(ctx: AppContext, token: string, subscriptionId: number): Promise<boolean> {
  const sub = resolveToken(ctx, token);
  if (!sub) return false;
  const target = findSubscription(ctx.db, subscriptionId);
  if (!target || target.email.toLowerCase() !== sub.email.toLowerCase()) return false;
  const suppression = findSuppression(ctx.db, target.email);
  const place = findPlaceBySlug(ctx.db, target.slug);
  if (!place || (suppression && suppression.reason !== "unsubscribed")) return false;
  const started = await startSubscription(ctx, place, target.email.toLowerCase(), { landingPath: "/subscriptions" }, { source: "manage page", byOwner: true });
  return started !== "refused";
}

/** GET /unsubscribe/{token}: the confirmation page (a GET never unsubscribes); undefined for a link that is not valid. */
export function unsubscribePage(ctx: AppContext, token: string): UnsubscribePageView | undefined {
  const sub = resolveToken(ctx, token);
  if (!sub) return undefined;
  const base = { ...townRef(sub), email: sub.email, manage: managePath(token) };
  if (sub.status !== "active") return { ...base, kind: "unsubscribed" };
  return { ...base, kind: "confirm", cadence: cadenceWords(sub.frequency, sub.weekly_day) };
}

/** POST /unsubscribe/{token} (one-click or the confirmation page's buttons): done, and what the page says next. */
export async function unsubscribeByLink(ctx: AppContext, token: string, scope: UnsubscribeScope, source: string): Promise<UnsubscribePageView | undefined> {
  const sub = await unsubscribeByToken(ctx, token, scope, source);
  if (!sub) return undefined;
  if (scope === "all") return { kind: "left-all", email: sub.email };
  // "Your other cities" only when the address follows another; else the page of the town just left, to undo it.
  const others = subscriptionsOf(ctx.db, sub.email).some((s) => s.id !== sub.id && s.status === "active");
  return { ...townRef(sub), kind: "left", email: sub.email, manage: managePath(token), weekly: sub.frequency === "weekly", others };
}
