// `npm run bench:steady [-- --towns 3000 --runs 5 --latency 150 --vs /path/to/other/checkout]`: a steady
// morning timed as an operator sees it, the whole `npm run morning` process from npm's start to its
// exit (Node's start, loading the app, gathering, composing, storing, the search sets, publishing,
// queueing the mail). The most populous N places get one subscriber each; yesterday's morning is run
// once to build the site (the state every run starts from); then each run restores a copy of that
// state (not timed) and times today's morning on it, the providers answering after `--latency` ms
// from the stand-ins of bench:national (a process of their own). `--vs DIR` runs DIR's
// `npm run morning` in turn with this checkout's (A B A B ...) on the same state and prints each
// side's median and the ratio pair by pair. BENCH_STEADY_KEEP=DIR keeps the state in DIR and prints
// the environment, to time a run by other means (`--prof DIR` gives this checkout's run a CPU profile).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { templateDb } from "./bench/template-db.ts";

const { values: args } = parseArgs({
  options: {
    towns: { type: "string", default: "3000" },
    runs: { type: "string", default: "5" },
    latency: { type: "string", default: "150" },
    vs: { type: "string" },
    prof: { type: "string" },
  },
});

const HERE = path.resolve(import.meta.dirname, "..");
const YESTERDAY = "2026-11-23T20:00:00Z";
const TODAY = "2026-11-24T20:00:00Z"; // the stand-ins' day; past 06:00 from Puerto Rico to Hawaii

interface Run { wall: number; cpu: number; peakMb: number; summary: string }

function startStandIns(latency: number): Promise<{ env: Record<string, string>; stop(): void }> {
  const child = spawn(process.execPath, [path.join(HERE, "scripts/bench-national.ts"), "--stand-ins", "--latency", String(latency)], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", (b: Buffer) => {
      const u = JSON.parse(b.toString().trim().split("\n")[0]!) as { meteo: string; nws: string; hazards: string };
      resolve({
        env: { OPEN_METEO_URL: u.meteo, AIR_QUALITY_API_URL: u.meteo, NWS_API_URL: u.nws, USGS_EARTHQUAKES_URL: u.hazards, OPENFEMA_API_URL: `${u.hazards}/api/open` },
        stop: () => child.kill("SIGTERM"),
      });
    });
    child.once("exit", (code) => reject(new Error(`stand-ins exited ${code}`)));
  });
}

/** `npm run morning` in `root` on `dataDir`, timed from outside by /usr/bin/time (wall, user + system, peak RSS). */
function morning(root: string, env: Record<string, string>, extraNodeOptions = ""): Run {
  const times = path.join(os.tmpdir(), `citydaily-steady-time-${process.pid}`);
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", "-o", times, "npm", "run", "--silent", "morning"], {
    cwd: root, encoding: "utf8", maxBuffer: 256 << 20, env: { ...process.env, ...env, NODE_OPTIONS: extraNodeOptions },
  });
  const summary = r.stdout.trim().split("\n").filter((l) => !l.startsWith("{")).at(-1) ?? "";
  if (r.status !== 0) throw new Error(`npm run morning in ${root} exited ${r.status}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
  const [wall, user, sys, kb] = fs.readFileSync(times, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number) as [number, number, number, number];
  fs.rmSync(times, { force: true });
  return { wall, cpu: user + sys, peakMb: kb / 1024, summary };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const towns = Number(args.towns);
  const base = process.env.BENCH_STEADY_KEEP ?? fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-steady-"));
  const state = path.join(base, "state");
  const standIns = await startStandIns(Number(args.latency));
  const env = (dataDir: string, now: string) => ({
    ...standIns.env, DATA_DIR: dataDir, NOW: now, BASE_URL: "https://citydaily.example", TOWN_DIRECTORY_IMPORT: "manual", LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
  });
  try {
    // A kept state of as many towns is used again (BENCH_STEADY_KEEP): yesterday's morning takes minutes.
    const marker = path.join(base, `prepared-${towns}`);
    if (!fs.existsSync(marker)) {
      fs.rmSync(state, { recursive: true, force: true });
      fs.mkdirSync(state, { recursive: true });
      fs.copyFileSync(templateDb(), path.join(state, "citydaily.db"));
      const db = new Database(path.join(state, "citydaily.db"));
      db.prepare(`INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at)
        SELECT 'reader-' || geoid || '@example.org', geoid, 'active', ?, ? FROM places ORDER BY population DESC LIMIT ?`).run(YESTERDAY, YESTERDAY, towns);
      db.close();
      const prepared = morning(HERE, env(state, YESTERDAY));
      fs.writeFileSync(marker, prepared.summary);
    }
    console.log(`bench:steady: ${towns.toLocaleString("en-US")} towns on ${os.cpus().length} CPUs, Node ${process.version}, providers after ${args.latency} ms; load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`);
    const sides: Array<{ label: string; root: string }> = [{ label: "A (this checkout)", root: HERE }, ...(args.vs ? [{ label: `B (${args.vs})`, root: path.resolve(args.vs) }] : [])];
    const results = sides.map(() => [] as Run[]);
    const works: string[] = [];
    for (let i = 0; i < Number(args.runs); i++) {
      sides.forEach((side, s) => {
        // A fresh copy of the state for each run (not timed).
        const work = path.join(base, `run-${i}-${s}`);
        fs.rmSync(work, { recursive: true, force: true });
        if (spawnSync("cp", ["-a", state, work]).status !== 0) throw new Error(`copying ${state} failed`);
        const prof = s === 0 && args.prof ? `--cpu-prof --cpu-prof-dir=${path.resolve(args.prof)}` : "";
        const r = morning(side.root, env(work, TODAY), prof);
        results[s]!.push(r);
        works.push(work); // removed at the end: creating files right after a large deletion is slow here (docs/performance.md)
        console.log(`  run ${i + 1} ${side.label}: ${r.wall.toFixed(2)} s wall, ${r.cpu.toFixed(2)} s CPU, peak ${r.peakMb.toFixed(0)} MB | ${r.summary}`);
      });
    }
    for (const [s, side] of sides.entries()) {
      const rs = results[s]!;
      console.log(`${side.label}: median ${median(rs.map((r) => r.wall)).toFixed(2)} s wall (${Math.min(...rs.map((r) => r.wall)).toFixed(2)} to ${Math.max(...rs.map((r) => r.wall)).toFixed(2)}), ${median(rs.map((r) => r.cpu)).toFixed(2)} s CPU, peak ${median(rs.map((r) => r.peakMb)).toFixed(0)} MB`);
    }
    if (results.length === 2) {
      const ratios = results[0]!.map((a, i) => a.wall / results[1]![i]!.wall);
      console.log(`A/B wall, pair by pair: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${median(ratios).toFixed(2)}`);
    }
    console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`);
    for (const work of works) fs.rmSync(work, { recursive: true, force: true });
    if (process.env.BENCH_STEADY_KEEP) console.log(`state kept in ${state}; a run: cp -a ${state} ${base}/run && ${Object.entries(env(`${base}/run`, TODAY)).map(([k, v]) => `${k}=${v}`).join(" ")} npm run morning (the stand-ins stop with this command)`);
  } finally {
    standIns.stop();
    if (!process.env.BENCH_STEADY_KEEP) fs.rmSync(base, { recursive: true, force: true });
  }
}

await main();
