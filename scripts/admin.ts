/**
 * Staff commands. Usage:
 *   npm run admin -- suppress FILE [--reason bounced|complained|unsubscribed|manual]
 *       one address per line (`-` reads stdin; blank lines and # comments skipped). Each address gets no
 *       more mail, its subscriptions take the matching status, its unsent mail is cancelled. Nothing is deleted.
 *   npm run admin -- status EMAIL       subscriptions, suppression and history of one address
 *   npm run admin -- outbox             outbox rows by status
 *   npm run admin -- orders list [--status STATUS]   listing orders, newest first
 *   npm run admin -- orders show ID
 *   npm run admin -- orders approve ID               publish a free listing awaiting review
 *   npm run admin -- orders reject ID --reason "..." reject one awaiting review or held (the buyer is emailed the reason)
 *   npm run admin -- orders release ID               release a held listing (paid tier: its payment link is issued)
 *       The orders commands go through the same operations as the admin endpoints (/admin/orders...).
 */
import fs from "node:fs";
import { z } from "zod";
import { createContext } from "../src/app.ts";
import { configForSite, loadConfig } from "../src/config.ts";
import { operationsById } from "../src/contract/operations/index.ts";
import type { Operation } from "../src/contract/operation.ts";
import { AppError } from "../src/core/errors.ts";
import { admit, runOperation, type Caller } from "../src/services/operations.ts";
import { suppress } from "../src/services/suppressions.ts";
import { outboxCounts } from "../src/store/outbox.ts";
import { findSuppression, mailEventsOf, subscriptionsOf, type SuppressionReason } from "../src/store/subscribers.ts";

const REASONS = ["bounced", "complained", "unsubscribed", "manual"] as const;
const [command, arg, ...rest] = process.argv.slice(2);

function usage(): never {
  console.error("usage: npm run admin -- suppress FILE [--reason bounced|complained|unsubscribed|manual] | status EMAIL | outbox\n" +
    "       npm run admin -- orders list [--status STATUS] | show ID | approve ID | reject ID --reason \"...\" | release ID");
  process.exit(2);
}

if (!command || !["suppress", "status", "outbox", "orders"].includes(command)) usage();
const ctx = createContext(configForSite(loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" })));

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
} else if (command === "orders") {
  process.exitCode = await orders(arg, rest);
} else {
  console.log(JSON.stringify(outboxCounts(ctx.db)));
}
ctx.db.close();

/** Staff review through the same operations (auth, validation, service) as the admin endpoints. */
async function orders(sub: string | undefined, args: string[]): Promise<number> {
  const flag = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  const id = args[0];
  const call: Record<string, [Operation, Record<string, unknown>]> = {
    list: [operationsById.adminListOrders, { ...(flag("--status") ? { status: flag("--status") } : {}) }],
    show: [operationsById.adminShowOrder, { id }],
    approve: [operationsById.adminApproveOrder, { id }],
    reject: [operationsById.adminRejectOrder, { id, reason: flag("--reason") }],
    release: [operationsById.adminReleaseOrder, { id }],
  };
  if (!sub || !call[sub]) usage();
  const [op, raw] = call[sub];
  const caller: Caller = { transport: "cli", address: "local", admin: true };
  try {
    admit(ctx, op, caller);
    const input: Record<string, unknown> = {};
    for (const schema of [op.params, op.query, op.body]) {
      if (!schema) continue;
      const parsed = schema.safeParse(raw);
      if (!parsed.success) throw new AppError("validation_error", parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
      Object.assign(input, parsed.data);
    }
    const { data } = await runOperation(ctx, op, input, caller);
    if (sub === "list") {
      const list = (data as { orders: Array<Record<string, unknown>> }).orders;
      for (const o of list) console.log(`${o.id}  ${String(o.status).padEnd(15)} ${o.product} ${o.tier}  ${(o.town as { slug: string }).slug}  ${JSON.stringify(o.title)}  ${o.buyerEmail}${o.rule ? `  [${o.rule}]` : ""}`);
      console.log(`${list.length} order(s)`);
    } else {
      console.log(JSON.stringify(data, null, 2));
    }
    return 0;
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`${err.code}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
