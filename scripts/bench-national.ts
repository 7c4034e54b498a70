// `npm run bench:national [-- --towns 32000 --baseline-towns 3000 --latency 150]`: the morning at
// national size. The most populous N places get one subscriber each; Open-Meteo (forecast
// and air quality) and the NWS are served by local stand-ins in their real formats, every answer
// after `--latency` ms, in a separate process (so a phase's CPU and profile are the app's own). Two
// phases, each in its own child process on a fresh copy of the database, compose and store without
// publishing (the publish has its own bench, bench:morning):
//   - baseline: the per-town fetching this replaced (one forecast, one NWS point and one air-quality
//     request per town, 4 towns at a time), on `--baseline-towns` towns;
//   - national: the run snapshot (services/sources/run-sources.ts) on `--towns` towns.
// Printed: the time to compose all towns, requests per provider and per town. `--free-tier` enforces
// Open-Meteo's free limits in the stand-in (600/minute, 5,000/hour, 10,000/day per location) and
// counts 429s and any request inside a window one named. BENCH_CPU_PROF=DIR
// writes each phase's CPU profile (`node --cpu-prof`) under DIR/<phase>; BENCH_MEM_TRACE=1 prints each half second
// the resident set and every V8 heap (this thread's and each worker thread's) to stderr.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import { parseArgs } from "node:util";
import { createRequire, syncBuiltinESMExports } from "node:module";
import Database from "better-sqlite3";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { PROJECT_ROOT } from "../src/config/paths.ts";
import { countyUgc, sameCode } from "../src/core/hazards/alert-areas.ts";
import { activeAlerts } from "../src/core/hazards/alert-section.ts";
import { semaphore } from "../src/lib/semaphore.ts";
import { createLogger } from "../src/lib/log.ts";
import { alignForecast, type RunSnapshot } from "../src/services/sources/run-sources.ts";
import { runMorning } from "../src/services/morning/run-morning.ts";
import { startOpenMeteoServer } from "../test/helpers/open-meteo-server.ts";
import { nwsAlert, startTownSourcesServer, type NwsFeature } from "../test/helpers/town-sources-server.ts";
import { OPENFEMA_PATH, startHazardsServer, USGS_PATH } from "../test/helpers/hazards-server.ts";
import { templateDb } from "./bench/template-db.ts";

const TEMPLATE_DB = templateDb(); // built if missing (a fresh clone)
const NOW = "2026-11-24T20:00:00Z"; // past 06:00 from Puerto Rico to Hawaii
const ALERTS = 400; // a busy winter day has 300-600 active alerts nationwide

interface StandIns { meteo: string; nws: string; hazards: string; stats: string }
interface Counts {
  forecastRequests: number; forecastLocations: number; airRequests: number; airLocations: number; alertsRequests: number; pointRequests: number;
  /** 429s answered, and requests sent after the client had one, within its minute, to the same API (must be 0). */
  rateLimited: number; insideWindow: number;
  /** The hazards every town shares (USGS, OpenFEMA): one request each per run whatever the towns. */
  usgsRequests: number; openFemaRequests: number;
}
interface PhaseResult {
  towns: number; composed: number; withoutWeather: number; composeSeconds: number; cpuSeconds: number; peakRssMb: number; heapPeakMb: number; heapPeakSpaces: string; startRssMb: number; summaryLine: string; counts: Counts;
  /** Database statements the morning ran (every statement executed, transactions' BEGIN and COMMIT included), and the most frequent. */
  statements: number; topStatements: Array<[string, number]>;
}

const { values: args } = parseArgs({
  options: {
    towns: { type: "string", default: "3000" },
    "baseline-towns": { type: "string" },
    latency: { type: "string", default: "150" },
    phase: { type: "string" },
    "stand-ins": { type: "boolean", default: false },
    "data-dir": { type: "string" },
    urls: { type: "string" },
    "alerts-file": { type: "string" },
    "skip-baseline": { type: "boolean", default: false },
    "free-tier": { type: "boolean", default: false },
  },
});

// ---------- the stand-ins' process ----------

async function serveStandIns(latencyMs: number, alertsFile: string | undefined, freeTier: boolean): Promise<void> {
  const meteo = await startOpenMeteoServer({
    latencyMs, today: "2026-11-24", airQuality: { usAqi: 38, pm2_5: 38, ozone: 20 },
    // Open-Meteo's free tier, per location, forecast and air quality counted together as one client.
    ...(freeTier ? { freeTier: { perMinute: 600, perHour: 5000, perDay: 10000 } } : {}),
  });
  const nws = await startTownSourcesServer();
  nws.setLatency(latencyMs);
  // Without --alerts-file (bench:steady starts the stand-ins alone): the same day's alerts, made here.
  const features = alertsFile ? JSON.parse(fs.readFileSync(alertsFile, "utf8")) as NwsFeature[] : nationalAlerts();
  nws.setAlerts(features);
  // A point's own answer: the alerts whose polygon or box holds it are few; most towns have none.
  nws.setPointAlerts(() => []);
  const hazards = await startHazardsServer();
  hazards.setQuakes([{ id: "bench1", mag: 4.1, place: "10 km N of Somewhere, CA", time: Date.parse("2026-11-24T09:00:00Z"), latitude: 37.5, longitude: -122.3, felt: 40 }]);
  hazards.setDeclarations([{ disasterNumber: 4901, state: "CA", declarationType: "DR", declarationDate: "2026-11-23T00:00:00Z", incidentType: "Flood", declarationTitle: "SEVERE WINTER STORMS", fipsStateCode: "06", fipsCountyCode: "081", designatedArea: "San Mateo (County)" }]);
  const stats = http.createServer((req, res) => {
    if (req.url === "/reset") {
      meteo.log.length = 0;
      nws.requests.length = 0;
      hazards.requests.length = 0;
    }
    const counts: Counts = {
      forecastRequests: meteo.log.filter((r) => r.path === "/v1/forecast").length,
      forecastLocations: meteo.log.filter((r) => r.path === "/v1/forecast").reduce((n, r) => n + r.locations, 0),
      airRequests: meteo.log.filter((r) => r.path === "/v1/air-quality").length,
      airLocations: meteo.log.filter((r) => r.path === "/v1/air-quality").reduce((n, r) => n + r.locations, 0),
      alertsRequests: nws.requests.filter((r) => r.path === "/alerts/active" && !r.query.has("point")).length,
      pointRequests: nws.requests.filter((r) => r.path === "/alerts/active" && r.query.has("point")).length,
      rateLimited: meteo.log.filter((r) => r.status === 429).length,
      // Sent after the client had the 429 (it arrives one latency after the 429 was decided), within its minute.
      insideWindow: meteo.log.filter((r) => meteo.log.some((l) => l.status === 429 && l.path === r.path && r.at > l.at + latencyMs && r.at < l.at + 60_000)).length,
      usgsRequests: hazards.requests.filter((r) => r.path === USGS_PATH).length,
      openFemaRequests: hazards.requests.filter((r) => r.path === OPENFEMA_PATH).length,
    };
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(counts));
  });
  await new Promise<void>((resolve) => stats.listen(0, "127.0.0.1", resolve));
  const urls: StandIns = { meteo: meteo.url, nws: nws.url, hazards: hazards.url, stats: `http://127.0.0.1:${(stats.address() as { port: number }).port}` };
  console.log(JSON.stringify(urls));
  process.once("SIGTERM", () => process.exit(0));
}

async function counts(urls: StandIns, reset = false): Promise<Counts> {
  return (await (await fetch(`${urls.stats}${reset ? "/reset" : "/"}`)).json()) as Counts;
}

// ---------- a phase: one morning in this process ----------

/** The per-town fetching the run snapshot replaced: each town asks each source for itself. */
function perTownGather(ctx: ReturnType<typeof createContext>): (c: unknown, towns: Array<{ place: { latitude: number; longitude: number; timezone: string } }>, o: { now: Date; signal?: AbortSignal }) => RunSnapshot {
  return (_c, _towns, o) => {
    // Four towns at a time, as the per-town morning asked them (the run now hands over a batch of towns at once).
    const lane = semaphore(4);
    return {
      forTown: ({ place, date }) => lane(async () => {
        const point = { latitude: place.latitude, longitude: place.longitude };
        const [weather, alerts, airQuality] = await Promise.all([
          ctx.weather.forecast({ ...point, timezone: place.timezone }).then((w) => alignForecast(w, date), () => null),
          ctx.sources.alerts.active(point).then((list) => activeAlerts(list, o.now.toISOString()), () => []),
          ctx.sources.airQuality.current(point).catch(() => null),
        ]);
        return { weather, alerts, airQuality };
      }),
      done: Promise.resolve([]),
    };
  };
}

/**
 * Counts every statement the connection runs from now on: a prepared statement's run, get, all or
 * iterate (better-sqlite3 runs pragmas and a transaction's BEGIN and COMMIT through these too) and
 * an exec. Its `verbose` hook would need the connection opened with it; the app opens its own.
 */
function countStatements(db: Database.Database): { total(): number; top(n: number): Array<[string, number]> } {
  const bySql = new Map<string, number>();
  const count = (sql: string) => bySql.set(sql, (bySql.get(sql) ?? 0) + 1);
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<string, unknown>;
  for (const m of ["run", "get", "all", "iterate"]) {
    const original = proto[m] as (this: { source: string }, ...a: unknown[]) => unknown;
    proto[m] = function (this: { source: string }, ...a: unknown[]) {
      count(this.source.replace(/\s+/g, " ").trim());
      return original.apply(this, a);
    };
  }
  const exec = db.exec.bind(db);
  db.exec = (sql: string) => (count(sql.replace(/\s+/g, " ").trim()), exec(sql));
  return {
    total: () => [...bySql.values()].reduce((a, b) => a + b, 0),
    top: (n) => [...bySql].sort((a, b) => b[1] - a[1]).slice(0, n).map(([sql, k]) => [sql.slice(0, 120), k]),
  };
}

/**
 * BENCH_MEM_TRACE=1: every half second, the resident set and each V8 heap in the process (this
 * thread's and each worker thread's, committed / used MB), printed to stderr: where the peak's
 * memory is. Worker threads are seen by wrapping the Worker class before the app starts one.
 */
function traceMemory(): { stop(): void } {
  const wt = createRequire(import.meta.url)("node:worker_threads") as { Worker: new (...a: never[]) => { getHeapStatistics(): Promise<v8.HeapInfo>; once(e: string, f: () => void): void } };
  const workers = new Set<InstanceType<typeof wt.Worker>>();
  const Original = wt.Worker;
  wt.Worker = class extends Original {
    constructor(...a: never[]) {
      super(...a);
      workers.add(this);
      this.once("exit", () => workers.delete(this));
    }
  } as typeof wt.Worker;
  syncBuiltinESMExports();
  const started = performance.now();
  const mb = (n: number) => (n / 2 ** 20).toFixed(0);
  const timer = setInterval(async () => {
    const m = process.memoryUsage();
    const h = v8.getHeapStatistics();
    const others = await Promise.all([...workers].map((w) => w.getHeapStatistics().then((s: v8.HeapInfo) => `${mb(s.total_heap_size)}/${mb(s.used_heap_size)}`, () => "-")));
    process.stderr.write(`mem ${((performance.now() - started) / 1000).toFixed(1)} s: rss ${mb(m.rss)}, main heap ${mb(h.total_heap_size)}/${mb(h.used_heap_size)}, external ${mb(m.external)}, workers [${others.join(", ")}]\n`);
  }, 500);
  return { stop: () => clearInterval(timer) };
}

function peakRssMb(): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1];
  return kb ? Number(kb) / 1024 : process.resourceUsage().maxRSS / 1024;
}

async function phase(name: "baseline" | "national", dataDir: string, urls: StandIns, towns: number): Promise<void> {
  const trace = process.env.BENCH_MEM_TRACE ? traceMemory() : undefined;
  const ctx = createContext(
    loadConfig({ ...process.env, DATA_DIR: dataDir, NOW, OPEN_METEO_URL: urls.meteo, NWS_API_URL: urls.nws, AIR_QUALITY_API_URL: urls.meteo, USGS_EARTHQUAKES_URL: urls.hazards, OPENFEMA_API_URL: `${urls.hazards}/api/open`, BASE_URL: "https://citydaily.example", MAIL_SENDER: "off", MORNING_SCHEDULE: "off", TOWN_DIRECTORY_IMPORT: "manual" }),
    createLogger(process.env.LOG_LEVEL || "error"),
  );
  try {
    const at = new Date().toISOString();
    ctx.db.prepare(`INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at)
      SELECT 'reader-' || geoid || '@example.org', geoid, 'active', ?, ? FROM places ORDER BY population DESC, geoid LIMIT ?`).run(at, at, towns);
    await counts(urls, true);
    const startRssMb = process.memoryUsage().rss / 2 ** 20;
    const statements = countStatements(ctx.db);
    // The heaviest moment of the heap, to tell the JavaScript heap from the rest of the resident set.
    let heapPeakMb = 0;
    // BENCH_LIVE_HEAP=1 (with node --expose-gc): collects before each reading, so the peak is of live data, not garbage not yet collected.
    const gc = process.env.BENCH_LIVE_HEAP ? (globalThis as { gc?: () => void }).gc : undefined;
    let heapPeakSpaces = "";
    const sampler = setInterval(() => {
      gc?.();
      const used = process.memoryUsage().heapUsed / 2 ** 20;
      if (used <= heapPeakMb) return;
      heapPeakMb = used;
      // Which of V8's spaces holds it (old, large objects, new...): where to look for what the peak is made of.
      if (process.env.BENCH_HEAP_SPACES) heapPeakSpaces = v8.getHeapSpaceStatistics().map((x) => `${x.space_name} ${(x.space_used_size / 2 ** 20).toFixed(0)}`).join(", ");
    }, gc ? 2000 : 100);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const summary = await runMorning(ctx, {
      publish: false,
      ...(name === "baseline" ? { gather: perTownGather(ctx) as never } : {}),
    });
    const composeSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    trace?.stop();
    const used = process.cpuUsage(cpu);
    const { formatSummary } = await import("../src/services/morning/summary.ts");
    const result: PhaseResult = {
      towns, composed: summary.composed, withoutWeather: summary.withoutWeather, composeSeconds, cpuSeconds: (used.user + used.system) / 1e6,
      peakRssMb: peakRssMb(), heapPeakMb, heapPeakSpaces, startRssMb, summaryLine: formatSummary(summary), counts: await counts(urls),
      statements: statements.total(), topStatements: statements.top(12),
    };
    console.log(JSON.stringify(result));
    // BENCH_KEEP_DB=DIR keeps each phase's database (DIR/<phase>.db), to compare two versions' editions.
    if (process.env.BENCH_KEEP_DB) await ctx.db.backup(path.join(process.env.BENCH_KEEP_DB, `${name}.db`));
  } finally {
    ctx.db.close();
    ctx.sources.feeds.close();
  }
}

// ---------- the driver ----------

/** Alerts as a winter day has them: most by forecast zone with SAME counties, some by county, some storm polygons. */
function nationalAlerts(): NwsFeature[] {
  const db = new Database(TEMPLATE_DB, { readonly: true });
  const counties = db.prepare("SELECT state_code, county_geoid, AVG(latitude) AS lat, AVG(longitude) AS lon FROM places WHERE county_geoid IS NOT NULL GROUP BY county_geoid ORDER BY county_geoid").all() as Array<{ state_code: string; county_geoid: string; lat: number; lon: number }>;
  db.close();
  let seed = 26;
  const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const events = ["Winter Storm Warning", "Winter Weather Advisory", "Wind Advisory", "Freeze Warning", "Dense Fog Advisory", "Flood Watch", "Flash Flood Warning", "Severe Thunderstorm Warning"];
  return Array.from({ length: ALERTS }, (_, i) => {
    const c = counties[Math.floor(rand() * counties.length)]!;
    const kind = i % 10; // 6 by zone, 2 by county, 2 by polygon
    const event = events[kind >= 8 ? 6 + (i % 2) : i % 6]!;
    const county = countyUgc(c.state_code, c.county_geoid)!;
    const d = 0.15;
    return nwsAlert({
      event, severity: kind >= 8 ? "Severe" : "Moderate", expires: "2026-11-25T18:00:00Z", areaDesc: `County ${c.county_geoid}`,
      same: [sameCode(c.county_geoid)!],
      ugc: kind < 6 ? [`${c.state_code}Z${String(Math.floor(rand() * 900) + 1).padStart(3, "0")}`] : [county],
      ...(kind >= 8 ? { polygon: [[c.lon - d, c.lat - d], [c.lon + d, c.lat - d], [c.lon + d, c.lat + d], [c.lon - d, c.lat + d], [c.lon - d, c.lat - d]] } : {}),
    });
  });
}

function runPhase(name: "baseline" | "national", urls: StandIns, towns: number): PhaseResult {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `citydaily-bench-national-${name}-`));
  fs.copyFileSync(TEMPLATE_DB, path.join(dataDir, "citydaily.db"));
  leftovers.push(dataDir);
  const prof = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF, name)}`] : [];
  // The phase runs with this process's Node flags: `npm run bench:national` gives it the morning's (package.json).
  const r = spawnSync(process.execPath, [...process.execArgv, ...prof, import.meta.filename, "--phase", name, "--data-dir", dataDir, "--urls", JSON.stringify(urls), "--towns", String(towns)], { encoding: "utf8", maxBuffer: 64 << 20, env: process.env });
  if (process.env.BENCH_MEM_TRACE) process.stderr.write(r.stderr);
  if (r.status !== 0) throw new Error(`${name} failed:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as PhaseResult;
}

const leftovers: string[] = [];

async function main(): Promise<void> {
  const towns = Number(args.towns);
  const baselineTowns = Number(args["baseline-towns"] ?? Math.min(towns, 3000));
  const latency = Number(args.latency);
  const alertsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-alerts-")), "alerts.json");
  leftovers.push(path.dirname(alertsFile));
  fs.writeFileSync(alertsFile, JSON.stringify(nationalAlerts()));
  const child = spawn(process.execPath, [import.meta.filename, "--stand-ins", "--latency", String(latency), "--alerts-file", alertsFile, ...(args["free-tier"] ? ["--free-tier"] : [])], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const urls = await new Promise<StandIns>((resolve, reject) => {
      child.stdout.once("data", (b: Buffer) => resolve(JSON.parse(b.toString().trim().split("\n")[0]!) as StandIns));
      child.once("exit", (code) => reject(new Error(`stand-ins exited ${code}`)));
    });
    console.log(`bench:national on ${os.cpus().length} CPUs, Node ${process.version}; stand-ins answer after ${latency} ms; load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`);
    const row = (label: string, v: string) => console.log(`  ${label.padEnd(40)} ${v}`);
    const show = (label: string, r: PhaseResult) => {
      const c = r.counts;
      const per = (n: number) => (n === 0 ? "0" : `${(n / r.towns).toFixed(3)} per town (1 per ${(r.towns / n).toFixed(0)} towns)`);
      console.log(`\n${label}: ${r.towns.toLocaleString("en-US")} towns`);
      row("compose + store all towns", `${r.composeSeconds.toFixed(1)} s (${(r.composeSeconds / r.towns * 1000).toFixed(2)} ms per town), CPU ${r.cpuSeconds.toFixed(1)} s, peak RSS ${r.peakRssMb.toFixed(0)} MB (${r.startRssMb.toFixed(0)} MB before the morning; JavaScript heap at most ${r.heapPeakMb.toFixed(0)} MB)`);
      if (r.heapPeakSpaces) row("heap at its peak, MB by space", r.heapPeakSpaces);
      row("editions without a forecast", `${r.withoutWeather} of ${r.composed}`);
      row("Open-Meteo forecast requests", `${c.forecastRequests.toLocaleString("en-US")} for ${c.forecastLocations.toLocaleString("en-US")} locations: ${per(c.forecastRequests)}`);
      row("Open-Meteo air-quality requests", `${c.airRequests.toLocaleString("en-US")} for ${c.airLocations.toLocaleString("en-US")} locations: ${per(c.airRequests)}`);
      row("NWS alerts requests", `${(c.alertsRequests + c.pointRequests).toLocaleString("en-US")} (${c.alertsRequests} national, ${c.pointRequests.toLocaleString("en-US")} per point)`);
      row("USGS and OpenFEMA requests", `${c.usgsRequests} and ${c.openFemaRequests}; tides computed, no request`);
      row("database statements", `${r.statements.toLocaleString("en-US")}: ${(r.statements / r.towns * 100).toFixed(1)} per 100 towns`);
      if (process.env.BENCH_STATEMENTS) for (const [sql, k] of r.topStatements) row(`  ${k.toLocaleString("en-US")}`, sql);
      if (args["free-tier"]) row("429s; requests sent inside a 429's minute", `${c.rateLimited}; ${c.insideWindow}`);
    };
    if (!args["skip-baseline"]) show("baseline (per-town fetching)", runPhase("baseline", urls, baselineTowns));
    const national = runPhase("national", urls, towns);
    show("national (run snapshot)", national);
    console.log(`  summary line: ${national.summaryLine}`);
    console.log(`\n  load average (1, 5, 15 min) at the end    ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`);
  } finally {
    child.kill("SIGTERM");
    for (const dir of leftovers) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (args["stand-ins"]) await serveStandIns(Number(args.latency), args["alerts-file"], args["free-tier"]!);
else if (args.phase) await phase(args.phase as "baseline" | "national", args["data-dir"]!, JSON.parse(args.urls!) as StandIns, Number(args.towns));
else await main();
