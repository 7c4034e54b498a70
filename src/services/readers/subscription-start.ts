import { localDate } from "../../lib/time.ts";
import { enqueueMail, enqueueWelcomeAgain } from "../../store/mail/outbox.ts";
import { findEdition } from "../../store/morning/editions.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import { liftSuppressionConfirmed } from "../../store/readers/resubscribe.ts";
import { insertSubscriber, reactivateSubscriber, recordMailEvent, type NewSubscriber } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";

/** Where a subscription came from (the API's fields), besides the address and the place. */
export type SubscriptionOrigin = Omit<NewSubscriber, "email" | "placeGeoid" | "firstDigestPending" | "now">;

export type StartResult = "subscribed" | "resubscribed" | "already" | "refused";

export interface StartOptions {
  /** The history's `source` (api, manage page, confirmation link). */
  source: string;
  /**
   * The address's owner proved it (the manage page's token, the emailed confirmation link): a reader's
   * own suppression (unsubscribed from everything, bounced, complained) is lifted and a subscription
   * ended for any of those reasons is active again. Staff's suppression stays: nothing happens.
   */
  byOwner?: boolean;
}

/**
 * Stores the subscription and queues the welcome email and, when today's edition is out, the first
 * digest (not for a returning weekly reader), in one transaction, on disk before the answer (a group commit: src/store/group-commit.ts).
 * A subscription the reader had left is active again and welcomed again; one already active changes
 * nothing (`already`); `refused` when staff's suppression stays (by the owner only: other callers
 * never get here for a suppressed address).
 */
export async function startSubscription(ctx: AppContext, place: PlaceRow, email: string, origin: SubscriptionOrigin, opts: StartOptions): Promise<StartResult> {
  const now = ctx.config.now();
  const nowIso = now.toISOString();
  const { source } = opts;
  const started = await ctx.commits.run((): StartResult => {
    if (opts.byOwner && !liftSuppressionConfirmed(ctx.db, email, source, nowIso)) return "refused";
    // Today's edition in the city's own timezone, if the morning run has published it.
    const today = findEdition(ctx.db, place.geoid, localDate(now, place.timezone));
    const id = insertSubscriber(ctx.db, { ...origin, email, placeGeoid: place.geoid, now: nowIso, firstDigestPending: !today });
    if (id !== undefined) {
      enqueueMail(ctx.db, "welcome", id, null, now.getTime(), nowIso);
      if (today) enqueueMail(ctx.db, "digest", id, today.id, now.getTime(), nowIso);
      recordMailEvent(ctx.db, { email, subscriberId: id, kind: "subscribed", source, now: nowIso });
      return "subscribed";
    }
    // A subscription this reader had left: active again, welcomed again (asked for by this very request).
    const again = reactivateSubscriber(ctx.db, { email, placeGeoid: place.geoid, firstDigestPending: !today, now: nowIso }, opts.byOwner);
    if (again === undefined) return "already"; // already active: nothing to do
    enqueueWelcomeAgain(ctx.db, again.id, `welcome:${again.id}:${nowIso}`, now.getTime(), nowIso);
    // A weekly reader (the choice outlives leaving) gets their weekly on their day, not today's daily.
    if (today && again.frequency === "daily") enqueueMail(ctx.db, "digest", again.id, today.id, now.getTime(), nowIso);
    recordMailEvent(ctx.db, { email, subscriberId: again.id, kind: "resubscribed", source, now: nowIso });
    return "resubscribed";
  });
  ctx.log.info({ place: place.slug, started, source }, started === "already" ? "subscribe repeated" : started);
  // The welcome email goes out now rather than at the sender's next tick.
  if (started === "subscribed" || started === "resubscribed") ctx.mail.kick();
  return started;
}
