/**
 * `npm run bench:mail` runs this first, in its own process: a database in DATA_DIR with N
 * subscribers of New York and one edition's digest queued for each. Kept out of the sender's
 * process so that the places import and the seeding do not count in the sender's memory.
 * Usage: DATA_DIR=... node scripts/bench/mail-seed.ts N
 */
import { createContext } from "../../src/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";

const N = Number(process.argv[2]);
const ctx = createContext(loadConfig({ ...process.env, LOG_LEVEL: "silent", NOW: "" }));
const place = ctx.db.prepare("SELECT geoid, name FROM places WHERE slug = 'new-york-new-york'").get() as { geoid: string; name: string };
const now = new Date().toISOString();
let t = performance.now();
const insert = ctx.db.prepare(`INSERT INTO subscribers (email, place_geoid, created_at, updated_at) VALUES (?, ?, ?, ?)`);
ctx.db.transaction(() => {
  for (let i = 0; i < N; i++) insert.run(`reader${i}@example.org`, place.geoid, now, now);
})();
console.log(`seeded ${N.toLocaleString("en-US")} subscribers in ${Math.round(performance.now() - t)} ms`);

const body = "Partly cloudy, high of 48°F. Sunrise 6:51, sunset 16:31. ".repeat(40);
const editionId = insertEdition(ctx.db, {
  placeGeoid: place.geoid, date: now.slice(0, 10), subject: `${place.name}: your morning edition`,
  markdown: `# ${place.name}\n\n${body}\n`, html: `<h1>${place.name}</h1><p>${body}</p>`, publishedAt: now,
})!;
t = performance.now();
const queued = queueEditionDigests(ctx, { id: editionId, placeGeoid: place.geoid, date: now.slice(0, 10) });
console.log(`queued ${queued.toLocaleString("en-US")} digests in ${Math.round(performance.now() - t)} ms`);
ctx.db.close();
