import { storageFullError } from "../../core/errors.ts";
import type { MailSendError } from "../../integrations/mail/types.ts";
import { deferRows, markFinal, markRetry, markSentMany, renewLeases, type ClaimedRow } from "../../store/mail/outbox.ts";
import { recordMailEvent, suppressAddress } from "../../store/readers/subscribers.ts";
import { backoffMs, pauseMs, RELAY_ALIKE, replyKind, type MailBatch, type SendResult } from "./batch.ts";

/** Commits the acceptances waiting, in one transaction. */
export function flush(b: MailBatch): void {
  if (b.accepted.length === 0) return;
  const batch = b.accepted.splice(0);
  try {
    markSentMany(b.ctx.db, b.owner, batch);
  } catch (err) {
    // Left as 'sending': once the lease ends they are sent again, with the same Message-ID.
    b.writeFailed ??= err;
    b.unrecorded += batch.length;
  }
}

/** The relay accepted the row's message: recorded with the others of this event-loop turn, at its end. */
export function recordSent(b: MailBatch, id: number, messageId: string): void {
  if (b.accepted.length === 0) setImmediate(() => flush(b));
  b.accepted.push({ id, messageId, at: new Date(b.now()).toISOString() });
  b.result.sent++;
}

/** Mail that is not to be sent any more (subscription ended, address suppressed, edition gone). */
export function cancel(b: MailBatch, row: ClaimedRow, reason: string): void {
  markFinal(b.ctx.db, row.id, b.owner, "cancelled", reason);
  b.result.cancelled++;
}

/** A failure that is this row's alone: a bounce suppresses the address; otherwise retried with backoff, up to MAIL_MAX_ATTEMPTS. */
export function settleFailure(b: MailBatch, row: ClaimedRow, e: MailSendError, subscriberId: number | undefined): void {
  const { ctx, cfg, result } = b;
  const iso = new Date(b.now()).toISOString();
  if (e.bounce) {
    markFinal(ctx.db, row.id, b.owner, "failed", e.message);
    suppressAddress(ctx.db, row.email, "bounced", "smtp", e.message, iso);
    result.failed++;
    ctx.log.warn({ outboxId: row.id, code: e.responseCode }, "recipient refused at RCPT TO; address suppressed");
  } else if (row.attempts >= cfg.maxAttempts) {
    markFinal(ctx.db, row.id, b.owner, "failed", e.message);
    recordMailEvent(ctx.db, { email: row.email, subscriberId: subscriberId ?? null, kind: "soft_bounce", source: "smtp", detail: `gave up after ${row.attempts} attempts: ${e.message}`, now: iso });
    result.failed++;
  } else {
    markRetry(ctx.db, row.id, b.owner, b.now() + backoffMs(cfg.retryBaseSeconds, row.attempts), e.message);
    result.retried++;
    ctx.log.info({ outboxId: row.id, attempts: row.attempts, code: e.responseCode, error: e.message }, "temporary delivery failure; will retry");
  }
}

/** Extends the batch's lease (every third of its length, so a slow server never lets it lapse mid-batch). */
export function renewLease(b: MailBatch): void {
  const t = b.now();
  if (t >= b.lease.until) b.lease.certain = false;
  try {
    renewLeases(b.ctx.db, b.owner, t + b.lease.ms);
  } catch (err) {
    b.writeFailed ??= err;
    return;
  }
  if (b.lease.certain) b.lease.until = t + b.lease.ms;
}

/**
 * Once every message of the batch has been answered: throws what stopped it (a bug, a failed
 * write), settles the held refusals, pauses after a delivery fault and puts back what was not tried.
 */
export function settleBatch(b: MailBatch): SendResult {
  if (b.crashed) throw b.crashed.err;
  if (b.writeFailed) throw recordFailed(b);
  const { ctx, owner, result } = b;
  if (!b.relayRefusal && !b.fault) judgeRefusals(b);
  for (const h of b.held) {
    if (b.relayRefusal && replyKind(h.e) === b.relayRefusal.kind) continue; // deferred with the pause below
    if (b.opts.signal?.aborted) result.deferred += deferRows(ctx.db, owner, [h.row.id], b.now(), `stopped: ${h.e.message}`, false);
    else settleFailure(b, h.row, h.e, h.subscriberId);
  }
  if (b.opts.signal?.aborted && !b.fault) {
    const untried = b.ids.slice(b.started);
    if (untried.length) deferRows(ctx.db, owner, untried, b.now(), "not tried: the sender stopped", false);
    result.deferred += untried.length;
  } else if (b.fault) {
    pauseAfterFault(b, b.fault);
  } else if (result.sent > 0 && ctx.mail.delivery.faults > 0) {
    ctx.log.info({ afterFaults: ctx.mail.delivery.faults }, "mail delivery resumed");
    ctx.mail.delivery.faults = 0;
    ctx.mail.delivery.pausedUntil = 0;
    ctx.mail.delivery.pausedUntilReal = 0;
  }
  return result;
}

/** The same refusal for most of the batch is the relay's: a fault like any other. */
function judgeRefusals(b: MailBatch): void {
  const [kind, n] = [...b.alike].sort((x, y) => y[1] - x[1])[0] ?? ["", 0];
  if (n >= RELAY_ALIKE && 2 * n > b.result.sent + b.held.length) b.fault = (b.relayRefusal = { kind, n, e: b.held.find((h) => replyKind(h.e) === kind)!.e }).e;
}

/** Pause, and put back what this batch did not try: the relay is unwell, not these readers. */
function pauseAfterFault(b: MailBatch, fault: MailSendError): void {
  const { ctx, owner, result, relayRefusal } = b;
  const d = ctx.mail.delivery;
  d.faults++;
  const pause = pauseMs(b.cfg.retryBaseSeconds, d.faults);
  d.pausedUntil = b.now() + pause;
  d.pausedUntilReal = Date.now() + pause;
  const untried = b.ids.slice(b.started);
  if (untried.length) deferRows(ctx.db, owner, untried, d.pausedUntil, `not tried: ${fault.message}`, false);
  result.deferred += untried.length;
  if (relayRefusal) {
    // Nobody's attempt counted: the relay refused every one of them the same way.
    const refused = b.held.filter((h) => replyKind(h.e) === relayRefusal.kind).map((h) => h.row.id);
    deferRows(ctx.db, owner, refused, d.pausedUntil, `the relay refused ${refused.length} recipients alike: ${relayRefusal.e.message}`, false);
    result.deferred += refused.length;
  }
  ctx.log.error(
    { alert: "mail_delivery_fault", code: fault.responseCode, scope: relayRefusal ? "relay" : fault.scope, error: fault.message, faultsInARow: d.faults, pausedForMs: pause, deferred: result.deferred },
    relayRefusal
      ? `mail delivery paused: the mail server refused ${b.held.filter((h) => replyKind(h.e) === relayRefusal.kind).length} recipients alike (${relayRefusal.kind}), which is the server speaking, not the readers (nothing suppressed; the rows stay pending)`
      : "mail delivery paused: the mail server failed the session (nothing suppressed; the rows stay pending)",
  );
}

/**
 * Nothing more can be recorded: the rows stay claimed until their lease ends, then are sent
 * again (the unrecorded ones with the same Message-ID), once there is room.
 */
function recordFailed(b: MailBatch): DeliveryRecordError {
  const e = b.writeFailed as Error;
  b.ctx.log.error(
    { alert: storageFullError(e) ? "storage_full" : "mail_record_failed", error: e.message, sent: b.result.sent, unrecorded: b.unrecorded },
    "mail sender stopped: a delivery could not be recorded in the database; nothing more is handed to the mail server",
  );
  return new DeliveryRecordError(e, b.unrecorded, b.result);
}

/**
 * The sender could not record what it sent (a full disk): it stopped handing messages to the relay.
 * `unrecorded` were accepted by the relay and will be sent again, with the same Message-ID.
 */
export class DeliveryRecordError extends Error {
  readonly unrecorded: number;
  readonly result: SendResult;
  constructor(cause: Error, unrecorded: number, result: SendResult) {
    super(`could not record deliveries in the database (${cause.message}); stopped sending. ${unrecorded} accepted by the mail server but not recorded will be sent again, with the same Message-ID, once there is room and their lease has ended`, { cause });
    this.name = "DeliveryRecordError";
    this.unrecorded = unrecorded;
    this.result = result;
  }
}
