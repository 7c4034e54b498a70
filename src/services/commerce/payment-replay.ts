import fs from "node:fs";
import path from "node:path";
import type { AppContext } from "../platform/context.ts";
import { RESTORE_MARKER, type RestoreMarker } from "../platform/replica-restore.ts";
import { applyPaymentEvent } from "./payments.ts";

/**
 * How far before the restored point the replay reaches. A payment Stripe recorded shortly before
 * that point may have reached us (its webhook) only after it, so it is missing too; Stripe retries a
 * webhook for days, but what it delivered late is redelivered anyway. Replaying what the database
 * already has changes nothing (each event id is recorded with its effect), so the margin is cheap.
 */
const MARGIN_MS = 3600_000;

export interface ReplayResult {
  /** Events Stripe reported since the point. */
  events: number;
  /** Those the restored database did not have: applied now. */
  applied: number;
  since: Date;
}

/**
 * After a restore from the replica (the marker left in DATA_DIR), nothing paid is forgotten: the
 * server asks Stripe for the events since the restored point and applies each through the same
 * idempotent handler as the webhook. The marker is removed once done; on failure (Stripe
 * unreachable) it stays, the next start tries again, and the error is logged as an alert.
 */
export async function replayPaymentsAfterRestore(ctx: AppContext): Promise<ReplayResult | undefined> {
  const markerFile = path.join(ctx.config.dataDir, RESTORE_MARKER);
  let marker: RestoreMarker;
  try {
    marker = JSON.parse(fs.readFileSync(markerFile, "utf8")) as RestoreMarker;
  } catch {
    return undefined;
  }
  const since = new Date(Date.parse(marker.point) - MARGIN_MS);
  if (!ctx.payments.eventsSince) {
    ctx.log.info({ point: marker.point }, "restored from the replica; local payments have no events to replay");
    fs.rmSync(markerFile, { force: true });
    return { events: 0, applied: 0, since };
  }
  try {
    const events = await ctx.payments.eventsSince(since);
    let applied = 0;
    for (const event of events) if (!(await applyPaymentEvent(ctx, event)).duplicate) applied++;
    fs.rmSync(markerFile, { force: true });
    ctx.log.info({ point: marker.point, since: since.toISOString(), events: events.length, applied }, "restored from the replica; payment events replayed");
    return { events: events.length, applied, since };
  } catch (err) {
    ctx.log.error({ err, alert: "payment_replay_failed", point: marker.point }, "restored from the replica, but replaying the payment events failed; the next start tries again");
    return undefined;
  }
}
