/**
 * Staff commands. Usage:
 *   npm run admin -- suppress FILE [--reason bounced|complained|unsubscribed|manual]
 *       one address per line (`-` reads stdin; blank lines and # comments skipped). Each address gets no
 *       more mail, its subscriptions take the matching status, its unsent mail is cancelled. Nothing is deleted.
 *   npm run admin -- status EMAIL       subscriptions, suppression and history of one address
 *   npm run admin -- outbox             outbox rows by status
 */
import fs from "node:fs";
import { z } from "zod";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { suppress } from "../src/services/suppressions.ts";
import { outboxCounts } from "../src/store/outbox.ts";
import { findSuppression, mailEventsOf, subscriptionsOf, type SuppressionReason } from "../src/store/subscribers.ts";

const REASONS = ["bounced", "complained", "unsubscribed", "manual"] as const;
const [command, arg, ...rest] = process.argv.slice(2);

function usage(): never {
  console.error("usage: npm run admin -- suppress FILE [--reason bounced|complained|unsubscribed|manual] | status EMAIL | outbox");
  process.exit(2);
}

if (!command || !["suppress", "status", "outbox"].includes(command)) usage();
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" }));

if (command === "suppress") {
  if (!arg) usage();
  const r = rest.indexOf("--reason");
  const reason = (r >= 0 ? rest[r + 1] : "manual") as SuppressionReason;
  if (!REASONS.includes(reason)) usage();
  const text = fs.readFileSync(arg === "-" ? 0 : arg, "utf8");
  let added = 0, already = 0;
  const invalid: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    if (!z.email().safeParse(line).success) {
      invalid.push(line);
      continue;
    }
    if (suppress(ctx, line, reason, "admin")) added++;
    else already++;
  }
  console.log(`suppressed ${added} address(es) as ${reason}; ${already} already suppressed; ${invalid.length} invalid line(s)`);
  for (const line of invalid) console.log(`  not an address: ${line}`);
} else if (command === "status") {
  if (!arg) usage();
  const email = arg.trim().toLowerCase();
  const s = findSuppression(ctx.db, email);
  console.log(s ? `suppressed: ${s.reason} (${s.source}, ${s.created_at})` : "not suppressed");
  for (const sub of subscriptionsOf(ctx.db, email)) console.log(`  ${sub.slug}: ${sub.status}`);
  for (const e of mailEventsOf(ctx.db, email)) console.log(`  ${e.created_at} ${e.kind} via ${e.source}${e.detail ? `: ${e.detail}` : ""}`);
} else {
  console.log(JSON.stringify(outboxCounts(ctx.db)));
}
ctx.db.close();
