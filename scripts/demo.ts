// `npm run demo`: a full local site on the embedded defaults. Subscribes sample addresses on the
// reserved example.org domain to cities in every U.S. timezone, runs the morning pipeline for today
// (publication hour 0, so every city publishes whatever its local time), writes the emails to the
// outbox folder and prints what to open next: "Now run `npm start`", or, when a server already serves
// DATA_DIR, "Open ..." and whether it shows the new editions. Safe to run again: nothing is duplicated.
// A NOW ahead of the clock refuses to publish into a site a running server serves (scripts/cli/future-guard.ts).
import path from "node:path";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { localDate } from "../src/lib/time.ts";
import { outboxDir } from "../src/integrations/mail/index.ts";
import { createLogger } from "../src/lib/log.ts";
import { drainDueMail } from "../src/services/mail/sender.ts";
import { formatSummary } from "../src/services/morning/summary.ts";
import { runMorning } from "../src/services/morning/run-morning.ts";
import { subscribe } from "../src/services/readers/subscribe.ts";
import { findPlaceBySlug } from "../src/store/places/places.ts";
import { runningServers, type ServerRecord } from "../src/services/platform/running-servers.ts";
import { refuseFutureMorning } from "./cli/future-guard.ts";

/** One city per U.S. timezone, east to west, plus Puerto Rico. */
const CITIES = [
  "san-juan-puerto-rico", "new-york-new-york", "st-louis-missouri", "chicago-illinois", "denver-colorado",
  "phoenix-arizona", "seattle-washington", "anchorage-alaska", "honolulu-hawaii",
];
const READERS = ["ada@example.org", "grace@example.org", "alan@example.org"];

const loaded = loadConfig({ PUBLISH_HOUR: "0", ...process.env });
refuseFutureMorning(loaded, process.argv, "npm run demo");
// A server already serving DATA_DIR: the editions link to where it is, unless BASE_URL says otherwise.
const server = runningServers(loaded.dataDir)[0];
const config = server && !loaded.baseUrlFromEnv ? { ...loaded, baseUrl: server.baseUrl } : loaded;
const ctx = createContext(config, createLogger(process.env.LOG_LEVEL || "warn"));

/** What to do next, in words: start the server, or open the one that runs (saying whether it shows the new edition). */
async function nextStep(running: ServerRecord | undefined, editionPath: string): Promise<string> {
  const relative = path.relative(process.cwd(), config.dataDir);
  const where = relative && !relative.startsWith("..") ? relative : config.dataDir;
  if (!running) return "Now run `npm start` and open:";
  const status = await fetch(running.url + editionPath, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, (err: Error) => err.message);
  return status === 200
    ? `The server at ${running.url} (pid ${running.pid}) already serves ${where}/ and shows the new editions. Open:`
    : `The server at ${running.url} (pid ${running.pid}) serves ${where}/ but did not show ${editionPath} (${status}); restart it (stop it, then \`npm start\`) and open:`;
}

try {
  let subscriptions = 0;
  for (const [i, slug] of CITIES.entries()) {
    const place = findPlaceBySlug(ctx.db, slug);
    if (!place) throw new Error(`demo city ${slug} is missing from the places dataset`);
    // Two readers per city, rotating, so each address follows several cities.
    for (const email of [READERS[i % READERS.length]!, READERS[(i + 1) % READERS.length]!]) {
      await subscribe(ctx, { email, city: place.name, state: place.state_name, slug });
      subscriptions++;
    }
  }
  console.log(`demo: ${subscriptions} subscriptions of ${READERS.length} example.org readers to ${CITIES.length} cities`);

  const summary = await runMorning(ctx);
  console.log(formatSummary(summary));
  if (summary.withoutWeather > 0) console.log(`demo: ${summary.withoutWeather} editions have no forecast (is ${config.openMeteoUrl} reachable?)`);

  const mail = await drainDueMail(ctx);
  console.log(`demo: ${mail.sent} emails written${config.smtpUrl ? " to SMTP" : ` to ${path.relative(process.cwd(), outboxDir(config)) || outboxDir(config)}/`}`);

  const now = config.now();
  // BASE_URL when set (behind a proxy, on a domain); otherwise the address the server listens on.
  const base = config.baseUrl;
  const sample = CITIES.map((slug) => ({ slug, date: localDate(now, findPlaceBySlug(ctx.db, slug)!.timezone) }));
  const ny = sample.find((s) => s.slug === "new-york-new-york")!;
  console.log(`
${await nextStep(server, `/${ny.slug}/${ny.date}`)}
  ${base}/                                   home page
  ${base}/cities                             the city directory
  ${base}/${ny.slug}                 a city page (latest edition, archive, census)
  ${base}/${ny.slug}/${ny.date}      one dated edition; add .md for its markdown twin
  ${base}/api/city/${ny.slug}        the same city as JSON
  ${base}/api/archive/${ny.slug}/${ny.date}
  ${base}/api/weather/${ny.slug}     today's forecast, as stored with the edition
  ${base}/feed.xml  ${base}/sitemap.xml  ${base}/llms.txt  ${base}/openapi.json
Demo cities: ${sample.map((s) => s.slug).join(", ")}`);
} finally {
  ctx.db.close();
}
