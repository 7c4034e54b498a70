// `npm run morning`: one run of the morning pipeline (compose, store, publish due editions), then a summary line.
// NOW pins the clock, PUBLISH_HOUR sets the local publication hour, DATA_DIR picks the database.
// A NOW ahead of the clock refuses to publish into a site a running server serves (or PUBLISH_TARGET
// sends out) unless given --allow-future (scripts/cli/future-guard.ts).
import module from "node:module";
import path from "node:path";
import type { SingleBar } from "cli-progress";

// V8's code cache on disk, as the render worker has it: the app's modules are compiled once, not at
// every run. Enabled before they load, so they are imported below rather than at the top.
module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE ?? path.join(import.meta.dirname, "../dist/compile-cache"));
const { ALLOW_FUTURE, refuseFutureMorning } = await import("./cli/future-guard.ts");

/** Runs below this many due cities finish too fast for a progress bar to help. */
const PROGRESS_MIN_CITIES = 10;

const USAGE = `usage: [NOW=<ISO instant>] [DATA_DIR=<dir>] npm run morning [-- ${ALLOW_FUTURE}]
  runs the morning once: composes, stores and publishes the due towns' editions and queues their email.
  ${ALLOW_FUTURE}  with NOW ahead of the clock, publish even into a site a running server serves`;
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
const unknown = process.argv.slice(2).filter((a) => a !== ALLOW_FUTURE);
if (unknown.length) {
  console.error(`citydaily: unknown argument ${unknown[0]}\n${USAGE}`);
  process.exit(2);
}

const [{ createContext }, { loadConfig }, { configForSite }, { createLogger }, { formatSummary }, { runMorning }] = await Promise.all([
  import("../src/app.ts"), import("../src/config/load.ts"), import("./cli/config-for-site.ts"), import("../src/lib/log.ts"),
  import("../src/services/morning/summary.ts"), import("../src/services/morning/run-morning.ts"),
]);
const interactive = process.stdout.isTTY === true;
const loaded = loadConfig();
refuseFutureMorning(loaded, process.argv, "npm run morning");
const config = configForSite(loaded);
// In a terminal, JSON info logs would tear the progress bar apart: show warnings and errors only, unless asked.
const log = createLogger(interactive && !process.env.LOG_LEVEL ? "warn" : config.logLevel);
const ctx = createContext(config, log);

// SIGTERM/SIGINT: stop between cities, abort fetches in flight, exit; the next run does the rest.
const stop = new AbortController();
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => stop.abort(new Error(`${signal}: stopping`)));

let bar: SingleBar | undefined;
// The progress bar's module only where it is drawn (a terminal): a scheduled run loads no more than it runs.
const progress = interactive ? await import("cli-progress") : undefined;
try {
  const summary = await runMorning(ctx, {
    signal: stop.signal,
    onProgress: progress
      ? (done, total) => {
          if (!bar && total >= PROGRESS_MIN_CITIES) {
            bar = new progress.SingleBar({ format: "composing {bar} {value}/{total} cities | {eta_formatted} left", stream: process.stdout, hideCursor: true }, progress.Presets.shades_classic);
            bar.start(total, 0);
          }
          bar?.update(done);
        }
      : undefined,
  });
  bar?.stop();
  console.log(formatSummary(summary));
  // Non-zero when something is left for the next run, so a scheduler can alert on it.
  process.exitCode = summary.failed > 0 || summary.publishFailed > 0 || summary.stopped ? 1 : 0;
} finally {
  bar?.stop();
  ctx.db.close();
}
