import { fiveAmInstant } from "../../core/readers/preferences.ts";
import { localDate } from "../../lib/time.ts";
import { enqueueEditionDigests } from "../../store/mail/outbox.ts";
import { townTimezone } from "../../store/readers/preferences.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * Called by the morning pipeline once a city's edition is stored and published: queues that edition
 * for every active subscriber of the city who reads it daily, including those whose first digest was
 * pending. The edition is composed once; each reader's copy is due at their delivery time (5:00 to
 * 9:00 AM in the town, 6:00 by default) on the town's date when it is queued, which is the edition's
 * date on every morning run, or at once when that time has passed. (The town's date, not the
 * edition's: an edition queued ahead of its date, as tests do, goes out as it always did.)
 * Readers of the weekly email get none. Safe to call again (or from two processes): the outbox's
 * unique key queues each subscriber once. The mail sender delivers the rows. Returns how many
 * digests were newly queued. `now` is the morning run's clock (its rows carry that time); alone, the configured one.
 */
export function queueEditionDigests(ctx: AppContext, edition: { id: number; placeGeoid: string; date: string }, now: Date = ctx.config.now()): number {
  const timezone = townTimezone(ctx.db, edition.placeGeoid) ?? "UTC";
  const fiveAm = fiveAmInstant(localDate(now, timezone), timezone);
  const queued = enqueueEditionDigests(ctx.db, edition.placeGeoid, edition.id, now.getTime(), now.toISOString(), fiveAm);
  ctx.log.info({ editionId: edition.id, place: edition.placeGeoid, date: edition.date, queued }, "digests queued");
  return queued;
}
