// `npm run bench:pipeline [-- 1000]`: one morning run for N subscribed cities (the N most populous places),
// with the forecast from the local Open-Meteo stand-in, in a temporary DATA_DIR. Prints the run's figures:
// compose+store time (weather fetches included), publish time (site pages + digests) and totals.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { PROJECT_ROOT } from "../src/config/paths.ts";
import { createLogger } from "../src/lib/log.ts";
import { formatSummary } from "../src/services/morning/summary.ts";
import { runMorning } from "../src/services/morning/run-morning.ts";
import { startOpenMeteoServer } from "../test/helpers/open-meteo-server.ts";
import { templateDb } from "./bench/template-db.ts";

const n = Number(process.argv[2] ?? 1000);
const TEMPLATE_DB = templateDb(); // built if missing (a fresh clone)
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-pipeline-"));
if (fs.existsSync(TEMPLATE_DB)) fs.copyFileSync(TEMPLATE_DB, path.join(dataDir, "citydaily.db"));
const NOW = "2026-11-22T20:00:00Z"; // past 06:00 everywhere from Puerto Rico to Hawaii
const meteo = await startOpenMeteoServer({ today: "2026-11-22" });
const ctx = createContext(
  loadConfig({ ...process.env, DATA_DIR: dataDir, NOW, OPEN_METEO_URL: meteo.url, BASE_URL: "https://citydaily.example", MAIL_SENDER: "off" }),
  createLogger(process.env.LOG_LEVEL || "error"),
);
try {
  const at = new Date().toISOString();
  ctx.db.prepare(`INSERT INTO subscribers (email, place_geoid, status, created_at, updated_at)
    SELECT 'reader-' || geoid || '@example.org', geoid, 'active', ?, ? FROM places ORDER BY population DESC LIMIT ?`).run(at, at, n);
  const started = performance.now();
  let composedAt = started;
  const summary = await runMorning(ctx, { onProgress: (done, total) => { if (done === total) composedAt = performance.now(); } });
  const composeMs = composedAt - started;
  console.log(formatSummary(summary));
  console.log(JSON.stringify({
    cities: n, composed: summary.composed, composeAndStoreMs: Math.round(composeMs), perCityMs: +(composeMs / Math.max(1, summary.composed)).toFixed(2),
    publishMs: Math.round(summary.ms - composeMs), pagesWritten: summary.pagesWritten, digestsQueued: summary.digestsQueued, totalMs: summary.ms,
    weatherCalls: meteo.calls, rssMb: Math.round(process.memoryUsage().rss / 1e6),
  }));
} finally {
  ctx.db.close();
  await meteo.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
