/**
 * `npm run mail:send`: delivers the email outbox and exits when nothing is left to do now (rows in
 * backoff wait for the next run). Leases held by a sender that died are waited out and taken over.
 * `npm run mail:send -- --watch` keeps running, like the server's background sender.
 * Safe to run several at once, and next to the server: rows are claimed under a lease.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createContext } from "../src/app.ts";
import { configForSite, loadConfig } from "../src/config.ts";
import { sendPendingMail, type SendResult } from "../src/services/mail-sender.ts";
import { nextLeaseExpiry, outboxCounts } from "../src/store/outbox.ts";

const watch = process.argv.includes("--watch");
const config = configForSite(loadConfig());
const ctx = createContext(config);
const total: SendResult = { claimed: 0, sent: 0, retried: 0, failed: 0, cancelled: 0 };
let stopping = false;
process.on("SIGINT", () => (stopping = true));
process.on("SIGTERM", () => (stopping = true));

while (!stopping) {
  const r = await sendPendingMail(ctx);
  for (const k of Object.keys(total) as Array<keyof SendResult>) total[k] += r[k];
  if (r.claimed > 0 && r.retried < r.claimed) continue;
  const leaseEnds = nextLeaseExpiry(ctx.db);
  if (!watch && leaseEnds === undefined) break;
  await sleep(watch ? config.mail.sendIntervalMs : Math.min(1000, Math.max(50, leaseEnds! - Date.now())));
}
await ctx.mailer.close();
console.log(`mail: ${total.sent} sent, ${total.retried} to retry, ${total.failed} failed, ${total.cancelled} cancelled; outbox now ${JSON.stringify(outboxCounts(ctx.db))}`);
ctx.db.close();
