/**
 * `npm run mail:send`: delivers the email outbox and exits when nothing is left to do now (rows in
 * backoff wait for the next run). Leases held by a sender that died are waited out and taken over.
 * `npm run mail:send -- --watch` keeps running, like the server's background sender.
 * Safe to run several at once, and next to the server: rows are claimed under a lease.
 *
 * A delivery fault (the relay refused the connection, the greeting, AUTH or MAIL FROM, or a
 * timeout) ends a run at once, exit code 75 (EX_TEMPFAIL), with the rows pending for the next one.
 * SIGTERM/SIGINT: no new message is started, those in flight get a few seconds, then their
 * connections are cut; everything not sent is left pending and the process exits (code 143/130).
 * A delivery that cannot be recorded (a full disk) stops it at once: nothing more is handed to the
 * relay, and it exits with code 74 (EX_IOERR) and one line saying so.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { configForSite } from "./cli/config-for-site.ts";
import { DeliveryRecordError } from "../src/services/mail/settle.ts";
import { createDigestCache } from "../src/services/mail/digest-cache.ts";
import { sendPendingMail } from "../src/services/mail/sender.ts";
import type { SendResult } from "../src/services/mail/batch.ts";
import { nextLeaseExpiry, outboxCounts } from "../src/store/mail/outbox.ts";

const watch = process.argv.includes("--watch");
const config = configForSite(loadConfig());
const ctx = createContext(config);
const total: SendResult = { claimed: 0, sent: 0, retried: 0, failed: 0, cancelled: 0, deferred: 0 };
const stop = new AbortController();
let signalled: NodeJS.Signals | undefined;
const onSignal = (signal: NodeJS.Signals) => {
  if (signalled) return;
  signalled = signal;
  stop.abort();
  // Sends in flight get a short grace, then their connections are cut (they go back to pending).
  setTimeout(() => void ctx.mailer.close(), Math.min(5000, config.http.shutdownTimeoutMs)).unref();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

let faulted = false;
// Each edition's prepared parts and digest template, kept from batch to batch.
const cache = createDigestCache();
while (!stop.signal.aborted) {
  let r: SendResult;
  try {
    r = await sendPendingMail(ctx, { signal: stop.signal, cache });
  } catch (err) {
    if (!(err instanceof DeliveryRecordError)) throw err;
    for (const k of Object.keys(total) as Array<keyof SendResult>) total[k] += err.result[k];
    await ctx.mailer.close();
    console.error(`mail: stopped: ${err.message}`);
    console.log(`mail: ${total.sent} accepted by the mail server (${err.unrecorded} of them not recorded); outbox now ${JSON.stringify(outboxCounts(ctx.db))}`);
    try {
      ctx.db.close();
    } catch {
      // Closing checkpoints the WAL, which may fail on a full disk: nothing is lost by it.
    }
    process.exit(74);
  }
  for (const k of Object.keys(total) as Array<keyof SendResult>) total[k] += r[k];
  if (r.deferred > 0 && !stop.signal.aborted) {
    // The relay failed the session: sending is paused. Once: stop here; watching: wait out the pause.
    if (!watch) {
      faulted = true;
      break;
    }
    await sleep(Math.max(50, ctx.mail.delivery.pausedUntilReal - Date.now()), undefined, { signal: stop.signal }).catch(() => {});
    continue;
  }
  if (r.claimed > 0 && r.retried < r.claimed) continue;
  const leaseEnds = nextLeaseExpiry(ctx.db);
  if (!watch && leaseEnds === undefined) break;
  await sleep(watch ? config.mail.sendIntervalMs : Math.min(1000, Math.max(50, leaseEnds! - Date.now())), undefined, { signal: stop.signal }).catch(() => {});
}
await ctx.mailer.close();
console.log(`mail: ${total.sent} sent, ${total.retried} to retry, ${total.failed} failed, ${total.cancelled} cancelled, ${total.deferred} deferred; outbox now ${JSON.stringify(outboxCounts(ctx.db))}`);
ctx.db.close();
if (signalled) process.exit(signalled === "SIGINT" ? 130 : 143);
if (faulted) process.exit(75);
