import crypto from "node:crypto";
import os from "node:os";
import { claimDueMail, holdsLease } from "../../store/mail/outbox.ts";
import type { AppContext } from "../platform/context.ts";
import { emptyResult, type MailBatch, type SendOptions } from "./batch.ts";

/**
 * Leases one batch of due outbox rows to this sender. No row is claimed while a pause after a
 * delivery fault lasts: the batch comes back empty.
 */
export function claimBatch(ctx: AppContext, opts: SendOptions): MailBatch {
  const cfg = ctx.config.mail;
  const now = opts.now ?? (() => ctx.config.now().getTime());
  const owner = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const leaseMs = cfg.leaseSeconds * 1000;
  const claimedAt = now();
  const batch: MailBatch = {
    ctx, cfg, opts, now, owner, rows: [], result: emptyResult(),
    lease: { ms: leaseMs, until: claimedAt + leaseMs, certain: true },
    writeFailed: undefined, unrecorded: 0, accepted: [],
    fault: undefined, held: [], alike: new Map(), relayRefusal: undefined, crashed: undefined, started: 0,
  };
  // The relay failed the last session: nothing is claimed until the pause ends, by the sender's clock
  // (tests move it forward) or by the real one (a clock pinned with NOW never moves).
  if (claimedAt < ctx.mail.delivery.pausedUntil && Date.now() < ctx.mail.delivery.pausedUntilReal) return batch;
  batch.rows = claimDueMail(ctx.db, owner, claimedAt, leaseMs, opts.batchSize ?? cfg.batchSize);
  batch.result.claimed = batch.rows.length;
  return batch;
}

/** Whether the row is still this sender's: by the lease's clock while it is certain, else by a read. */
export function stillOurs(b: MailBatch, id: number): boolean {
  return (b.lease.certain && b.now() < b.lease.until) || holdsLease(b.ctx.db, id, b.owner);
}
