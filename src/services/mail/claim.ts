import crypto from "node:crypto";
import os from "node:os";
import { claimDueMail, claimedRows, holdsLease, type ClaimedRow } from "../../store/mail/outbox.ts";
import type { AppContext } from "../platform/context.ts";
import { emptyResult, type MailBatch, type SendOptions } from "./batch.ts";
import { createDigestCache, startBatch } from "./digest-cache.ts";

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
    ctx, cfg, opts, now, owner, ids: [], slice: { start: 0, end: 0, rows: new Map() }, cache: opts.cache ?? createDigestCache(),
    result: emptyResult(), lease: { ms: leaseMs, until: claimedAt + leaseMs, certain: true },
    writeFailed: undefined, unrecorded: 0, accepted: [],
    fault: undefined, held: [], alike: new Map(), relayRefusal: undefined, crashed: undefined, started: 0,
  };
  // The relay failed the last session: nothing is claimed until the pause ends, by the sender's clock
  // (tests move it forward) or by the real one (a clock pinned with NOW never moves).
  if (claimedAt < ctx.mail.delivery.pausedUntil && Date.now() < ctx.mail.delivery.pausedUntilReal) return batch;
  batch.ids = claimDueMail(ctx.db, owner, claimedAt, leaseMs, opts.batchSize ?? cfg.batchSize);
  batch.result.claimed = batch.ids.length;
  if (batch.ids.length) startBatch(batch.cache);
  return batch;
}

/**
 * The claimed row at `index` of the batch, read with the next slice when delivery gets there
 * (delivery takes them in order); undefined if its subscriber or town is gone. A slice is as many
 * rows as messages in flight: only these are held, not the whole batch's, which outlived young
 * collections and were most of what the sender left to the old generation.
 */
export function rowAt(b: MailBatch, index: number): ClaimedRow | undefined {
  if (index >= b.slice.end || index < b.slice.start) {
    const end = Math.min(b.ids.length, index + inFlight(b));
    b.slice = { start: index, end, rows: new Map(claimedRows(b.ctx.db, b.ids.slice(index, end)).map((r) => [r.id, r])) };
  }
  return b.slice.rows.get(b.ids[index]!);
}

/** Messages in flight at most: two for each SMTP connection, so a connection that finishes one finds the next already waiting. */
export function inFlight(b: MailBatch): number {
  return 2 * (b.opts.concurrency ?? b.cfg.concurrency);
}

/** Whether the row is still this sender's: by the lease's clock while it is certain, else by a read. */
export function stillOurs(b: MailBatch, id: number): boolean {
  return (b.lease.certain && b.now() < b.lease.until) || holdsLease(b.ctx.db, id, b.owner);
}
