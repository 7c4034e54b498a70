import crypto from "node:crypto";
import os from "node:os";
import { mailFrom } from "../config.ts";
import { renderTransactional } from "../core/commerce-mail.ts";
import { prepareEdition, renderDigest, renderWelcome, senderDomain, type PreparedEdition, type Sender } from "../core/email-render.ts";
import { MailSendError } from "../integrations/mail/types.ts";
import {
  claimDueMail, editionForMail, markFinal, markRetry, markSent, holdsLease, renewLeases, type ClaimedRow,
} from "../store/outbox.ts";
import { recordMailEvent, suppressAddress } from "../store/subscribers.ts";
import type { AppContext } from "./context.ts";
import { subscriberToken } from "./unsubscribe.ts";

export interface SendOptions {
  /** Rows claimed at once (default MAIL_BATCH_SIZE). */
  batchSize?: number;
  /** Messages in flight at once (default MAIL_CONCURRENCY). */
  concurrency?: number;
  /** Epoch ms clock; defaults to the configured clock. Tests move it forward to pass a backoff. */
  now?: () => number;
}

export interface SendResult {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
  cancelled: number;
}

const MAX_BACKOFF_MS = 6 * 3600_000;

export function mailSenderIdentity(ctx: AppContext): Sender {
  return { from: mailFrom(ctx.config), baseUrl: ctx.config.baseUrl, postalAddress: ctx.config.mail.postalAddress };
}

/** Exponential backoff: base, 2x base, 4x base... capped at 6 hours. */
export function backoffMs(baseSeconds: number, attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, baseSeconds * 1000 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Claims one batch of due outbox rows under a lease and sends them. Each delivery is recorded the
 * moment the server accepts it (one synchronous SQLite write), so a crash can only re-send the
 * messages that were in flight, and those carry the same Message-ID. Temporary failures go back to
 * the queue with exponential backoff; a permanent (5xx) refusal marks the address bounced and
 * suppresses it. Mail for a subscription that ended after it was queued is cancelled, not sent.
 */
export async function sendPendingMail(ctx: AppContext, opts: SendOptions = {}): Promise<SendResult> {
  const cfg = ctx.config.mail;
  const now = opts.now ?? (() => ctx.config.now().getTime());
  const owner = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const rows = claimDueMail(ctx.db, owner, now(), cfg.leaseSeconds * 1000, opts.batchSize ?? cfg.batchSize);
  const result: SendResult = { claimed: rows.length, sent: 0, retried: 0, failed: 0, cancelled: 0 };
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

  const sendOne = async (row: ClaimedRow) => {
    if (row.kind === "transactional") {
      if (row.suppressed) {
        markFinal(ctx.db, row.id, owner, "cancelled", "address suppressed (bounced or complained)");
        result.cancelled++;
        return;
      }
      return deliver(row, renderTransactional(sender, row.email, row.template, JSON.parse(row.payload)), undefined);
    }
    if (row.subscriber_status !== "active" || row.suppressed) {
      markFinal(ctx.db, row.id, owner, "cancelled", `subscription ${row.subscriber_status}${row.suppressed ? ", address suppressed" : ""}`);
      result.cancelled++;
      return;
    }
    const to = { email: row.email, token: subscriberToken(ctx, row.subscriber_id, row.email) };
    const city = { name: row.name, state: row.state_name, slug: row.slug };
    let message;
    if (row.kind === "welcome") {
      message = renderWelcome(sender, to, city, row.has_digest ? "today" : "next");
    } else {
      const e = row.edition_id === null ? undefined : edition(row.edition_id);
      if (!e) {
        markFinal(ctx.db, row.id, owner, "cancelled", "edition no longer exists");
        result.cancelled++;
        return;
      }
      message = renderDigest(sender, to, city, e);
    }
    return deliver(row, message, row.subscriber_id);
  };

  const deliver = async (row: ClaimedRow, message: ReturnType<typeof renderWelcome>, subscriberId: number | undefined) => {
    // Lost the row (this process stalled past its lease and another sender took it): leave it to them.
    if (!holdsLease(ctx.db, row.id, owner)) return;
    try {
      // One Message-ID per outbox row: a re-send after a crash is recognisably the same message.
      const info = await ctx.mailer.send({ ...message, messageId: `<${row.kind}-${row.id}@${domain}>` });
      markSent(ctx.db, row.id, owner, info.messageId, new Date(now()).toISOString());
      result.sent++;
    } catch (err) {
      const e = err instanceof MailSendError ? err : new MailSendError(String((err as Error)?.message ?? err), false);
      const iso = new Date(now()).toISOString();
      if (e.permanent) {
        markFinal(ctx.db, row.id, owner, "failed", e.message);
        suppressAddress(ctx.db, row.email, "bounced", "smtp", e.message, iso);
        result.failed++;
        ctx.log.warn({ outboxId: row.id, code: e.responseCode }, "permanent delivery failure; address suppressed");
      } else if (row.attempts >= cfg.maxAttempts) {
        markFinal(ctx.db, row.id, owner, "failed", e.message);
        recordMailEvent(ctx.db, { email: row.email, subscriberId: subscriberId ?? null, kind: "soft_bounce", source: "smtp", detail: `gave up after ${row.attempts} attempts: ${e.message}`, now: iso });
        result.failed++;
      } else {
        markRetry(ctx.db, row.id, owner, now() + backoffMs(cfg.retryBaseSeconds, row.attempts), e.message);
        result.retried++;
        ctx.log.info({ outboxId: row.id, attempts: row.attempts, code: e.responseCode, error: e.message }, "temporary delivery failure; will retry");
      }
    }
  };

  // A fixed number of workers pull from the batch: at most `concurrency` messages in flight. The
  // lease is renewed every third of its length, so a slow server never lets it lapse mid-batch.
  let next = 0;
  const worker = async () => {
    while (next < rows.length) await sendOne(rows[next++]);
  };
  const leaseMs = cfg.leaseSeconds * 1000;
  const renew = setInterval(() => renewLeases(ctx.db, owner, now() + leaseMs), leaseMs / 3);
  try {
    await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? cfg.concurrency, rows.length) }, worker));
  } finally {
    clearInterval(renew);
  }
  return result;
}

/** Sends batches until nothing is due. */
export async function drainDueMail(ctx: AppContext, opts: SendOptions = {}): Promise<SendResult> {
  const total: SendResult = { claimed: 0, sent: 0, retried: 0, failed: 0, cancelled: 0 };
  for (;;) {
    const r = await sendPendingMail(ctx, opts);
    for (const k of Object.keys(total) as Array<keyof SendResult>) total[k] += r[k];
    // A batch of only temporary failures means the server is down: wait for the next tick.
    if (r.claimed === 0 || r.retried === r.claimed) return total;
  }
}

export interface MailSenderLoop {
  /** Look for due mail now instead of at the next tick (e.g. right after a subscribe). */
  kick(): void;
  stop(): Promise<void>;
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
  const tick = () => {
    if (stopped || running) return;
    clearTimeout(timer);
    running = drainDueMail(ctx)
      .then((r) => { if (r.claimed) ctx.log.info(r, "mail sent"); })
      .catch((err) => ctx.log.error({ err }, "mail sender failed"))
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
    async stop() {
      stopped = true;
      clearTimeout(timer);
      unlisten();
      await running;
    },
  };
}
