/**
 * Staff commands. Usage:
 *   npm run admin -- suppress FILE [--reason bounced|complained|unsubscribed|manual]
 *       one address per line (`-` reads stdin; blank lines and # comments skipped). Each address gets no
 *       more mail, its subscriptions take the matching status, its unsent mail is cancelled. Nothing is deleted.
 *   npm run admin -- status EMAIL       subscriptions, suppression and history of one address
 *   npm run admin -- outbox             outbox rows by status
 *   npm run admin -- arf FILE...        complaint feedback-loop reports (RFC 5965) saved from a mailbox (.eml,
 *       Maildir files): each suppresses the reader it is about, as POST /webhooks/mail/arf does.
 *   npm run admin -- orders list [--status STATUS]   listing orders, newest first
 *   npm run admin -- orders show ID
 *   npm run admin -- orders approve ID               publish a free listing awaiting review
 *   npm run admin -- orders reject ID --reason "..." reject one awaiting review or held (the reason shows on the order page)
 *   npm run admin -- orders release ID               release a held listing (paid tier: its payment link is issued)
 *       The orders commands go through the same operations as the admin endpoints (/admin/orders...).
 *   npm run admin -- leases list [--status STATUS]   town leases, newest first (/admin/leases)
 *   npm run admin -- leases end ID                   end an active lease now: the town is free, its operator's
 *       notes after today and feeds stop (a Stripe lease: cancel its subscription in Stripe instead)
 *   npm run admin -- payouts report --month YYYY-MM   what each operator earned that month and is owed, as CSV
 *   npm run admin -- payouts settle                   Stripe mode: transfer what accrued to connected accounts
 *   npm run admin -- feeds add SLUG URL     add a town's iCalendar, RSS or Atom feed (fetched once now to vet it)
 *   npm run admin -- feeds list [SLUG]      the feeds of one town, or of every town, with their fetch status
 *   npm run admin -- feeds remove ID        remove a feed
 *       The feeds commands go through the same operations as /admin/towns/{slug}/feeds and /admin/feeds/{id}.
 *   npm run admin -- clicks SLUG [--csv]       a town's clicks per edition and its most followed links (what its operator sees)
 *   npm run admin -- clicks --order ID [--csv] a listing's editions, emails delivered and clicks per day (what its buyer sees)
 *   npm run admin -- directory import       build the town directory from TOWN_SOURCES_DIR (content/data/sources);
 *       prints what matched and the counts; running it again changes nothing (docs/sources.md)
 *   npm run admin -- directory list SLUG    a town's candidate sources (kind, scope, name, URL, feeds, dataset
 *       and row, verification) and the feeds verified from them
 *   npm run admin -- directory verify SLUG  try that town's directory candidates now; prints the outcome of each
 *   npm run admin -- directory block host|source VALUE [--reason "..."]   keep a host or one address out everywhere
 *   npm run admin -- directory unblock host|source VALUE | blocks
 *   npm run admin -- fediverse block HOST [--reason "..."]   refuse an instance: its follows get a Reject, its
 *       followers are removed;  fediverse unblock HOST | blocks   (docs/fediverse.md)
 */
import fs from "node:fs";
import { z } from "zod";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { configForSite } from "./cli/config-for-site.ts";
import { FEDIVERSE_USAGE, fediverseCommand } from "./cli/fediverse.ts";
import type { AdminLeaseList } from "../src/contract/commerce.ts";
import { operationsById } from "../src/contract/operations/index.ts";
import type { Operation } from "../src/contract/operation.ts";
import { AppError } from "../src/core/errors.ts";
import { admit, runOperation, type Caller } from "../src/services/operations/bindings.ts";
import { directoryReport, importDirectory } from "../src/services/directory/import.ts";
import { listingNumbers, listingNumbersCsv, townClicks, townClicksCsv } from "../src/services/readers/clicks.ts";
import { payoutsReport, settleAllPayouts } from "../src/services/commerce/payouts.ts";
import { candidatesOfPlace } from "../src/store/directory/candidates.ts";
import { listTownFeeds } from "../src/store/sources/feeds.ts";
import { findPlaceBySlug } from "../src/store/places/places.ts";
import { handleArfReport } from "../src/services/mail/feedback.ts";
import { suppress } from "../src/services/readers/suppressions.ts";
import { outboxCounts } from "../src/store/mail/outbox.ts";
import { findSuppression, mailEventsOf, subscriptionsOf, type SuppressionReason } from "../src/store/readers/subscribers.ts";

const REASONS = ["bounced", "complained", "unsubscribed", "manual"] as const;
const [command, arg, ...rest] = process.argv.slice(2);

function usage(): never {
  console.error("usage: npm run admin -- suppress FILE [--reason bounced|complained|unsubscribed|manual] | status EMAIL | outbox | arf FILE...\n" +
    "       npm run admin -- orders list [--status STATUS] | show ID | approve ID | reject ID --reason \"...\" | release ID\n" +
    "       npm run admin -- leases list [--status STATUS] | end ID\n" +
    "       npm run admin -- payouts report --month YYYY-MM | settle\n" +
    "       npm run admin -- feeds add SLUG URL | list [SLUG] | remove ID\n" +
    "       npm run admin -- clicks SLUG [--csv] | clicks --order ID [--csv]\n" +
    "       npm run admin -- directory import | list SLUG | verify SLUG | block host|source VALUE [--reason \"...\"] | unblock host|source VALUE | blocks\n" +
    `       ${FEDIVERSE_USAGE}`);
  process.exit(2);
}

if (!command || !["suppress", "status", "outbox", "orders", "leases", "payouts", "feeds", "clicks", "arf", "directory", "fediverse"].includes(command)) usage();
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
} else if (command === "arf") {
  if (!arg) usage();
  for (const file of [arg, ...rest]) {
    try {
      const r = await handleArfReport(ctx, fs.readFileSync(file, "utf8"));
      console.log(`${file}: ${r.suppressed} suppressed, ${r.duplicates} already seen, ${r.unmatched} about no known reader, ${r.ignored} not a complaint`);
    } catch (err) {
      console.log(`${file}: ${err instanceof AppError ? err.message : String(err)}`);
      process.exitCode = 1;
    }
  }
} else if (command === "orders") {
  process.exitCode = await orders(arg, rest);
} else if (command === "leases") {
  process.exitCode = await leases(arg, rest);
} else if (command === "payouts") {
  if (arg === "report") {
    const i = rest.indexOf("--month");
    const month = i >= 0 ? rest[i + 1] : undefined;
    if (!month) usage();
    try {
      process.stdout.write(payoutsReport(ctx, month));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      console.error(`${err.code}: ${err.message}`);
      process.exitCode = 2;
    }
  } else if (arg === "settle") {
    if (!ctx.connect) {
      console.error("payouts settle needs Stripe mode (STRIPE_SECRET_KEY); in local mode use payouts report");
      process.exitCode = 1;
    } else await settleAllPayouts(ctx);
  } else usage();
} else if (command === "feeds") {
  process.exitCode = await feeds(arg, rest);
} else if (command === "clicks") {
  process.exitCode = clicks(arg, rest);
} else if (command === "directory") {
  process.exitCode = arg === "import" || arg === "list" ? await directory(arg, rest) : await directorySources(arg, rest);
} else if (command === "fediverse") {
  process.exitCode = fediverseCommand(ctx, arg, rest) ?? usage();
} else {
  console.log(JSON.stringify(outboxCounts(ctx.db)));
}
ctx.db.close();

/** A town's feeds through the same operations (validation, service) as the admin endpoints. */
async function feeds(sub: string | undefined, args: string[]): Promise<number> {
  const call: Record<string, [Operation, Record<string, unknown>]> = {
    add: [operationsById.adminAddFeed, { slug: args[0], url: args[1] }],
    list: [operationsById.adminListFeeds, args[0] ? { slug: args[0] } : {}],
    remove: [operationsById.adminRemoveFeed, { id: args[0] }],
  };
  if (!sub || !call[sub] || (sub === "add" && args.length < 2) || (sub === "remove" && !args[0])) usage();
  const [op, raw] = call[sub];
  const result = await runAsStaff(op, raw);
  if (!result.ok) return 1;
  const line = (f: Record<string, unknown>) => {
    const town = (f.town as { slug: string }).slug;
    const status = f.status === "failing" ? `FAILING (${f.consecutiveFailures} mornings: ${f.lastError})` : f.lastError ? `ok, last fetch failed: ${f.lastError}` : "ok";
    return `${String(f.id).padStart(5)}  ${town}  ${f.kind}  ${JSON.stringify(f.title)}  ${f.url}  ${f.itemCount} item(s)  ${status}  added by ${f.addedBy}`;
  };
  if (sub === "list") {
    const list = (result.data as { feeds: Array<Record<string, unknown>> }).feeds;
    for (const f of list) console.log(line(f));
    console.log(`${list.length} feed(s)`);
  } else if (sub === "add") {
    console.log(`added ${line(result.data as Record<string, unknown>)}`);
  } else {
    console.log(`removed ${line((result.data as { removed: Record<string, unknown> }).removed)}`);
  }
  return 0;
}

/** The town directory: importing the open datasets, and one town's candidates. */
async function directory(sub: string | undefined, args: string[]): Promise<number> {
  const commands: Record<string, () => number | Promise<number>> = {
    import: () => {
      const result = importDirectory(ctx.db, ctx.config.townDirectory.dir, { now: ctx.config.now() });
      console.log(directoryReport(result));
      return 0;
    },
    list: () => {
      const place = args[0] ? findPlaceBySlug(ctx.db, args[0]) : undefined;
      if (!args[0]) usage();
      if (!place) {
        console.error(`town_not_found: no town has the slug "${args[0]}"`);
        return 1;
      }
      const rows = candidatesOfPlace(ctx.db, place.geoid);
      console.log(`${place.name}, ${place.state_name} (${place.slug}): ${rows.length} candidate(s), ${rows.filter((r) => r.check_status === "verified").length} verified`);
      for (const c of rows) {
        const feeds = JSON.parse(c.feed_urls) as string[];
        const check = c.check_status ? `${c.check_status} ${c.checked_at}${c.check_detail ? `: ${c.check_detail}` : ""}` : "not checked";
        console.log(`${String(c.id).padStart(7)}  ${c.kind.padEnd(10)} ${c.scope.padEnd(6)} ${JSON.stringify(c.name)}  ${c.url}` +
          `${c.platform ? `  [${c.platform} ${c.platform_id}]` : ""}  feeds: ${feeds.length ? feeds.join(" ") : "none"}  from ${c.dataset} ${c.dataset_row}  ${check}`);
      }
      const verified = listTownFeeds(ctx.db, place.geoid).filter((f) => f.added_by === "directory");
      console.log(`${verified.length} feed(s) of the town added from the directory`);
      for (const f of verified) console.log(`${String(f.id).padStart(7)}  ${f.kind}  ${JSON.stringify(f.title)}  ${f.url}  ${f.status}`);
      return 0;
    },
  };
  if (!sub || !commands[sub]) usage();
  return commands[sub]();
}

/** Verifying directory candidates and blocking sources, through the same operations as /admin/towns/{slug}/directory/verify and /admin/directory/blocks. */
async function directorySources(sub: string | undefined, args: string[]): Promise<number> {
  const flag = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  if (sub === "verify") {
    if (!args[0]) usage();
    const result = await runAsStaff(operationsById.adminVerifyDirectory, { slug: args[0] });
    if (!result.ok) return 1;
    const r = result.data as { town: { name: string; state: string }; candidates: Array<{ id: number; name: string; url: string; kind: string; scope: string; status: string; detail: string; feeds: Array<{ id: number; url: string; kind: string; action: string }>; tried: Array<{ url: string; via: string; outcome: string; detail: string }> }> };
    console.log(`${r.town.name}, ${r.town.state}: ${r.candidates.length} candidate(s)`);
    for (const c of r.candidates) {
      console.log(`${c.status.toUpperCase().padEnd(9)} #${c.id} ${c.name} (${c.kind}${c.scope === "county" ? ", county-wide" : ""}) ${c.url}`);
      for (const f of c.feeds) console.log(`          ${f.action} feed ${f.id} (${f.kind}) ${f.url}`);
      for (const t of c.tried) console.log(`          tried ${t.via}: ${t.url} -> ${t.outcome}: ${t.detail}`);
      if (c.tried.length === 0) console.log(`          ${c.detail}`);
    }
    return r.candidates.some((c) => c.status === "verified") || r.candidates.length === 0 ? 0 : 3;
  }
  if (sub === "blocks") {
    const result = await runAsStaff(operationsById.adminListDirectoryBlocks, {});
    if (!result.ok) return 1;
    const list = (result.data as { blocks: Array<{ kind: string; value: string; reason: string | null; createdAt: string }> }).blocks;
    for (const b of list) console.log(`${b.kind.padEnd(6)} ${b.value}  ${b.createdAt}${b.reason ? `  ${b.reason}` : ""}`);
    console.log(`${list.length} block(s)`);
    return 0;
  }
  if ((sub === "block" || sub === "unblock") && (args[0] === "host" || args[0] === "source") && args[1]) {
    const op = sub === "block" ? operationsById.adminBlockDirectorySource : operationsById.adminUnblockDirectorySource;
    const result = await runAsStaff(op, { kind: args[0], value: args[1], ...(flag("--reason") ? { reason: flag("--reason") } : {}) });
    if (!result.ok) return 1;
    const d = result.data as { block?: { kind: string; value: string }; removedFeeds?: number; unblocked?: boolean };
    console.log(sub === "block" ? `blocked ${d.block!.kind} ${d.block!.value}; ${d.removedFeeds} directory feed(s) removed` : d.unblocked ? `unblocked ${args[0]} ${args[1]}` : `${args[0]} ${args[1]} was not blocked`);
    return 0;
  }
  usage();
}

/** One operation as staff: admitted, its input validated like HTTP's, run; problems printed as `code: detail`. */
async function runAsStaff(op: Operation, raw: Record<string, unknown>): Promise<{ ok: true; data: unknown } | { ok: false }> {
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
    return { ok: true, data: (await runOperation(ctx, op, input, caller)).data };
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`${err.code}: ${err.message}`);
      return { ok: false };
    }
    throw err;
  }
}

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
  const result = await runAsStaff(op, raw);
  if (!result.ok) return 1;
  const { data } = result;
  if (sub === "list") {
    const list = (data as { orders: Array<Record<string, unknown>> }).orders;
    for (const o of list) console.log(`${o.id}  ${String(o.status).padEnd(15)} ${o.product} ${o.tier}  ${(o.town as { slug: string }).slug}  ${JSON.stringify(o.title)}  ${o.buyerEmail}${o.rule ? `  [${o.rule}]` : ""}`);
    console.log(`${list.length} order(s)`);
  } else {
    console.log(JSON.stringify(data, null, 2));
  }
  return 0;
}

/** Town leases through the same operations as /admin/leases. */
async function leases(sub: string | undefined, args: string[]): Promise<number> {
  const i = args.indexOf("--status");
  const call: Record<string, [Operation, Record<string, unknown>]> = {
    list: [operationsById.adminListLeases, i >= 0 ? { status: args[i + 1] } : {}],
    end: [operationsById.adminEndLease, { id: args[0] }],
  };
  if (!sub || !call[sub]) usage();
  const result = await runAsStaff(...call[sub]);
  if (!result.ok) return 1;
  if (sub === "end") console.log(JSON.stringify(result.data, null, 2));
  else {
    const list = (result.data as z.infer<typeof AdminLeaseList>).leases;
    for (const l of list) console.log(`${l.id}  ${l.status.padEnd(8)} ${l.town.slug}  ${l.operatorEmail ?? "-"}${l.cancelAt ? `  ends ${l.cancelAt}` : ""}`);
    console.log(`${list.length} lease(s)`);
  }
  return 0;
}

/** The numbers of clicks on editions' links: a town's, or one listing's. */
function clicks(first: string | undefined, more: string[]): number {
  const asCsv = more.includes("--csv") || first === "--csv";
  if (first === "--order") {
    const id = more[0];
    const n = id ? listingNumbers(ctx, id) : undefined;
    if (!n) {
      console.error(`no published listing ${id ?? ""}`.trim());
      return 1;
    }
    if (asCsv) process.stdout.write(listingNumbersCsv(n));
    else {
      for (const e of n.editions) console.log(`${e.date}  in the edition, ${e.delivered} emails delivered`);
      for (const c of n.clicks) console.log(`${c.day}  ${c.clicks} clicks`);
      console.log(`${n.editions.length} edition(s), ${n.delivered} emails delivered, ${n.totalClicks} clicks`);
    }
    return 0;
  }
  const place = first ? findPlaceBySlug(ctx.db, first) : undefined;
  if (!place) {
    console.error(`no town ${first ?? ""}`.trim());
    return 1;
  }
  const t = townClicks(ctx, place.geoid, place.timezone);
  if (asCsv) process.stdout.write(townClicksCsv(place.slug, t));
  else {
    for (const e of t.perEdition) console.log(`${e.date}  ${e.clicks} clicks on ${e.links} link(s)`);
    for (const l of t.topLinks) console.log(`${String(l.clicks).padStart(6)}  ${l.url}`);
  }
  return 0;
}
