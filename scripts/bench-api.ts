/**
 * `npm run bench:api [-- --seconds=10 --connections=50 --editions=2000 --only=NAME
 * --mcp-protocol=2025-11-25]`: the real server (a child process) on a fresh temporary DATA_DIR with
 * a seeded archive and a built site, and in the same run a bare node:http server (another child)
 * answering each path with the same bytes; autocannon drives both from this process. Prints req/s,
 * p50 and p99 of each path and the ratio ours / bare.
 */
import { fork, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import net from "node:net";
import autocannon from "autocannon";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { PROJECT_ROOT } from "../src/config/paths.ts";
import { buildSite } from "../src/services/site/publish.ts";
import { subscribe } from "../src/services/readers/subscribe.ts";
import { databaseFile, openDatabase } from "../src/store/db.ts";
import { refreshSearchBits } from "../src/store/search/bits.ts";
import { addDays, seedArchive } from "./bench/seed-archive.ts";
import { templateDb } from "./bench/template-db.ts";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const SECONDS = arg("seconds", 10);
const CONNECTIONS = arg("connections", 50);
const EDITIONS = arg("editions", 2000);
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7);
// The MCP line's client revision (a 2025-era one: stateless, no session); 2026-07-28 carries per-request metadata and is never replayed.
const MCP_PROTOCOL = process.argv.find((a) => a.startsWith("--mcp-protocol="))?.slice(15) ?? "2025-11-25";

const today = new Date().toISOString().slice(0, 10);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-api-"));
const started = performance.now();
{
  fs.copyFileSync(templateDb(), databaseFile(dataDir));
  const db = openDatabase(databaseFile(dataDir));
  seedArchive(db, EDITIONS, today);
  refreshSearchBits(db);
  db.close();
}
const env = { LOG_LEVEL: "warn", DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: "0", MORNING_SCHEDULE: "off",
  OPEN_METEO_URL: "http://127.0.0.1:9", CENSUS_API_URL: "http://127.0.0.1:9",
  // The subscribe path repeats one address from one client: the limiter would answer 429 after ten.
  SUBSCRIBE_RATE_LIMIT: "1000000000",
  // The welcome emails stay queued: sending them is bench:mail's measure, not the API's.
  MAIL_SENDER: "off" };
{
  const ctx = createContext(loadConfig({ ...process.env, ...env }));
  for (const email of ["ada@example.org", "grace@example.org"]) await subscribe(ctx, { email, city: "Denver", state: "Colorado", slug: "denver-colorado" });
  await buildSite(ctx);
  ctx.db.close();
}
console.log(`# citydaily API benchmark (${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? "?"}, node ${process.version})`);
console.log(`${EDITIONS.toLocaleString("en-US")} editions seeded and the site built in ${((performance.now() - started) / 1000).toFixed(0)} s; ${CONNECTIONS} connections, ${SECONDS} s per path per server, server LOG_LEVEL=warn`);

// A free port, then the server on it (at LOG_LEVEL=warn it does not print its address).
const port = await new Promise<number>((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const p = (probe.address() as net.AddressInfo).port;
    probe.close(() => resolve(p));
  });
});
// With REPLICA_URL set, the server runs as `npm start` runs it then: under Litestream (scripts/start.ts).
const entry = process.env.REPLICA_URL ? "scripts/start.ts" : "api/server.ts";
const server = spawn(process.execPath, [path.join(PROJECT_ROOT, entry)], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ["ignore", "inherit", "inherit"] });
const url = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
  if (await fetch(`${url}/api/cities`).then((r) => r.ok, () => false)) break;
  if (i > 600) throw new Error("server did not start in 60 s");
  await new Promise((r) => setTimeout(r, 100));
}

const archiveDate = addDays(today, -1);
/** `goal`: a cached read at 0.5x of the bare server or better with p99 under 10 ms, or a floor of req/s. */
type Goal = { kind: "cached" } | { kind: "rps"; min: number } | { kind: "of"; target: string; ratio: number; p99: number };
interface Target {
  name: string; method: "GET" | "POST"; path: string; headers?: Record<string, string>; body?: string; goal?: Goal;
  /** autocannon puts a fresh id for each `[<id>]` of the body (each request a new write). */
  idReplacement?: boolean;
}
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const targets = ([
  { name: "/api/city/denver-colorado", method: "GET", path: "/api/city/denver-colorado", goal: { kind: "cached" } },
  { name: "/api/cities", method: "GET", path: "/api/cities", goal: { kind: "cached" } },
  // What a browser or a CDN asks for: the brotli variant. Reported without a goal (it is not one of
  // the paths): autocannon's own parsing of the binary body bounds both servers here.
  { name: "/api/cities (brotli)", method: "GET", path: "/api/cities", headers: { "accept-encoding": "br" } },
  { name: "/api/archive/denver-colorado/{date}", method: "GET", path: `/api/archive/denver-colorado/${archiveDate}`, goal: { kind: "cached" } },
  { name: "/denver-colorado (a static page)", method: "GET", path: "/denver-colorado", goal: { kind: "cached" } },
  { name: "/api/search?q=weather", method: "GET", path: "/api/search?q=weather", goal: { kind: "rps", min: 5000 } },
  { name: "POST /api/subscribe (same address)", method: "POST", path: "/api/subscribe", headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.org", city: "Denver", state: "Colorado", slug: "denver-colorado" }), goal: { kind: "rps", min: 2000 } },
  // Every request a new subscriber: a row, a welcome email queued, on disk (fsync) before the answer.
  { name: "POST /api/subscribe (a new address each)", method: "POST", path: "/api/subscribe", headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "reader-[<id>]@example.org", city: "Denver", state: "Colorado", slug: "denver-colorado" }), idReplacement: true, goal: { kind: "rps", min: 2000 } },
  { name: "POST /mcp tools/call get_city", method: "POST", path: "/mcp", headers: { ...json, "mcp-protocol-version": MCP_PROTOCOL },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_city", arguments: { slug: "denver-colorado" } } }),
    // MCP clients read the same data as HTTP ones: the same read at 0.3x of it or better in the same run, p99 under 20 ms.
    goal: { kind: "of", target: "/api/city/denver-colorado", ratio: 0.3, p99: 20 } },
] as Target[]).filter((t) => !only || t.name.includes(only));

// What ours answers (status, headers, raw bytes: nothing decoded), for the bare server to repeat. The
// key has the Accept-Encoding asked with, as the bare server's lookup does.
const cannedKey = (method: string, path: string, acceptEncoding: string | undefined) => `${method} ${path} ${acceptEncoding ?? ""}`;
function rawRequest(t: Target): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url + t.path, { method: t.method, headers: t.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end(t.body?.replaceAll("[<id>]", "first"));
  });
}
const canned: Record<string, { status: number; headers: Record<string, string>; body: string }> = {};
for (const t of targets) {
  const res = await rawRequest(t);
  if (res.status >= 400) throw new Error(`${t.name}: HTTP ${res.status} ${res.body.toString().slice(0, 300)}`);
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([k]) => !["content-length", "transfer-encoding", "connection", "keep-alive", "date"].includes(k)).map(([k, v]) => [k, String(v)]));
  canned[cannedKey(t.method, t.path, t.headers?.["accept-encoding"])] = { status: res.status, headers, body: res.body.toString("base64") };
}
const cannedFile = path.join(dataDir, "bare-answers.json");
fs.writeFileSync(cannedFile, JSON.stringify(canned));
const bare = fork(path.join(PROJECT_ROOT, "scripts/bench/bare-server.ts"), [cannedFile], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
const barePort = await new Promise<number>((resolve) => bare.once("message", (m: { port: number }) => resolve(m.port)));
const bareUrl = `http://127.0.0.1:${barePort}`;

interface Figures { rps: number; p50: number; p99: number; errors: number; non2xx: number }
async function drive(base: string, t: Target, seconds = SECONDS): Promise<Figures> {
  const r = await autocannon({ url: base + t.path, method: t.method, headers: t.headers, body: t.body, idReplacement: t.idReplacement, connections: CONNECTIONS, duration: seconds });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const rows: string[] = [];
const verdicts: string[] = [];
const measured = new Map<string, Figures>();
function verdict(t: Target, ours: Figures, base: Figures): void {
  measured.set(t.name, ours);
  if (!t.goal) return;
  if (t.goal.kind === "of") {
    const other = measured.get(t.goal.target);
    if (!other) return void verdicts.push(`- not judged: \`${t.name}\` (run it with \`${t.goal.target}\`)`);
    const ratio = ours.rps / other.rps;
    const met = ratio >= t.goal.ratio && ours.p99 < t.goal.p99;
    verdicts.push(`- ${met ? "met" : "NOT MET"}: \`${t.name}\` (goal ${t.goal.ratio}x of \`${t.goal.target}\` in this run, p99 < ${t.goal.p99} ms): ${fmt(ours.rps)} req/s, ${ratio.toFixed(2)}x, p99 ${ours.p99} ms`);
    return;
  }
  const ratio = ours.rps / base.rps;
  const met = t.goal.kind === "cached" ? ratio >= 0.5 && ours.p99 < 10 : ours.rps >= t.goal.min;
  const goal = t.goal.kind === "cached" ? "0.5x of bare, p99 < 10 ms" : `${fmt(t.goal.min)} req/s`;
  verdicts.push(`- ${met ? "met" : "NOT MET"}: \`${t.name}\` (goal ${goal}): ${fmt(ours.rps)} req/s, ${ratio.toFixed(2)}x, p99 ${ours.p99} ms`);
}
try {
  for (const t of targets) {
    await drive(url, t, 2); // warm-up: JIT and caches, not measured
    const ours = await drive(url, t);
    const base = await drive(bareUrl, t);
    const bad = ours.errors + ours.non2xx ? ` (${ours.errors} errors, ${ours.non2xx} non-2xx)` : "";
    rows.push(`| \`${t.name}\` | ${fmt(ours.rps)} | ${ours.p50} ms | ${ours.p99} ms | ${fmt(base.rps)} | ${base.p99} ms | ${(ours.rps / base.rps).toFixed(2)}x${bad} |`);
    console.log(rows.at(-1));
    verdict(t, ours, base);
  }
} finally {
  // The server finishes what it is doing (its graceful shutdown) before its directory goes.
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  bare.kill("SIGTERM");
  await exited;
}
console.log(`\nload average: ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`);
console.log(`\n| path | ours req/s | ours p50 | ours p99 | bare node:http req/s | bare p99 | ours / bare |\n|---|---|---|---|---|---|---|`);
for (const row of rows) console.log(row);
if (verdicts.length) console.log(`\nGoals in this run:\n${verdicts.join("\n")}`);
fs.rmSync(dataDir, { recursive: true, force: true });
