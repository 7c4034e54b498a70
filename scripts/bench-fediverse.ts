// `npm run bench:fediverse [-- --towns 1000 --followed 1000 --followers 10000 --instances 500 --latency 50]`:
// a morning of `--towns` towns (one subscriber each) where `--followers` fediverse followers, spread
// over `--instances` servers, follow `--followed` of them. The servers' shared inboxes are local
// stand-ins on 127.0.0.1 (a child process: its CPU is not the app's), each answering 202 after
// `--latency` ms. Measured:
//   1. the morning without, with and again without the followers, each on a fresh copy of the same
//      database (the morning only marks the editions of followed towns: one statement, timed alone too);
//   2. the worker's first posts: each followed town's keys are made on first use (timed apart);
//   3. the drain: every Create(Article) fanned out to its town's servers (one delivery per shared
//      inbox) and delivered, FEDERATION_CONCURRENCY at a time: deliveries per second, drain time.
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { createLogger } from "../src/lib/log.ts";
import { ensureRendererBuilt } from "../src/publish/site-renderer.ts";
import { runMorning } from "../src/services/morning/run-morning.ts";
import { queueEditionPosts } from "../src/services/fediverse/posts.ts";
import { townKeyPairs } from "../src/services/fediverse/towns.ts";
import { startFediverseWorker } from "../src/services/fediverse/worker.ts";
import type { AppContext } from "../src/services/platform/context.ts";
import { templateDb } from "./bench/template-db.ts";

const { values } = parseArgs({
  options: {
    towns: { type: "string", default: "1000" }, followed: { type: "string", default: "1000" },
    followers: { type: "string", default: "10000" }, instances: { type: "string", default: "500" },
    latency: { type: "string", default: "50" }, concurrency: { type: "string", default: "16" },
    inboxes: { type: "boolean", default: false },
  },
});
const n = (k: keyof typeof values) => Number(values[k]);

function ask(child: ChildProcess, message: string): Promise<{ received: number; cpuMs: number }> {
  return new Promise((resolve) => {
    const on = (m: { received?: number; cpuMs: number }) => {
      if (m.received === undefined) return;
      child.off("message", on);
      resolve(m as { received: number; cpuMs: number });
    };
    child.on("message", on);
    child.send(message);
  });
}

const NOW = "2026-11-24T20:00:00Z"; // past 06:00 from Puerto Rico to Hawaii

function contextOn(dataDir: string): AppContext {
  const closed = "http://127.0.0.1:9"; // outside sources answer at once (refused): the morning is the app's own work
  return createContext(loadConfig({
    ...process.env, DATA_DIR: dataDir, NOW, BASE_URL: "https://citydaily.example", MAIL_SENDER: "off", MORNING_SCHEDULE: "off", TOWN_DIRECTORY_IMPORT: "manual",
    OPEN_METEO_URL: closed, NWS_API_URL: closed, AIR_QUALITY_API_URL: closed, USGS_EARTHQUAKES_URL: closed, OPENFEMA_API_URL: closed, LEGISTAR_API_URL: closed,
    FEDERATION_ALLOW_PRIVATE: "true", FEDERATION_CONCURRENCY: values.concurrency, FEDERATION_POLL_MS: "50",
  }), createLogger(process.env.LOG_LEVEL || "error"));
}

/** One subscriber in each of the most populous towns; followers spread over the first `followed`, each on one of `instances` servers. */
function seed(ctx: AppContext, port: number, withFollowers: boolean): void {
  const at = new Date().toISOString();
  ctx.db.prepare(`INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at)
    SELECT 'reader-' || geoid || '@example.org', geoid, 'active', ?, ? FROM places ORDER BY population DESC, geoid LIMIT ?`).run(at, at, n("towns"));
  if (!withFollowers) return;
  const towns = ctx.db.prepare("SELECT geoid FROM places ORDER BY population DESC, geoid LIMIT ?").pluck().all(Math.min(n("followed"), n("towns"))) as string[];
  const insert = ctx.db.prepare(`INSERT OR IGNORE INTO fediverse_followers (place_geoid, actor_id, host, inbox, shared_inbox, follow_id, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)`);
  let s = 7;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  ctx.db.transaction(() => {
    for (let k = 0; k < n("followers"); k++) {
      // Bigger towns have more followers (a Zipf-like draw); each follower is on a server drawn at random.
      const town = towns[Math.floor(towns.length * rand() ** 2)];
      const i = Math.floor(n("instances") * rand());
      const base = `http://127.0.0.1:${port}/i${i}`;
      insert.run(town, `https://i${i}.bench.example/users/u${k}`, `i${i}.bench.example`, `${base}/users/u${k}/inbox`, `${base}/inbox`, at);
    }
  })();
}

async function morning(dataDir: string, port: number, withFollowers: boolean) {
  const ctx = contextOn(dataDir);
  seed(ctx, port, withFollowers);
  const started = performance.now();
  const summary = await runMorning(ctx, {});
  const seconds = (performance.now() - started) / 1000;
  // The morning's own fediverse step again, alone: the same statement on the same editions.
  const ids = ctx.db.prepare("SELECT id FROM editions").pluck().all() as number[];
  ctx.db.prepare("DELETE FROM fediverse_posts").run();
  const markStarted = performance.now();
  const marked = queueEditionPosts(ctx, ids, new Date().toISOString());
  const markMs = performance.now() - markStarted;
  return { ctx, seconds, composed: summary.composed, marked, markMs };
}

async function untilTrue(probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

async function main(): Promise<void> {
  const inboxes = fork(import.meta.filename, ["--inboxes", "--latency", values.latency!], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve) => inboxes.once("message", (m: { port: number }) => resolve(m.port)));
  const dirs = [0, 1, 2].map(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-fediverse-"));
    fs.copyFileSync(templateDb(), path.join(dir, "citydaily.db"));
    return dir;
  });
  // The site's renderer is built before either morning, so neither pays for it.
  await ensureRendererBuilt();
  try {
    console.log(`bench:fediverse: ${n("towns")} towns, ${n("followers")} followers of ${Math.min(n("followed"), n("towns"))} of them on ${n("instances")} servers (answering after ${n("latency")} ms), ${values.concurrency} deliveries at a time`);
    // Without, with, without again: the machine's drift between runs shows in the two without.
    const without = await morning(dirs[0], port, false);
    without.ctx.db.close();
    console.log(`morning without followers: ${without.composed} editions in ${without.seconds.toFixed(2)} s`);
    const { ctx, ...withF } = await morning(dirs[1], port, true);
    console.log(`morning with followers:    ${withF.composed} editions in ${withF.seconds.toFixed(2)} s; its fediverse step marked ${withF.marked} editions in ${withF.markMs.toFixed(1)} ms`);
    const again = await morning(dirs[2], port, false);
    again.ctx.db.close();
    console.log(`morning without, again:    ${again.composed} editions in ${again.seconds.toFixed(2)} s`);
    await drain(ctx, inboxes);
    ctx.db.close();
  } finally {
    inboxes.send("stop");
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function drain(ctx: AppContext, inboxes: ChildProcess): Promise<void> {
  const towns = ctx.db.prepare("SELECT DISTINCT place_geoid FROM fediverse_followers").pluck().all() as string[];
  const keysStarted = performance.now();
  for (const geoid of towns) await townKeyPairs(ctx, geoid);
  const keysSeconds = (performance.now() - keysStarted) / 1000;
  console.log(`keys made on first use: ${towns.length} towns in ${keysSeconds.toFixed(2)} s (${(keysSeconds * 1000 / towns.length).toFixed(1)} ms a town, RSA 2048 and Ed25519)`);
  const expected = ctx.db.prepare("SELECT count(*) FROM (SELECT DISTINCT place_geoid, coalesce(shared_inbox, inbox) FROM fediverse_followers)").pluck().get() as number;
  const before = await ask(inboxes, "count");
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = startFediverseWorker(ctx);
  const postsQueued = await untilTrue(() => ctx.db.prepare("SELECT count(*) FROM fediverse_posts WHERE sent_at IS NULL").pluck().get() === 0, 600_000);
  const postSeconds = (performance.now() - started) / 1000;
  // Done when every delivery arrived, or when nothing is left to do and nothing arrived for 5 s (then the count says what was lost).
  let last = { received: -1, at: Date.now() };
  const done = await untilTrue(async () => {
    const { received } = await ask(inboxes, "count");
    if (received !== last.received) last = { received, at: Date.now() };
    const idle = ctx.db.prepare("SELECT count(*) FROM fediverse_queue").pluck().get() === 0;
    return (received - before.received >= expected && idle) || (idle && Date.now() - last.at > 5000);
  }, 1_800_000);
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  const used = process.cpuUsage(cpu);
  const after = await ask(inboxes, "count");
  const delivered = after.received - before.received;
  console.log(`posts handed to the queue: ${postsQueued ? "all" : "NOT all"} in ${postSeconds.toFixed(2)} s`);
  console.log(`drain: ${delivered} of ${expected} deliveries (one per town and server) in ${seconds.toFixed(2)} s: ${(delivered / seconds).toFixed(0)} deliveries/s; app CPU ${((used.user + used.system) / 1e6).toFixed(1)} s (${((used.user + used.system) / 1000 / Math.max(1, delivered)).toFixed(2)} ms a delivery)${done ? "" : " (TIMED OUT)"}`);
  const failed = ctx.db.prepare("SELECT count(*) FROM fediverse_kv WHERE key LIKE '%circuit%'").pluck().get();
  if (delivered < expected) console.log(`  ${expected - delivered} deliveries missing; circuit-breaker entries: ${failed}`);
}

// ---------- the stand-in inboxes (child process) ----------

function serveInboxes(): void {
  let received = 0;
  const latency = n("latency");
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => {
      if (req.method === "POST") received++;
      res.writeHead(202).end();
    }, latency));
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on("message", (m) => {
    if (m === "count") process.send!({ received, cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000 });
    if (m === "stop") server.close(() => process.exit(0));
  });
}

if (values.inboxes) serveInboxes();
else await main();
