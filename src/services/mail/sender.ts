import crypto from "node:crypto";
import os from "node:os";
import { mailFrom } from "../../config/mail.ts";
import { renderTransactional } from "../../core/commerce/emails.ts";
import {
  prepareEdition, renderDigest, renderWelcome, senderDomain, type CityInfo, type PreparedEdition, type Recipient, type Sender,
} from "../../core/edition/email-render.ts";
import { storageFullError } from "../../core/errors.ts";
import { compileMessageTemplate, headerSafe, MARKS, messageIdSafe, type MessageTemplate } from "../../integrations/mail/message-template.ts";
import { enhancedStatus } from "../../integrations/mail/smtp.ts";
import { MailSendError } from "../../integrations/mail/types.ts";
import {
  claimDueMail, deferRows, editionForMail, holdsLease, markFinal, markRetry, markSentMany, renewLeases, type ClaimedRow, type ClaimedSubscriberRow,
} from "../../store/mail/outbox.ts";
import { recordMailEvent, suppressAddress } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";
import { subscriberToken } from "../readers/unsubscribe.ts";

export interface SendOptions {
  /** Rows claimed at once (default MAIL_BATCH_SIZE). */
  batchSize?: number;
  /** SMTP connections (default MAIL_CONCURRENCY); twice as many messages are in flight, so a connection that finishes one finds the next already waiting. */
  concurrency?: number;
  /** Epoch ms clock; defaults to the configured clock. Tests move it forward to pass a backoff. */
  now?: () => number;
  /**
   * Stops the batch (SIGTERM): no new message is started, and what is not sent is put back as
   * pending, due at once, its attempt not counted. Close the mailer as well to cut sends in flight.
   */
  signal?: AbortSignal;
}

export interface SendResult {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
  cancelled: number;
  /** Rows put back untouched by a delivery fault (the relay, not the recipient), due again when the pause ends. */
  deferred: number;
}

const MAX_BACKOFF_MS = 6 * 3600_000;
/** The longest pause after delivery faults in a row: a relay that comes back is used again within this. */
const MAX_PAUSE_MS = 5 * 60_000;

/**
 * Refusals at RCPT TO of this many recipients with the same reply (code and enhanced status), when
 * they are most of a batch or come before any acceptance, are the relay speaking, not the readers.
 */
export const RELAY_ALIKE = 5;

/** The pause after `faults` delivery faults in a row: from the retry base (at most 10 s), doubling, capped at 5 minutes. */
export function pauseMs(retryBaseSeconds: number, faults: number): number {
  return Math.min(MAX_PAUSE_MS, Math.min(retryBaseSeconds * 1000, 10_000) * 2 ** Math.max(0, faults - 1));
}

export function mailSenderIdentity(ctx: AppContext): Sender {
  return { from: mailFrom(ctx.config), baseUrl: ctx.config.baseUrl, postalAddress: ctx.config.mail.postalAddress };
}

/** Exponential backoff: base, 2x base, 4x base... capped at 6 hours. */
export function backoffMs(baseSeconds: number, attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, baseSeconds * 1000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Claims one batch of due outbox rows under a lease and sends them. A delivery is recorded only
 * after the server accepted it: the acceptances of one event-loop turn are committed together at
 * the end of that turn (one transaction), so a crash can only re-send the messages that were in
 * flight or accepted in that same turn, and those carry the same Message-ID. Temporary
 * failures go back to the queue with exponential backoff; a permanent (5xx) refusal marks the
 * address bounced and suppresses it. Mail for a subscription that ended after it was queued is
 * cancelled, not sent.
 *
 * A digest is composed once per edition (message-template.ts) and filled in per reader with the
 * address, the unsubscribe token, the Message-ID and the date; an address that would need encoding
 * in a header goes the per-message way (renderDigest and nodemailer's composer).
 */
export async function sendPendingMail(ctx: AppContext, opts: SendOptions = {}): Promise<SendResult> {
  const cfg = ctx.config.mail;
  const now = opts.now ?? (() => ctx.config.now().getTime());
  const owner = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const leaseMs = cfg.leaseSeconds * 1000;
  const claimedAt = now();
  const result: SendResult = { claimed: 0, sent: 0, retried: 0, failed: 0, cancelled: 0, deferred: 0 };
  // The relay failed the last session: nothing is claimed until the pause ends, by the sender's clock
  // (tests move it forward) or by the real one (a clock pinned with NOW never moves).
  if (claimedAt < ctx.mail.delivery.pausedUntil && Date.now() < ctx.mail.delivery.pausedUntilReal) return result;
  const rows = claimDueMail(ctx.db, owner, claimedAt, leaseMs, opts.batchSize ?? cfg.batchSize);
  result.claimed = rows.length;
  if (rows.length === 0) return result;

  const sender = mailSenderIdentity(ctx);
  const domain = senderDomain(sender.from);
  // Each edition's text part, styled HTML and preheader are made once per batch, not once per reader.
  const editions = new Map<number, PreparedEdition | undefined>();
  const edition = (id: number) => {
    if (!editions.has(id)) {
      const row = editionForMail(ctx.db, id);
      editions.set(id, row && prepareEdition(row));
    }
    return editions.get(id);
  };
  // And each edition's whole message, composed once per batch (undefined: compose per message).
  const templates = new Map<string, Promise<MessageTemplate | undefined>>();
  const templateFor = (row: ClaimedSubscriberRow, e: PreparedEdition, city: CityInfo, to: Recipient) => {
    const key = `${row.edition_id}:${row.slug}`;
    let t = templates.get(key);
    if (!t) templates.set(key, (t = digestTemplate(ctx, sender, city, e, to, `<digest-${row.id}@${domain}>`)));
    return t;
  };

  // The lease runs until `leaseUntil` by this process's clock: until then no other sender can
  // claim these rows, so the per-row check below needs no read. After a renewal came too late
  // (this process stalled), every row is checked in the database.
  let leaseUntil = claimedAt + leaseMs;
  let leaseCertain = true;
  const stillOurs = (id: number) => (leaseCertain && now() < leaseUntil) || holdsLease(ctx.db, id, owner);

  // A write that failed (a full disk): from then on nothing more is handed to the relay, since no
  // delivery could be recorded; the batch ends and the error is thrown (DeliveryRecordError).
  let writeFailed: unknown;
  let unrecorded = 0;
  // Acceptances waiting for their commit (one transaction per event-loop turn).
  const accepted: Array<{ id: number; messageId: string; at: string }> = [];
  const flush = () => {
    if (accepted.length === 0) return;
    const batch = accepted.splice(0);
    try {
      markSentMany(ctx.db, owner, batch);
    } catch (err) {
      // Left as 'sending': once the lease ends they are sent again, with the same Message-ID.
      writeFailed ??= err;
      unrecorded += batch.length;
    }
  };
  const recordSent = (id: number, messageId: string) => {
    if (accepted.length === 0) setImmediate(flush);
    accepted.push({ id, messageId, at: new Date(now()).toISOString() });
    result.sent++;
  };

  const sendOne = async (row: ClaimedRow) => {
    if (row.kind === "transactional") {
      if (row.suppressed) {
        markFinal(ctx.db, row.id, owner, "cancelled", "address suppressed (bounced or complained)");
        result.cancelled++;
        return;
      }
      const message = renderTransactional(sender, row.email, row.template, JSON.parse(row.payload));
      return deliver(row, () => ctx.mailer.send({ ...message, messageId: messageIdOf(row) }), undefined);
    }
    if (row.subscriber_status !== "active" || row.suppressed) {
      markFinal(ctx.db, row.id, owner, "cancelled", `subscription ${row.subscriber_status}${row.suppressed ? ", address suppressed" : ""}`);
      result.cancelled++;
      return;
    }
    const to = { email: row.email, token: subscriberToken(ctx, row.subscriber_id, row.email), ref: row.referral_code ?? "" };
    const city = { name: row.name, state: row.state_name, slug: row.slug };
    if (row.kind === "welcome") {
      const message = renderWelcome(sender, to, city, row.has_digest ? "today" : "next");
      return deliver(row, () => ctx.mailer.send({ ...message, messageId: messageIdOf(row) }), row.subscriber_id);
    }
    const e = row.edition_id === null ? undefined : edition(row.edition_id);
    if (!e) {
      markFinal(ctx.db, row.id, owner, "cancelled", "edition no longer exists");
      result.cancelled++;
      return;
    }
    const messageId = messageIdOf(row);
    const token = encodeURIComponent(to.token);
    const template = headerSafe(to.email) && headerSafe(token) && /^[0-9a-f]+$/.test(to.ref) && messageIdSafe(messageId) ? await templateFor(row, e, city, to) : undefined;
    if (template) {
      const raw = template.fill({ email: to.email, token, messageId, date: mailDate(), ref: to.ref });
      return deliver(row, () => ctx.mailer.sendRaw({ raw, envelope: { from: template.envelopeFrom, to: to.email }, messageId }), row.subscriber_id);
    }
    const message = renderDigest(sender, to, city, e);
    return deliver(row, () => ctx.mailer.send({ ...message, messageId }), row.subscriber_id);
  };

  // One Message-ID per outbox row: a re-send after a crash is recognisably the same message.
  const messageIdOf = (row: ClaimedRow) => `<${row.kind}-${row.id}@${domain}>`;

  // The first delivery fault of this batch: no new message is started after it.
  let fault: MailSendError | undefined;
  // Refusals at RCPT TO, settled when the batch ends: the same reply for most of the batch (or for
  // RELAY_ALIKE recipients before any acceptance) is the relay's, a fault like any other.
  const held: Array<{ row: ClaimedRow; e: MailSendError; subscriberId: number | undefined }> = [];
  const alike = new Map<string, number>();
  let relayRefusal: { kind: string; n: number; e: MailSendError } | undefined;
  const deliver = async (row: ClaimedRow, send: () => Promise<{ messageId: string }>, subscriberId: number | undefined) => {
    // Lost the row (this process stalled past its lease and another sender took it): leave it to them.
    if (writeFailed || !stillOurs(row.id)) return;
    let info;
    try {
      info = await send();
    } catch (err) {
      const e = err instanceof MailSendError ? err : new MailSendError(String((err as Error)?.message ?? err), false);
      if (opts.signal?.aborted) {
        // Stopping: the failure is most likely our own closing of the connection.
        deferRows(ctx.db, owner, [row.id], now(), `stopped: ${e.message}`, false);
        result.deferred++;
      } else if (e.scope === "recipient") {
        // Held until the batch says whether it was this reader or the relay (the same refusal for everyone).
        held.push({ row, e, subscriberId });
        const kind = replyKind(e);
        const n = (alike.get(kind) ?? 0) + 1;
        alike.set(kind, n);
        if (n >= RELAY_ALIKE && result.sent === 0 && !fault) relayRefusal = { kind, n, e };
        fault ??= relayRefusal?.e;
      } else if ((e.scope === "session" || e.scope === "message") && !(e.scope === "message" && row.attempts >= cfg.maxAttempts)) {
        // A delivery fault: the relay or the session failed, whatever the recipient. The row waits for
        // the pause; only a refusal of this very message (at DATA) counts as one of its attempts.
        fault ??= e;
        deferRows(ctx.db, owner, [row.id], now() + pauseMs(cfg.retryBaseSeconds, ctx.mail.delivery.faults + 1), e.message, e.scope === "message");
        result.deferred++;
      } else {
        settle(row, e, subscriberId);
      }
      return;
    }
    recordSent(row.id, info.messageId);
  };

  /** A failure that is this row's alone: a bounce suppresses the address; otherwise retried with backoff, up to MAIL_MAX_ATTEMPTS. */
  const settle = (row: ClaimedRow, e: MailSendError, subscriberId: number | undefined) => {
    const iso = new Date(now()).toISOString();
    if (e.bounce) {
      markFinal(ctx.db, row.id, owner, "failed", e.message);
      suppressAddress(ctx.db, row.email, "bounced", "smtp", e.message, iso);
      result.failed++;
      ctx.log.warn({ outboxId: row.id, code: e.responseCode }, "recipient refused at RCPT TO; address suppressed");
    } else if (row.attempts >= cfg.maxAttempts) {
      markFinal(ctx.db, row.id, owner, "failed", e.message);
      recordMailEvent(ctx.db, { email: row.email, subscriberId: subscriberId ?? null, kind: "soft_bounce", source: "smtp", detail: `gave up after ${row.attempts} attempts: ${e.message}`, now: iso });
      result.failed++;
    } else {
      markRetry(ctx.db, row.id, owner, now() + backoffMs(cfg.retryBaseSeconds, row.attempts), e.message);
      result.retried++;
      ctx.log.info({ outboxId: row.id, attempts: row.attempts, code: e.responseCode, error: e.message }, "temporary delivery failure; will retry");
    }
  };

  // A fixed number of workers pull from the batch: at most 2 x `concurrency` messages in flight. The
  // lease is renewed every third of its length, so a slow server never lets it lapse mid-batch.
  let next = 0;
  // Anything else thrown (a bug) also stops every worker, and is thrown once the batch has ended.
  let crashed: { err: unknown } | undefined;
  const worker = async () => {
    while (next < rows.length && !fault && !writeFailed && !crashed && !opts.signal?.aborted) {
      try {
        await sendOne(rows[next++]);
      } catch (err) {
        if (/^SQLITE_/.test(String((err as { code?: unknown })?.code))) writeFailed ??= err;
        else crashed ??= { err };
      }
    }
  };
  const renew = setInterval(() => {
    const t = now();
    if (t >= leaseUntil) leaseCertain = false;
    try {
      renewLeases(ctx.db, owner, t + leaseMs);
    } catch (err) {
      writeFailed ??= err;
      return;
    }
    if (leaseCertain) leaseUntil = t + leaseMs;
  }, leaseMs / 3);
  try {
    await Promise.all(Array.from({ length: Math.min(2 * (opts.concurrency ?? cfg.concurrency), rows.length) }, worker));
  } finally {
    clearInterval(renew);
    flush();
  }
  if (crashed) throw crashed.err;
  if (writeFailed) {
    // Nothing more can be recorded: the rows stay claimed until their lease ends, then are sent
    // again (the unrecorded ones with the same Message-ID), once there is room.
    const e = writeFailed as Error;
    ctx.log.error(
      { alert: storageFullError(e) ? "storage_full" : "mail_record_failed", error: e.message, sent: result.sent, unrecorded },
      "mail sender stopped: a delivery could not be recorded in the database; nothing more is handed to the mail server",
    );
    throw new DeliveryRecordError(e, unrecorded, result);
  }
  if (!relayRefusal && !fault) {
    const [kind, n] = [...alike].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
    if (n >= RELAY_ALIKE && 2 * n > result.sent + held.length) fault = (relayRefusal = { kind, n, e: held.find((h) => replyKind(h.e) === kind)!.e }).e;
  }
  for (const h of held) {
    if (relayRefusal && replyKind(h.e) === relayRefusal.kind) continue; // deferred with the pause below
    if (opts.signal?.aborted) result.deferred += deferRows(ctx.db, owner, [h.row.id], now(), `stopped: ${h.e.message}`, false);
    else settle(h.row, h.e, h.subscriberId);
  }
  if (opts.signal?.aborted && !fault) {
    const untried = rows.slice(next).map((r) => r.id);
    if (untried.length) deferRows(ctx.db, owner, untried, now(), "not tried: the sender stopped", false);
    result.deferred += untried.length;
  } else if (fault) {
    // Pause, and put back what this batch did not try: the relay is unwell, not these readers.
    const d = ctx.mail.delivery;
    d.faults++;
    const pause = pauseMs(cfg.retryBaseSeconds, d.faults);
    d.pausedUntil = now() + pause;
    d.pausedUntilReal = Date.now() + pause;
    const untried = rows.slice(next).map((r) => r.id);
    if (untried.length) deferRows(ctx.db, owner, untried, d.pausedUntil, `not tried: ${fault.message}`, false);
    result.deferred += untried.length;
    if (relayRefusal) {
      // Nobody's attempt counted: the relay refused every one of them the same way.
      const refused = held.filter((h) => replyKind(h.e) === relayRefusal!.kind).map((h) => h.row.id);
      deferRows(ctx.db, owner, refused, d.pausedUntil, `the relay refused ${refused.length} recipients alike: ${relayRefusal.e.message}`, false);
      result.deferred += refused.length;
    }
    ctx.log.error(
      { alert: "mail_delivery_fault", code: fault.responseCode, scope: relayRefusal ? "relay" : fault.scope, error: fault.message, faultsInARow: d.faults, pausedForMs: pause, deferred: result.deferred },
      relayRefusal
        ? `mail delivery paused: the mail server refused ${held.filter((h) => replyKind(h.e) === relayRefusal!.kind).length} recipients alike (${relayRefusal.kind}), which is the server speaking, not the readers (nothing suppressed; the rows stay pending)`
        : "mail delivery paused: the mail server failed the session (nothing suppressed; the rows stay pending)",
    );
  } else if (result.sent > 0 && ctx.mail.delivery.faults > 0) {
    ctx.log.info({ afterFaults: ctx.mail.delivery.faults }, "mail delivery resumed");
    ctx.mail.delivery.faults = 0;
    ctx.mail.delivery.pausedUntil = 0;
    ctx.mail.delivery.pausedUntilReal = 0;
  }
  return result;
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

/** What a refusal says, for telling one reader's refusal from the same one for everybody: its code and enhanced status. */
function replyKind(e: MailSendError): string {
  return [e.responseCode ?? "", enhancedStatus(e.message)?.status ?? ""].join(" ").trim();
}

/**
 * The per-edition template of a digest, checked against renderDigest for the batch's first reader:
 * if the template does not reproduce that message exactly, digests go the per-message way.
 */
async function digestTemplate(ctx: AppContext, sender: Sender, city: CityInfo, e: PreparedEdition, first: Recipient, firstMessageId: string): Promise<MessageTemplate | undefined> {
  try {
    const template = await compileMessageTemplate(renderDigest(sender, { email: MARKS.email, token: MARKS.token, ref: MARKS.ref }, city, e));
    const expected = renderDigest(sender, first, city, e);
    const got = template.plain({ email: first.email, token: encodeURIComponent(first.token), messageId: firstMessageId, date: "", ref: first.ref ?? "" });
    if (got.text === expected.text && got.html === expected.html && JSON.stringify(got.headers) === JSON.stringify(expected.headers)) return template;
    ctx.log.warn({ city: city.slug, date: e.date }, "digest template does not match the rendered digest; composing each message");
  } catch (err) {
    ctx.log.warn({ err, city: city.slug, date: e.date }, "digest template failed; composing each message");
  }
  return undefined;
}

/** The Date header as nodemailer writes it. */
function mailDate(): string {
  return new Date().toUTCString().replace(/GMT/, "+0000");
}

/** Sends batches until nothing is due. */
export async function drainDueMail(ctx: AppContext, opts: SendOptions = {}): Promise<SendResult> {
  const total: SendResult = { claimed: 0, sent: 0, retried: 0, failed: 0, cancelled: 0, deferred: 0 };
  for (;;) {
    const r = await sendPendingMail(ctx, opts);
    for (const k of Object.keys(total) as Array<keyof SendResult>) total[k] += r[k];
    // A delivery fault (sending is paused) or a batch of only temporary failures: wait for the next tick.
    if (r.claimed === 0 || r.deferred > 0 || r.retried === r.claimed || opts.signal?.aborted) return total;
  }
}

export interface MailSenderLoop {
  /** Look for due mail now instead of at the next tick (e.g. right after a subscribe). */
  kick(): void;
  /** Starts no new message, waits up to `graceMs` for those in flight, then cuts them (they stay pending). */
  stop(graceMs?: number): Promise<void>;
}

/** The server's background sender: drains the outbox every `MAIL_SEND_INTERVAL_MS`. */
export function startMailSender(ctx: AppContext): MailSenderLoop {
  if (ctx.config.smtpUrl) {
    // Real mail is going out: say what inbox providers and anti-spam law will object to.
    if (!ctx.config.baseUrl.startsWith("https://")) ctx.log.warn({ baseUrl: ctx.config.baseUrl }, "BASE_URL is not https: unsubscribe links in emails will not be https");
    if (ctx.config.mail.postalAddress.includes("postal address not configured")) ctx.log.warn("POSTAL_ADDRESS is not set: email footers carry no postal address");
  }
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const stopping = new AbortController();
  const tick = () => {
    if (stopped || running) return;
    clearTimeout(timer);
    running = drainDueMail(ctx, { signal: stopping.signal })
      .then((r) => { if (r.claimed) ctx.log.info(r, "mail sent"); })
      // A DeliveryRecordError has been logged (and alerted) already; the next tick tries again.
      .catch((err) => { if (!(err instanceof DeliveryRecordError)) ctx.log.error({ err }, "mail sender failed"); })
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, ctx.config.mail.sendIntervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  const kick = () => setImmediate(tick);
  const unlisten = ctx.mail.onKick(kick);
  return {
    kick,
    async stop(graceMs = Math.min(5000, ctx.config.http.shutdownTimeoutMs)) {
      stopped = true;
      clearTimeout(timer);
      unlisten();
      stopping.abort();
      if (!running) return;
      // Messages in flight get `graceMs` to be answered; then their connections are cut and the
      // rows go back to pending (the caller closes the mailer anyway).
      let bound: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => { bound = setTimeout(() => resolve("late"), graceMs); });
      if ((await Promise.race([running, late])) === "late") await ctx.mailer.close();
      clearTimeout(bound);
      await running;
    },
  };
}
