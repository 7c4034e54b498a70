import { HIDEABLE_SECTIONS, SECTION_KEYS, type ReaderCity, type ReaderPreferencesUpdate, type ReaderSubscriptions } from "../../contract/preferences.ts";
import { AppError } from "../../core/errors.ts";
import { applyUpdate, deliveryInstant, fromStored, type StoredPreferences } from "../../core/readers/preferences.ts";
import { pendingDigests, savePreferences } from "../../store/readers/preferences.ts";
import { subscriptionsOf, type SubscriptionRow } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";
import { manageView, resolveToken } from "./unsubscribe.ts";

// A reader's choices per town: how often, at what time, without which sections. The manage page,
// the footer's "once a week" page and the API all come here; the token of the manage link (in
// every email) proves the address, and reaches every town of that address.

const noToken = () => new AppError("not_found", "This manage link is not valid: use the \"Manage your cities\" link of a recent email.");

export function readerCity(s: SubscriptionRow): ReaderCity {
  return { slug: s.slug, name: s.name, state: s.state_name, status: s.status, timezone: s.timezone, preferences: fromStored(s) };
}

/** Every town of the token's address with its choices, and the sections that may be hidden: what the manage page shows. */
export function readerSubscriptions(ctx: AppContext, token: string): ReaderSubscriptions {
  const view = manageView(ctx, token);
  if (!view) throw noToken();
  return {
    email: view.email,
    suppressed: view.suppressed,
    cities: view.subscriptions.map(readerCity),
    sections: SECTION_KEYS.map((key) => ({ key, label: HIDEABLE_SECTIONS[key] })),
  };
}

/** The token's address's subscription to the town `slug`. */
function subscriptionOf(ctx: AppContext, token: string, slug: string): SubscriptionRow {
  const sub = resolveToken(ctx, token);
  if (!sub) throw noToken();
  const target = sub.slug === slug ? sub : subscriptionsOf(ctx.db, sub.email).find((s) => s.slug === slug);
  if (!target) throw new AppError("not_found", `${sub.email} has no subscription to ${slug}.`);
  return target;
}

/**
 * Changes the reader's choices for one town (fields left out stay), on disk before the answer.
 * Daily digests already queued follow at once: cancelled when the reader chose once a week, moved
 * to the new time when they chose another (never earlier than now).
 */
export async function updateCityPreferences(ctx: AppContext, token: string, slug: string, update: ReaderPreferencesUpdate): Promise<ReaderCity> {
  const target = subscriptionOf(ctx, token, slug);
  const next = applyUpdate(target, update);
  const now = ctx.config.now();
  const retimed = next.delivery_minute === target.delivery_minute ? [] : pendingDigests(ctx.db, target.id)
    .map((d) => ({ id: d.id, at: Math.max(now.getTime(), deliveryInstant(d.date, target.timezone, next.delivery_minute)) }));
  const cancelled = await ctx.commits.run(() => savePreferences(ctx.db, target.id, next, now.toISOString(), retimed));
  ctx.log.info({ subscriberId: target.id, ...changed(target, next), cancelled }, "reader preferences saved");
  return readerCity({ ...target, ...next });
}

/** What changed, for the log (never the address). */
function changed(before: StoredPreferences, after: StoredPreferences): Partial<StoredPreferences> {
  return Object.fromEntries(Object.entries(after).filter(([k, v]) => before[k as keyof StoredPreferences] !== v));
}

/** The footer's "Get this once a week instead": the token's own town, weekly on Saturday (a weekly reader keeps their day). */
export async function switchToWeekly(ctx: AppContext, token: string): Promise<ReaderCity> {
  const sub = resolveToken(ctx, token);
  if (!sub) throw noToken();
  if (sub.frequency === "weekly") return readerCity(sub);
  return updateCityPreferences(ctx, token, sub.slug, { frequency: "weekly", weeklyDay: "saturday" });
}
