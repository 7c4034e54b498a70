import type { AppContext } from "../platform/context.ts";
import { markDigestsQueued, markSitePublished, pendingEditions } from "../../store/morning/due-towns.ts";
import { queueEditionDigests } from "../mail/digests.ts";
import { queueWeeklies } from "../mail/weekly.ts";
import { publishEditions } from "../site/publish.ts";
import { queueEditionPosts } from "../fediverse/queue-posts.ts";

/**
 * Publishes what is stored but not yet published, whichever run stored it: the site pages of every
 * such edition in one incremental render (with `rerender`: published editions whose town's pages
 * changed, the listings the sweep ended), then each edition's digests. Each step stamps the ledger
 * when done, so a crash between steps is finished by the next run and nothing is done twice. Last,
 * the weekly emails of the towns whose weekly readers' day it is (src/services/mail/weekly.ts).
 * Every row is stamped with the run's `now`.
 */
export async function publishPending(ctx: AppContext, now: Date, rerender: readonly number[] = []): Promise<{ published: number; publishFailed: number; pagesWritten: number; digestsQueued: number; weekliesQueued: number }> {
  const at = now.toISOString();
  const pending = pendingEditions(ctx.db);
  let published = 0;
  let publishFailed = 0;
  let pagesWritten = 0;
  let digestsQueued = 0;
  const siteIds = pending.filter((p) => !p.sitePublished).map((p) => p.id);
  const renderIds = [...new Set([...siteIds, ...rerender])];
  if (renderIds.length > 0) {
    try {
      pagesWritten = (await publishEditions(ctx, renderIds)).pagesWritten;
      markSitePublished(ctx.db, siteIds, at);
      published = siteIds.length;
    } catch (err) {
      publishFailed = siteIds.length;
      // Left unstamped: the next run renders these again. Digests still go out: the email carries the whole edition.
      ctx.log.error({ err, editions: siteIds.length }, "site publish failed; the next run retries it");
    }
  }
  // Editions on the site are marked for their towns' fediverse followers; the server's worker posts them.
  queueEditionPosts(ctx, pending.filter((p) => p.sitePublished || published > 0).map((p) => p.id), at);
  for (const p of pending.filter((x) => !x.digestsQueued)) {
    try {
      // Stamp and queue in one transaction: a concurrent run that stamped first makes this one a no-op.
      digestsQueued += ctx.db.transaction(() =>
        markDigestsQueued(ctx.db, p.id, at) ? queueEditionDigests(ctx, { id: p.id, placeGeoid: p.placeGeoid, date: p.date }, now) : 0,
      ).immediate();
    } catch (err) {
      ctx.log.error({ err, editionId: p.id }, "queueing digests failed; the next run retries it");
    }
  }
  // After the day's editions: a weekly draws on them. Stored and queued in one transaction per town.
  let weekliesQueued = 0;
  try {
    weekliesQueued = queueWeeklies(ctx, now);
  } catch (err) {
    ctx.log.error({ err }, "queueing the weekly emails failed; the next run retries it");
  }
  return { published, publishFailed, pagesWritten, digestsQueued, weekliesQueued };
}

