import { enqueueEditionDigests } from "../../store/mail/outbox.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * Called by the morning pipeline once a city's edition is stored and published: queues that edition
 * for every active subscriber of the city, including those whose first digest was pending. Safe to
 * call again (or from two processes): the outbox's unique key queues each subscriber once. The
 * mail sender delivers the rows. Returns how many digests were newly queued.
 */
export function queueEditionDigests(ctx: AppContext, edition: { id: number; placeGeoid: string; date: string }): number {
  const now = ctx.config.now();
  const queued = enqueueEditionDigests(ctx.db, edition.placeGeoid, edition.id, now.getTime(), now.toISOString());
  ctx.log.info({ editionId: edition.id, place: edition.placeGeoid, date: edition.date, queued }, "digests queued");
  return queued;
}
