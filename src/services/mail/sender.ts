import type { AppContext } from "../platform/context.ts";
import { emptyResult, type SendOptions, type SendResult } from "./batch.ts";
import { claimBatch } from "./claim.ts";
import { rowSender } from "./messages.ts";
import { deliverBatch } from "./deliver.ts";
import { DeliveryRecordError, settleBatch } from "./settle.ts";
import { createDigestCache } from "./digest-cache.ts";


/**
 * Claims one batch of due outbox rows under a lease and sends them. A delivery is recorded only
 * after the server accepted it: the acceptances of one event-loop turn are committed together at
 * the end of that turn (one transaction), so a crash can only re-send the messages that were in
 * flight or accepted in that same turn, and those carry the same Message-ID. Temporary
 * failures go back to the queue with exponential backoff; a permanent (5xx) refusal marks the
 * address bounced and suppresses it. Mail for a subscription that ended after it was queued is
 * cancelled, not sent.
 *
 * The steps: claim.ts leases the rows (and reads them a slice at a time), messages.ts makes each
 * row's message (digest-cache.ts keeps each edition's template from batch to batch), deliver.ts
 * hands them to the relay through the pool, settle.ts records what came of each.
 */
export async function sendPendingMail(ctx: AppContext, opts: SendOptions = {}): Promise<SendResult> {
  const batch = claimBatch(ctx, opts);
  if (batch.ids.length === 0) return batch.result;
  await deliverBatch(batch, rowSender(batch));
  return settleBatch(batch);
}

/** Sends batches until nothing is due. */
export async function drainDueMail(ctx: AppContext, opts: SendOptions = {}): Promise<SendResult> {
  const total = emptyResult();
  const batches = { ...opts, cache: opts.cache ?? createDigestCache() };
  for (;;) {
    const r = await sendPendingMail(ctx, batches);
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
