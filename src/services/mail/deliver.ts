import { MailSendError } from "../../integrations/mail/types.ts";
import { eachLimited } from "../../lib/pool.ts";
import { deferRows, type ClaimedRow } from "../../store/mail/outbox.ts";
import { pauseMs, RELAY_ALIKE, replyKind, type MailBatch } from "./batch.ts";
import { inFlight, rowAt, stillOurs } from "./claim.ts";
import { flush, recordSent, renewLease, settleFailure } from "./settle.ts";

/**
 * Hands one row's message to the relay (`send`) and sorts out its answer: accepted, a delivery
 * fault (the relay's or the session's: the row waits for the pause), a refusal held until the batch
 * ends, or a failure that is the row's own.
 */
export async function deliver(b: MailBatch, row: ClaimedRow, send: () => Promise<{ messageId: string }>, subscriberId: number | undefined): Promise<void> {
  // Lost the row (this process stalled past its lease and another sender took it): leave it to them.
  if (b.writeFailed || !stillOurs(b, row.id)) return;
  let info;
  try {
    info = await send();
  } catch (err) {
    const e = err instanceof MailSendError ? err : new MailSendError(String((err as Error)?.message ?? err), false);
    const { ctx, cfg, owner, result } = b;
    if (b.opts.signal?.aborted) {
      // Stopping: the failure is most likely our own closing of the connection.
      deferRows(ctx.db, owner, [row.id], b.now(), `stopped: ${e.message}`, false);
      result.deferred++;
    } else if (e.scope === "recipient") {
      // Held until the batch says whether it was this reader or the relay (the same refusal for everyone).
      b.held.push({ row, e, subscriberId });
      const kind = replyKind(e);
      const n = (b.alike.get(kind) ?? 0) + 1;
      b.alike.set(kind, n);
      if (n >= RELAY_ALIKE && result.sent === 0 && !b.fault) b.relayRefusal = { kind, n, e };
      b.fault ??= b.relayRefusal?.e;
    } else if ((e.scope === "session" || e.scope === "message") && !(e.scope === "message" && row.attempts >= cfg.maxAttempts)) {
      // A delivery fault: the relay or the session failed, whatever the recipient. The row waits for
      // the pause; only a refusal of this very message (at DATA) counts as one of its attempts.
      b.fault ??= e;
      deferRows(ctx.db, owner, [row.id], b.now() + pauseMs(cfg.retryBaseSeconds, ctx.mail.delivery.faults + 1), e.message, e.scope === "message");
      result.deferred++;
    } else {
      settleFailure(b, row, e, subscriberId);
    }
    return;
  }
  recordSent(b, row.id, info.messageId);
}

/**
 * Sends the batch's rows through the pool, in order: at most 2 x `concurrency` messages in flight. No new
 * message starts after a delivery fault, a failed write, a crash or the stop signal; the lease is
 * renewed meanwhile, and the last acceptances are committed when the pool has ended.
 */
export async function deliverBatch(b: MailBatch, sendOne: (row: ClaimedRow) => Promise<void>): Promise<void> {
  const renew = setInterval(() => renewLease(b), b.lease.ms / 3);
  try {
    await eachLimited(b.ids, inFlight(b), async (_id, i) => {
      b.started++;
      try {
        const row = rowAt(b, i);
        if (row) await sendOne(row);
      } catch (err) {
        if (/^SQLITE_/.test(String((err as { code?: unknown })?.code))) b.writeFailed ??= err;
        else b.crashed ??= { err };
      }
    }, { signal: b.opts.signal, stop: () => Boolean(b.fault || b.writeFailed || b.crashed) });
  } finally {
    clearInterval(renew);
    flush(b);
  }
}
