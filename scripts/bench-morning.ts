// `npm run bench:morning [-- 10000 100000]`: the cost of publishing, against the size of the archive.
// For each N it seeds N synthetic editions (~600 words, with a week's forecast) across 1,000 cities
// (BENCH_CITIES) in a
// temporary DATA_DIR, then measures in separate child processes (so peak RSS is the phase's own):
//   - a full rebuild (`buildSite`): every edition page and twin, every index page, feeds, sitemaps;
//   - the morning: 1,000 new editions published incrementally (`publishEditions`) onto that site.
// BENCH_SNAPSHOT=DIR keeps the seeded archive and its rebuild (before the morning) in DIR; then
// `npm run bench:morning -- --from DIR [runs]` times the morning alone on fresh copies of it, as often as asked
// (BENCH_KEEP=1 keeps the copies: two versions of the code compared run by run, no deletion between).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { marked } from "marked";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { PLACES_CSV } from "../src/config/paths.ts";
import { databaseFile, openDatabase, type DB } from "../src/store/db.ts";
import { importPlaces } from "../src/store/places/import-places.ts";
import { insertEdition } from "../src/store/morning/editions.ts";
import { ensureRendererBuilt } from "../src/publish/site-renderer.ts";
import { buildSite, publishEditions } from "../src/services/site/publish.ts";
import { templateDb } from "./bench/template-db.ts";

// BENCH_CITIES=15000 gives the biggest slot of a national morning (the Eastern one: about 15,000 new
// editions at once) over the same archive size.
const CITIES = Number(process.env.BENCH_CITIES ?? 1000);
/** The morning publishes one new edition per city. */
const MORNING = CITIES;

function env(dataDir: string) {
  return { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: process.env.BENCH_LOG ?? "silent", MORNING_SCHEDULE: "off", BASE_URL: "https://citydaily.example" };
}

/**
 * This process's peak resident memory. On Linux, getrusage's maxRSS survives exec, so a child spawned by
 * a big parent would report the parent's peak; /proc's VmHWM belongs to this process image alone.
 */
function peakRssMb(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

/** Child-process phases: print one JSON line with the phase's figures. */
async function phase(name: string, dataDir: string, ids: number[]): Promise<void> {
  const ctx = createContext(loadConfig(env(dataDir)));
  const started = performance.now();
  const cpu = process.cpuUsage(); // every thread of the process: the main thread and the render workers
  const { pagesWritten } = name === "build" ? await buildSite(ctx) : await publishEditions(ctx, ids);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  ctx.db.close();
  console.log(JSON.stringify({ seconds, pagesWritten, peakRssMb: peakRssMb(), cpuSeconds: (used.user + used.system) / 1e6, systemSeconds: used.system / 1e6 }));
}

// A Zipf-like vocabulary so the text looks like text to every component that reads it.
const WORDS = ("the of and to a in is it you that he was for on are with as his they be at one have this from or had by hot word but what some we can out other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find any new work part take get place made live where after back little only round man year came show every good me give our under name very through just form sentence great think say help low line differ turn cause much mean before move right boy old too same tell does set three want air well also play small end put home read hand port large spell add even land here must big high such follow act why ask men change went light kind off need house picture try us again animal point mother world near build self earth father head stand own page should country found answer school grow study still learn plant cover food sun four between state keep eye never last let thought city tree cross farm hard start might story saw far sea draw left late run while press close night real life few north open seem together next white children begin got walk example ease paper group always music those both mark often letter until mile river car feet care second book carry took science eat room friend began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain girl usual young ready above ever red list though feel talk bird soon body dog family direct pose leave song measure door product black short numeral class wind question happen complete ship area half rock order fire south problem piece told knew pass since top whole king space heard best hour better true during hundred five remember step early hold west ground interest reach fast verb sing listen six table travel less morning ten simple several vowel toward war lay against pattern slow center love person money serve appear road map rain rule govern pull cold notice voice unit power town fine certain fly fall lead cry dark machine note wait plan figure star box noun field rest correct able pound done beauty drive stood contain front teach week final gave green oh quick develop ocean warm free minute strong special mind behind clear tail produce fact street inch multiply nothing course stay wheel full force blue object decide surface deep moon island foot system busy test record boat common gold possible plane stead dry wonder laugh thousand ago ran check game shape equate miss brought heat snow tire bring yes distant fill east paint language among").split(" ");

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function text(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(WORDS.length * rand() ** 2.5)]);
  const sentences: string[] = [];
  for (let i = 0; i < out.length; i += 15) {
    const s = out.slice(i, i + 15).join(" ");
    sentences.push(s[0].toUpperCase() + s.slice(1) + ".");
  }
  return sentences.join(" ");
}

function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

function seedEditions(db: DB, places: Array<{ geoid: string; name: string }>, firstDate: string, days: number, seed: number): number[] {
  const rand = rng(seed);
  const ids: number[] = [];
  const insertAll = db.transaction((day: number) => {
    const date = addDays(firstDate, day);
    for (const p of places) {
      const high = 40 + Math.round(rand() * 50);
      const daily = Array.from({ length: 7 }, (_, i) => ({
        date: addDays(date, i), high: high + Math.round(rand() * 10 - 5), low: high - 12 - Math.round(rand() * 8),
        code: [0, 1, 2, 3, 61, 71][Math.floor(rand() * 6)], precipitationChance: Math.round(rand() * 100),
      }));
      const subject = `${p.name}: ${text(rand, 6).replace(/\.$/, "")}`;
      const markdown = `# ${subject}\n\n## Weather\n\nHigh ${daily[0].high}°F, low ${daily[0].low}°F.\n\n## Today\n\n${text(rand, 300)}\n\n## Around town\n\n${text(rand, 300)}\n`;
      const id = insertEdition(db, {
        placeGeoid: p.geoid, date, subject, markdown, html: marked.parse(markdown, { async: false }) as string,
        weather: { today: { high: daily[0].high, low: daily[0].low, current: daily[0].high - 5, code: daily[0].code, condition: "Clear sky", emoji: "☀️" }, daily },
        publishedAt: `${date}T11:00:00.000Z`,
      });
      if (id !== undefined) ids.push(id);
    }
  });
  for (let d = 0; d < days; d++) insertAll(d);
  return ids;
}

function runPhase(name: string, dataDir: string, ids: number[] = []): { seconds: number; pagesWritten: number; peakRssMb: number; cpuSeconds: number; systemSeconds: number } {
  const idsFile = path.join(dataDir, "bench-ids.json");
  fs.writeFileSync(idsFile, JSON.stringify(ids));
  // BENCH_CPU_PROF=DIR: each phase (main thread and render worker) writes a CPU profile there.
  const prof = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF, name)}`] : [];
  const r = spawnSync(process.execPath, [...prof, import.meta.filename, "--phase", name, dataDir, idsFile], { env: env(dataDir), encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${name} failed:\n${r.stdout}\n${r.stderr}`);
  if (process.env.BENCH_LOG) process.stderr.write(r.stdout);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

/** A copy of a data directory: the database copied, the site hard-linked (publishing replaces files, never writes into them). */
function copyDataDir(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  fs.copyFileSync(databaseFile(from), databaseFile(to));
  const r = spawnSync("cp", ["-al", path.join(from, "site"), path.join(to, "site")]);
  if (r.status !== 0) throw new Error(`cp -al failed: ${r.stderr}`);
}

/**
 * `--from DIR [runs]`: the morning alone, again, on fresh copies of a site saved by `BENCH_SNAPSHOT=DIR`
 * (the seeded archive and its full rebuild, before the morning): for profiling the morning without
 * reseeding. The copies are removed only after the last run: on ext4 without a journal (this machine's
 * root filesystem) every inode freed in the last minutes is skipped one by one when a file is created
 * (`recently_deleted` in the kernel's inode allocator), so deleting a copy just before a run made that
 * run's file creations several times slower.
 */
async function morningsFromSnapshot(snapshot: string, runs: number): Promise<void> {
  const copies: string[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const dataDir = `${snapshot.replace(/\/+$/, "")}.work-${process.pid}-${run}`;
      copies.push(dataDir);
      copyDataDir(snapshot, dataDir);
      const db = openDatabase(databaseFile(dataDir));
      const places = JSON.parse(fs.readFileSync(path.join(snapshot, "bench-places.json"), "utf8")) as Array<{ geoid: string; name: string }>;
      const morningIds = seedEditions(db, places, "2026-11-22", 1, 2);
      const editions = (db.prepare("SELECT COUNT(*) FROM editions").pluck().get() as number) - morningIds.length;
      db.close();
      spawnSync("sync"); // the copy's writeback would otherwise land in the middle of the morning
      const morning = runPhase("morning", dataDir, morningIds);
      console.log(`\nN = ${editions.toLocaleString("en-US")} editions (from ${snapshot})`);
      console.log(`  morning: incremental publish of ${MORNING} editions ${morning.seconds.toFixed(2)} s, ${morning.pagesWritten.toLocaleString("en-US")} files (${(morning.pagesWritten / morning.seconds).toFixed(0)}/s), CPU ${morning.cpuSeconds.toFixed(2)} s (system ${morning.systemSeconds.toFixed(2)} s), peak RSS ${morning.peakRssMb.toFixed(0)} MB`);
      console.log(`  load average (1, 5, 15 min) at the end       ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`);
    }
  } finally {
    // BENCH_KEEP=1 keeps them (to compare runs of different code without a deletion between them).
    if (process.env.BENCH_KEEP) console.log(`  (kept ${copies.join(", ")})`);
    else for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function bench(n: number): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-"));
  try {
    fs.copyFileSync(templateDb(), path.join(dataDir, "citydaily.db"));
    const db = openDatabase(databaseFile(dataDir));
    importPlaces(db, PLACES_CSV);
    // 1,000 cities spread over every state: the most populous places, round-robin by state.
    const byState = new Map<string, Array<{ geoid: string; name: string }>>();
    for (const p of db.prepare("SELECT geoid, name, state_name FROM places WHERE population > 0 ORDER BY population DESC").all() as Array<{ geoid: string; name: string; state_name: string }>) {
      const list = byState.get(p.state_name) ?? [];
      if (list.length < Math.max(200, Math.ceil(CITIES / 25))) list.push(p);
      byState.set(p.state_name, list);
    }
    const places: Array<{ geoid: string; name: string }> = [];
    for (let i = 0; places.length < CITIES; i++) for (const list of byState.values()) if (list[i] && places.length < CITIES) places.push(list[i]);

    const days = Math.ceil(n / CITIES);
    let t = performance.now();
    seedEditions(db, places, addDays("2026-11-22", -days), days, 1);
    const seedSeconds = (performance.now() - t) / 1000;
    db.pragma("wal_checkpoint(TRUNCATE)");

    const full = runPhase("build", dataDir);
    const snapshot = process.env.BENCH_SNAPSHOT;
    if (snapshot && !fs.existsSync(snapshot)) {
      db.pragma("wal_checkpoint(TRUNCATE)"); // the copy takes the database file alone
      copyDataDir(dataDir, snapshot);
      fs.writeFileSync(path.join(snapshot, "bench-places.json"), JSON.stringify(places));
    }
    t = performance.now();
    const morningIds = seedEditions(db, places, "2026-11-22", 1, 2);
    const morningSeed = (performance.now() - t) / 1000;
    db.close();
    const morning = runPhase("morning", dataDir, morningIds);

    const editions = days * CITIES;
    const row = (label: string, v: string) => console.log(`  ${label.padEnd(44)} ${v}`);
    console.log(`\nN = ${editions.toLocaleString("en-US")} editions across ${CITIES} cities (seeded in ${seedSeconds.toFixed(0)} s)`);
    row("full rebuild", `${full.seconds.toFixed(1)} s, ${full.pagesWritten.toLocaleString("en-US")} files, CPU ${full.cpuSeconds.toFixed(1)} s (system ${full.systemSeconds.toFixed(1)} s), peak RSS ${full.peakRssMb.toFixed(0)} MB`);
    row("  editions/s (page + twin each)", (editions / full.seconds).toFixed(0));
    row("  files/s", (full.pagesWritten / full.seconds).toFixed(0));
    row(`morning: incremental publish of ${MORNING} editions`, `${morning.seconds.toFixed(2)} s, ${morning.pagesWritten.toLocaleString("en-US")} files, CPU ${morning.cpuSeconds.toFixed(2)} s (system ${morning.systemSeconds.toFixed(2)} s), peak RSS ${morning.peakRssMb.toFixed(0)} MB (storing them took ${morningSeed.toFixed(1)} s)`);
    row("  editions/s", (MORNING / morning.seconds).toFixed(0));
    row("  files/s", (morning.pagesWritten / morning.seconds).toFixed(0));
    // The morning's cost per file against the full rebuild's, same run: 1 or more means a morning file
    // costs no more than a rebuild file (the goal).
    row("morning files/s ÷ rebuild files/s", ((morning.pagesWritten / morning.seconds) / (full.pagesWritten / full.seconds)).toFixed(2));
    row("load average (1, 5, 15 min) at the end", os.loadavg().map((l) => l.toFixed(1)).join(", "));
  } finally {
    if (process.env.BENCH_KEEP) console.log(`  (kept ${dataDir})`);
    else leftovers.push(dataDir);
  }
}

/** Data directories to remove once every size is measured (see `morningsFromSnapshot` on deleting between runs). */
const leftovers: string[] = [];

if (process.argv[2] === "--phase") {
  await phase(process.argv[3], process.argv[4], JSON.parse(fs.readFileSync(process.argv[5], "utf8")) as number[]);
} else if (process.argv[2] === "--from") {
  await ensureRendererBuilt();
  await morningsFromSnapshot(process.argv[3], Number(process.argv[4] ?? 1));
} else {
  const sizes = process.argv.slice(2).map(Number).filter((x) => Number.isInteger(x) && x > 0);
  await ensureRendererBuilt();
  console.log(`bench:morning on ${os.cpus().length} CPUs, Node ${process.version}`);
  try {
    for (const n of sizes.length ? sizes : [10_000, 100_000]) await bench(n);
  } finally {
    for (const dir of leftovers) fs.rmSync(dir, { recursive: true, force: true });
  }
  // The towns' public sources: what fetching 1,000 towns' feeds adds to the morning (scripts/bench/feeds-morning.ts).
  if (process.env.BENCH_FEEDS !== "off") await (await import("./bench/feeds-morning.ts")).benchFeedsMorning(1000);
}
