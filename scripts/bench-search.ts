/**
 * Archive search benchmark: `npm run bench:search` (sizes: `npm run bench:search -- 10000 100000`).
 *
 * For each archive size it seeds a fresh database with realistic editions (mornings of 1,000 cities,
 * through insertEdition, which writes the search row in the same transaction), stores one more
 * morning of 1,000 editions (the incremental update), then starts the real server as a child process
 * and measures GET /api/search over HTTP (snippets and `total` included) for each kind of query, and
 * the server's memory. Options: `--queries N` per kind (default 300), `--keep` to keep the data dir,
 * `--data DIR` to seed into DIR once (when it holds no editions) and time the queries again on it later
 * (`npm run bench:search -- 1000000 --data /var/tmp/citydaily-search-1m`).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { PLACES_CSV, PROJECT_ROOT } from "../src/config/paths.ts";
import { databaseFile, openDatabase } from "../src/store/db.ts";
import { importPlaces } from "../src/store/places/import-places.ts";
import { refreshSearchBits } from "../src/store/search/bits.ts";
import { benchCities, seedArchive, storeMorning } from "./bench/seed-archive.ts";
import { editionWriter, rng, vocabulary } from "./bench/synthetic-editions.ts";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const perKind = option("--queries", 300);
const reuseDir = args.includes("--data") ? args[args.indexOf("--data") + 1] : undefined;
const sizes = args.filter((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--queries").map(Number);
if (sizes.length === 0) sizes.push(10_000, 100_000, 365_000);

const END_DATE = "2026-11-22";
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const ms = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The queries of each kind, drawn from the same vocabulary as the editions. */
function queryKinds(slugs: string[]): Record<string, () => string> {
  const random = rng(42);
  const words = vocabulary();
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const common = [...words.slice(0, 40).filter((w) => w.length >= 2), "weather", "sunrise", "sunset", "chance", "precipitation", "calendar", "high", "low"];
  const mid = words.slice(40, 600);
  const rare = words.slice(5_000, 40_000);
  const phrases = ["partly cloudy", "farmers market", "chance of precipitation", "town hall meeting", "heavy rain", "light snow",
    "book sale", "blood drive", "story time", "open mic", "trivia night", "food truck night", "snow showers", "jazz concert",
    "movie in the park", "according to the census", "did you know", "sunrise at", "around town", "on the calendar"];
  const prefixes = [...new Set(words.slice(0, 300).filter((w) => w.length >= 4).flatMap((w) => [w.slice(0, 2), w.slice(0, 3), w.slice(0, 4)]))];
  return {
    "common word": () => pick(common),
    "rare word": () => pick(rare),
    "two words": () => `${pick(mid)} ${pick(mid)}`,
    "two common words": () => `${pick(common)} ${pick(common)}`,
    phrase: () => `"${pick(phrases)}"`,
    prefix: () => `${pick(prefixes)}*`,
    "OR / -exclude": () => (random() < 0.5 ? `${pick(mid)} OR ${pick(mid)}` : `${pick(common)} -${pick(mid)}`),
    "city + common word": () => `${pick(common)}\u0000${pick(slugs)}`,
    "city + rare word": () => `${pick(mid)}\u0000${pick(slugs)}`,
  };
}

async function startServer(dataDir: string): Promise<{ url: string; pid: number; stop: () => void }> {
  // BENCH_CPU_PROF=DIR: the server writes a CPU profile there when it stops.
  const prof = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...prof, path.join(PROJECT_ROOT, "api/server.ts")], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    lines.on("line", (line) => {
      if (!line.includes("citydaily listening")) return;
      resolve((JSON.parse(line) as { url: string }).url);
    });
  });
  return { url, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}

/** CPU time (user + system) the process has used, in milliseconds: unlike latency, not inflated by other load. */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
}

function indexBytesOf(db: ReturnType<typeof openDatabase>): number {
  try {
    return Number(db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'edition_search%'").pluck().get());
  } catch {
    return 0; // dbstat not compiled in
  }
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

async function timeQuery(url: string, q: string, slug?: string): Promise<{ ms: number; total: number }> {
  const params = new URLSearchParams({ q, limit: "10", ...(slug ? { slug } : {}) });
  const started = performance.now();
  const res = await fetch(`${url}/api/search?${params}`);
  const body = (await res.json()) as { total?: number; results?: Array<{ snippet: string }> };
  const elapsed = performance.now() - started;
  if (res.status !== 200) throw new Error(`${q}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return { ms: elapsed, total: body.total ?? 0 };
}

async function benchSize(size: number, reuse?: string): Promise<void> {
  if (reuse) fs.mkdirSync(reuse, { recursive: true });
  const dataDir = reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), `citydaily-bench-search-${size}-`));
  console.log(`\n## ${size.toLocaleString("en-US")} editions (${dataDir})`);
  const db = openDatabase(databaseFile(dataDir));
  importPlaces(db, PLACES_CSV);
  const cities = benchCities(db);
  const setsBytes = () => Number(db.prepare("SELECT coalesce(sum(length(bits)), 0) FROM search_bits").pluck().get());
  // `--data DIR` on an empty or new directory seeds into it and keeps it, so a large archive is seeded once.
  const seeded = Number(db.prepare("SELECT count(*) FROM editions").pluck().get()) > 0;
  if (reuse && seeded) {
    console.log("reusing a seeded archive: no build figures");
    const sets = refreshSearchBits(db);
    if (sets.editions > 0) console.log(`search sets brought up to date: ${sets.editions.toLocaleString("en-US")} editions in ${(sets.ms / 1000).toFixed(1)} s`);
  } else {
    let lastReport = performance.now();
    const seeded = seedArchive(db, size, END_DATE, (done) => {
      if (performance.now() - lastReport > 15_000) { lastReport = performance.now(); console.log(`   seeded ${done.toLocaleString("en-US")}...`); }
    });
    const sets = refreshSearchBits(db);
    const morning = storeMorning(db, cities, END_DATE, editionWriter(size + 1));
    const morningSets = refreshSearchBits(db);
    db.pragma("wal_checkpoint(TRUNCATE)");
    const fileBytes = fs.statSync(databaseFile(dataDir)).size;
    console.log(`build: ${seeded.editions.toLocaleString("en-US")} editions stored with their search rows in ${(seeded.ms / 1000).toFixed(1)} s`
      + ` (${Math.round(seeded.editions / (seeded.ms / 1000))}/s); search index ${mb(indexBytesOf(db))}, database ${mb(fileBytes)}`);
    console.log(`search sets: ${sets.keys.toLocaleString("en-US")} frequent terms, ${mb(setsBytes())}, built in ${(sets.ms / 1000).toFixed(1)} s`);
    console.log(`morning: 1,000 more editions with their search rows, one transaction: ${ms(morning)} ms; then the search sets: ${ms(morningSets.ms)} ms (${morningSets.keysAdded} new terms)`);
  }
  const slugs = db.prepare(`SELECT slug FROM places WHERE geoid IN (${cities.map(() => "?").join(",")})`).pluck().all(...cities.map((c) => c.geoid)) as string[];
  db.close();

  const server = await startServer(dataDir);
  try {
    const idle = memoryOf(server.pid);
    await timeQuery(server.url, "warmup");
    console.log(`\nload average before the queries: ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`);
    console.log(`\n| query kind | n | distinct | p50 ms | p95 ms | p99 ms | max ms | first-time p95 ms | server CPU ms/query | median total |`);
    console.log(`|---|---|---|---|---|---|---|---|---|---|`);
    // The mix: every kind in equal parts, as a reader population might send them.
    const mix = { times: [] as number[], cpu: 0, n: 0 };
    for (const [kind, make] of Object.entries(queryKinds(slugs))) {
      const times: number[] = [];
      const firstTimes: number[] = [];
      const totals: number[] = [];
      const seen = new Set<string>();
      const cpuBefore = cpuMsOf(server.pid);
      for (let i = 0; i < perKind; i++) {
        const [q, slug] = make().split("\u0000");
        const key = `${q}|${slug ?? ""}`;
        const r = await timeQuery(server.url, q, slug);
        times.push(r.ms);
        totals.push(r.total);
        if (!seen.has(key)) { seen.add(key); firstTimes.push(r.ms); }
      }
      const cpu = (cpuMsOf(server.pid) - cpuBefore) / perKind;
      mix.times.push(...times);
      mix.cpu += cpu * perKind;
      mix.n += perKind;
      times.sort((a, b) => a - b);
      firstTimes.sort((a, b) => a - b);
      totals.sort((a, b) => a - b);
      console.log(`| ${kind} | ${times.length} | ${seen.size} | ${ms(percentile(times, 50))} | ${ms(percentile(times, 95))} | ${ms(percentile(times, 99))} | ${ms(times.at(-1)!)} | ${ms(percentile(firstTimes, 95))} | ${ms(cpu)} | ${percentile(totals, 50).toLocaleString("en-US")} |`);
    }
    mix.times.sort((a, b) => a - b);
    console.log(`| **the mix** (every kind) | ${mix.n} | | ${ms(percentile(mix.times, 50))} | ${ms(percentile(mix.times, 95))} | ${ms(percentile(mix.times, 99))} | ${ms(mix.times.at(-1)!)} | | ${ms(mix.cpu / mix.n)} | |`);
    const mem = memoryOf(server.pid);
    console.log(`\nserver memory: ${mb(idle.rss)} RSS after start, ${mb(mem.rss)} after the queries (peak ${mb(mem.peak)})`);
  } finally {
    server.stop();
    if (!flag("--keep") && !reuse) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`# citydaily search benchmark (${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? "?"}, node ${process.version})`);
console.log(`Latency is the full HTTP round trip of GET /api/search?limit=10 (ranking, snippets, total), one request at a time.`);
for (const size of sizes) await benchSize(size, reuseDir);
