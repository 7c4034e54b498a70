/**
 * `npm run bench:mail` runs this first, in its own process: a database in DATA_DIR with N
 * subscribers of New York and one edition's digest queued for each. Kept out of the sender's
 * process so that the places import and the seeding do not count in the sender's memory.
 * With `spread`, readers are spread over five delivery times (5:00, 6:00, ... 9:00 AM, one in five
 * each) and queued at 4:00 AM New York time, so each digest waits for its hour; `hidden` is the
 * share of readers who hid sections, in three different sets.
 * Usage: DATA_DIR=... node scripts/bench/mail-seed.ts N [spread] [hidden]
 */
import { createContext } from "../../src/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { benchMorning } from "./mail-spread.ts";

const N = Number(process.argv[2]);
const SPREAD = process.argv[3] === "spread";
const HIDDEN = Number(process.argv[4] ?? 0);
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: "silent", NOW: SPREAD ? new Date(benchMorning().queuedAt).toISOString() : "" }));
const place = ctx.db.prepare("SELECT geoid, name FROM places WHERE slug = 'new-york-new-york'").get() as { geoid: string; name: string };
const now = ctx.config.now().toISOString();
let t = performance.now();
const insert = ctx.db.prepare(`INSERT INTO subscribers (email, place_geoid, created_at, updated_at) VALUES (?, ?, ?, ?)`);
ctx.db.transaction(() => {
  for (let i = 0; i < N; i++) insert.run(`reader${i}@example.org`, place.geoid, now, now);
})();
console.log(`seeded ${N.toLocaleString("en-US")} subscribers in ${Math.round(performance.now() - t)} ms`);
if (SPREAD || HIDDEN > 0) {
  // One reader in five at each hour; a share of them without some sections, in three sets.
  const SETS = ["sun", "holidays", "holidays,sun"];
  const choose = ctx.db.prepare("UPDATE subscribers SET delivery_minute = ?, hidden_sections = ? WHERE id = ?");
  const ids = ctx.db.prepare("SELECT id FROM subscribers ORDER BY id").pluck().all() as number[];
  const everyNth = HIDDEN > 0 ? Math.max(1, Math.round(1 / HIDDEN)) : 0;
  ctx.db.transaction(() => ids.forEach((id, i) => choose.run(SPREAD ? 300 + 60 * (i % 5) : 360, everyNth && i % everyNth === 0 ? SETS[(i / everyNth) % 3]! : "", id)))();
}

const body = "Partly cloudy, high of 48°F. Sunrise 6:51, sunset 16:31. ".repeat(40);
const date = SPREAD ? benchMorning().date : now.slice(0, 10);
const editionId = insertEdition(ctx.db, {
  placeGeoid: place.geoid, date, subject: `${place.name}: your morning edition`,
  markdown: `# ${place.name}\n\n${body}\n`, html: `<h1>${place.name}</h1><p>${body}</p>`, publishedAt: now,
})!;
t = performance.now();
const queued = queueEditionDigests(ctx, { id: editionId, placeGeoid: place.geoid, date });
console.log(`queued ${queued.toLocaleString("en-US")} digests in ${Math.round(performance.now() - t)} ms`);
ctx.db.close();
