// `npm run zones [-- LIMIT]`: looks up the NWS forecast zone, fire-weather zone and county of every
// subscribed town that has none yet (`/points/{lat},{lon}`, once per town; zones do not change), so
// the morning matches zone-based alerts exactly. The server does 50 after each scheduled morning run;
// this does them all at once (before a first national morning, say). Safe to run any time.
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { createLogger } from "../src/lib/log.ts";
import { lookupTownZones } from "../src/services/weather/place-zones.ts";

const config = loadConfig();
const ctx = createContext(config, createLogger(config.logLevel));
const limit = Number(process.argv[2] ?? 100_000);
const stop = new AbortController();
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => stop.abort(new Error(`${signal}: stopping`)));
try {
  const s = await lookupTownZones(ctx, { limit, signal: stop.signal, budgetMs: 24 * 3_600_000 });
  console.log(`zones: ${s.asked} towns without zones asked, ${s.found} found, ${s.none} without a zone (outside NWS's area), ${s.failed} failed (tried again next time)`);
  process.exitCode = s.failed > 0 ? 1 : 0;
} finally {
  ctx.db.close();
}
