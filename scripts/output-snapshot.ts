// `node scripts/output-snapshot.ts --out DIR`: a snapshot of everything the service shows the world,
// to prove a refactoring changes none of it. It only runs the entry points as child processes (demo,
// build-site, morning, send-mail, api/server.ts) against local stand-ins of the outside providers
// (test/helpers), with the clock, the base URL and every signing key pinned, and writes:
//   DIR/site/      the served site (the live generation as `current/`, the archive, the precompressed files it uses)
//   DIR/mail/      every email of two mornings, named by kind, town, date and reader; Date and Message-ID
//                  headers removed, MIME boundaries normalised
//   DIR/api/       one file per request to the running server: request, status, content type, location, body
//   DIR/manifest.txt   `sha256  path` per file, sorted
// Also normalised, everywhere: the stand-ins' ports (feed addresses on town pages) and the readers'
// random referral codes. `node scripts/output-snapshot.ts --compare DIR_A DIR_B` lists the files that
// differ (with where) or are missing on either side, and exits 1 if there are any.
// Nothing here imports src/ or api/: the layout under them may change freely.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { startOpenMeteoServer } from "../test/helpers/open-meteo-server.ts";
import { libraryCalendar, nwsAlert, rssFeed, startTownSourcesServer, CALENDAR_TYPE, RSS_TYPE } from "../test/helpers/town-sources-server.ts";
import { startHazardsServer } from "../test/helpers/hazards-server.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const DAY1 = "2026-11-24T20:00:00Z"; // past 06:00 from Puerto Rico to Hawaii
const DAY2 = "2026-11-25T20:00:00Z";
const BASE_URL = "https://citydaily.example";
const CLOSED = "http://127.0.0.1:9"; // providers the snapshot does not cover (Census, Legistar): refused at once
// Keys generated on first use and kept in the database (services/secrets.ts `stored`): they sign the
// /go/ links, operator forms and local payment callbacks, so they are written before any is drawn.
const STORED_SECRETS = { click_link_secret: "snapshot-click-key", operator_csrf_secret: "snapshot-csrf-key", local_payments_webhook_secret: "snapshot-payments-key" };

const { values: args, positionals } = parseArgs({ options: { out: { type: "string" }, compare: { type: "boolean", default: false } }, allowPositionals: true });

// ---------- the outside world ----------

interface StandIns { env: Record<string, string>; origins: Record<string, string>; nextDay(): void; close(): Promise<void> }

const NEWS = [
  { title: "Riverfront trail reopens after repairs", link: "https://ledger.example.org/trail", published: "2026-11-24T13:00:00Z" },
  { title: "Council sets hearing on the library budget", link: "https://ledger.example.org/budget", published: "2026-11-23T22:00:00Z" },
  { title: "Snow crews ready for the first storm", link: "https://ledger.example.org/snow", published: "2026-11-25T12:00:00Z" },
];

/** Forecast, air quality, NWS, USGS, OpenFEMA and two town feeds, answering the same every run. */
async function startStandIns(): Promise<StandIns> {
  const meteo = await startOpenMeteoServer({ today: DAY1.slice(0, 10) });
  const town = await startTownSourcesServer();
  const air = (day: string) => town.setAirQuality({ usAqi: 57, pm2_5: 57, pm10: 20, ozone: 31, time: `${day.slice(0, 10)}T19:00` });
  air(DAY1);
  const advisory = nwsAlert({
    id: "urn:oid:2.49.0.1.840.0.snapshot.001.1", event: "Winter Weather Advisory", severity: "Moderate", sent: "2026-11-24T09:00:00-07:00",
    expires: "2026-11-26T05:00:00-07:00", senderName: "NWS Boulder CO", areaDesc: "Denver", same: ["008031"], ugc: ["COC031"],
    description: "* WHAT...Snow. Total accumulations of 2 to 5 inches.\n\n* WHERE...Denver.",
  });
  town.setAlerts([advisory]);
  // A point's live alerts (/api/weather): Denver's only, as NWS would answer.
  town.setPointAlerts((lat, lon) => (Math.abs(lat - 39.74) < 0.5 && Math.abs(lon + 104.99) < 0.5 ? [advisory] : []));
  town.setFeed("/seattle/library.ics", { body: libraryCalendar({ name: "Seattle Public Library", weekStart: "2026-11-24", uidSuffix: "spl.example.org" }), contentType: CALENDAR_TYPE });
  const news = (items: typeof NEWS) => town.setFeed("/st-louis/news.rss", { body: rssFeed("St. Louis Ledger", items, "https://ledger.example.org/"), contentType: RSS_TYPE });
  news(NEWS.slice(0, 2));
  const hazards = await startHazardsServer();
  hazards.setQuakes([{ id: "ak0261snap", mag: 4.6, place: "40 km NW of Anchorage, Alaska", time: Date.parse("2026-11-24T11:12:00Z"), latitude: 61.45, longitude: -150.4, depth: 35, felt: 120 }]);
  hazards.setDeclarations([{ disasterNumber: 4921, state: "HI", declarationType: "DR", declarationDate: "2026-11-23T00:00:00Z", incidentType: "Flood", declarationTitle: "SEVERE STORMS AND FLOODING", fipsStateCode: "15", fipsCountyCode: "003", designatedArea: "Honolulu (County)" }]);
  return {
    env: {
      OPEN_METEO_URL: meteo.url, AIR_QUALITY_API_URL: town.url, NWS_API_URL: town.url, USGS_EARTHQUAKES_URL: hazards.url, OPENFEMA_API_URL: `${hazards.url}/api/open`,
      CENSUS_API_URL: CLOSED, LEGISTAR_API_URL: CLOSED, FEEDS_ALLOW_PRIVATE: "true", FEEDS_ALLOW_ADDRESSES: "127.0.0.1",
    },
    // Their ports are the run's own: the feeds' addresses are shown on the town pages, so they are normalised.
    origins: { [meteo.url]: "http://open-meteo.stand-in", [town.url]: "http://town-sources.stand-in", [hazards.url]: "http://hazards.stand-in" },
    nextDay() {
      meteo.configure({ today: DAY2.slice(0, 10) });
      air(DAY2);
      news(NEWS);
      // The morning composes towns as their inputs arrive, and that order is the order of the sitemap and
      // feeds: both feeds are due again today, so St. Louis's answers well after Seattle's, every run.
      town.setMode("/st-louis/news.rss", "slow", { delayMs: 1500 });
    },
    close: async () => void (await Promise.all([meteo.close(), town.close(), hazards.close()])),
  };
}

// ---------- the app, by its entry points ----------

function appEnv(dataDir: string, standIns: StandIns, now: string): NodeJS.ProcessEnv {
  // The parent's environment is left out but for PATH and HOME: a stray setting there would change the outputs.
  return {
    PATH: process.env.PATH, HOME: process.env.HOME, TZ: "UTC", LANG: "C.UTF-8", ...standIns.env,
    DATA_DIR: dataDir, NOW: now, BASE_URL, HOST: "127.0.0.1", PORT: "4321", LOG_LEVEL: "warn", PUBLISH_HOUR: "6",
    MORNING_SCHEDULE: "off", MAIL_SENDER: "off", TOWN_DIRECTORY_IMPORT: "manual", DIRECTORY_CHECKS_PER_HOUR: "0",
    UNSUBSCRIBE_SECRET: "snapshot-unsubscribe-secret", ADMIN_TOKEN: "snapshot-admin-token", POSTAL_ADDRESS: "citydaily, 1 Snapshot Way, Springfield, IL 62701",
  };
}

/** Runs one entry point to completion (async: the stand-ins answer from this process meanwhile). */
function run(env: NodeJS.ProcessEnv, script: string, ...argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...argv], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b));
    child.stderr.on("data", (b: Buffer) => (out += b));
    child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} ${argv.join(" ")} exited ${code}:\n${out}`))));
  });
}

function pinStoredSecrets(dataDir: string): void {
  const db = new Database(path.join(dataDir, "citydaily.db"));
  const upsert = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  for (const [key, value] of Object.entries(STORED_SECRETS)) upsert.run(key, value);
  db.close();
}

/** A generated key we did not pin would make the outputs differ between runs: say which. */
function checkNoOtherSecrets(dataDir: string): void {
  const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true });
  const keys = (db.prepare("SELECT key FROM meta WHERE key LIKE '%secret%' OR key LIKE '%key%'").pluck().all() as string[]).filter((k) => !(k in STORED_SECRETS));
  db.close();
  if (keys.length) throw new Error(`unpinned generated keys in the database: ${keys.join(", ")} (add them to STORED_SECRETS)`);
}

// ---------- the running server's answers ----------

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().once("error", reject).listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };
const mcp = (id: number, method: string, params: object = {}): RequestInit => ({ method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });

/** The requests recorded, in order (`#name`: the file's name); the reader's links come from the first digest. */
function requests(links: { unsubscribe: string; go: string }): Array<[string, RequestInit?]> {
  const [ny, den, stl, sea] = ["new-york-new-york", "denver-colorado", "st-louis-missouri", "seattle-washington"];
  const pages = ["/", "/cities", "/states/colorado", `/${den}`, `/${den}/2026-11-24`, `/${den}/2026-11-25`, `/${den}/2026-11-25.md`, `/${stl}/2026-11-25`,
    `/${sea}/calendar.ics`, `/${den}/feed.xml`, "/feed.xml", "/sitemap.xml", "/llms.txt", "/robots.txt", "/developers", "/listing-policy", "/advertise",
    `/advertise/${sea}`, "/places?q=springfield", `/embed/${den}`, `/embed/${den}/2026-11-25`, "/mcp", "/no-such-page"];
  const api = ["/api/status", "/api/cities", "/api/cities-census?state=Colorado", `/api/city/${ny}`, `/api/v1/city/${den}`, `/api/city/${stl}`,
    "/api/city/ely-nevada", "/api/city/nowhere-nevada", "/api/city/Bad_Slug", `/api/facts/${den}`, `/api/archive/${den}/2026-11-25`,
    `/api/archive/${sea}/2026-11-24.md`, `/api/archive/${den}/2026-11-01`, `/api/weather/${den}`, `/api/weather/${ny}`, `/api/events/${sea}`,
    "/api/search?q=snow", `/api/search?q=sunrise&slug=${stl}&limit=3`, "/api/search?q=a*", "/api/places?q=tuscon", "/api/places?q=marfa%20texas",
    "/api/places?q=a", "/api/place/marfa-texas", `/api/place/${den}`, "/api/pricing", `/api/listing-quote?slug=${sea}`, "/api/territories?city=Denver&state=Colorado",
    `/api/oembed?url=${encodeURIComponent(`${BASE_URL}/${den}/2026-11-25`)}`, "/openapi.json", "/api/v1", "/.well-known/api-catalog",
    "/.well-known/ai-catalog.json", "/.well-known/mcp/server-card.json", "/.well-known/mcp/catalog.json", "/.well-known/agent-skills/index.json", "/mcp/server-card"];
  return [
    ...[...pages, ...api].map((p): [string] => [p]),
    ["/mcp#mcp-tools-list", mcp(1, "tools/list")], ["/mcp#mcp-resources-list", mcp(2, "resources/list")], ["/mcp#mcp-prompts-list", mcp(3, "prompts/list")],
    ["/mcp#mcp-get-city", mcp(4, "tools/call", { name: "get_city", arguments: { slug: den } })],
    ["/mcp#mcp-find-place", mcp(5, "tools/call", { name: "find_place", arguments: { q: "denver colorado" } })],
    [`${links.unsubscribe}#unsubscribe-link`], [`${links.unsubscribe.replace("/unsubscribe/", "/subscriptions/")}#manage-link`], [`${links.go}#go-link`, { redirect: "manual" }],
  ];
}

/** A request's file: its `#name`, or its path with everything but letters, digits, `.` and `-` as `_`. */
const fileOf = (p: string, init?: RequestInit) => `${init?.method ?? "GET"}${p.includes("#") ? `_${p.replace(/.*#/, "")}` : p.replace(/[^\w.-]+/g, "_")}`.slice(0, 150) + ".txt";

async function recordApi(env: NodeJS.ProcessEnv, outDir: string, links: { unsubscribe: string; go: string }): Promise<number> {
  const port = await freePort();
  const server = spawn(process.execPath, ["api/server.ts"], { cwd: ROOT, env: { ...env, PORT: String(port), SHUTDOWN_TIMEOUT_MS: "1000" }, stdio: ["ignore", "ignore", "inherit"] });
  const origin = `http://127.0.0.1:${port}`;
  try {
    for (let tries = 0; !(await fetch(`${origin}/api/status`).then((r) => r.ok, () => false)); tries++) {
      if (tries > 300 || server.exitCode !== null) throw new Error("api/server.ts did not start");
      await new Promise((r) => setTimeout(r, 100));
    }
    fs.mkdirSync(outDir, { recursive: true });
    const list = requests(links);
    for (const [p, init] of list) {
      const res = await fetch(origin + p.replace(/#.*/, ""), init);
      const body = (await res.text()).replaceAll(origin, "http://SERVER"); // the free port is the run's own
      const head = [`${init?.method ?? "GET"} ${p.replace(/#.*/, "")}`, `${res.status}`, `content-type: ${res.headers.get("content-type") ?? ""}`, ...(res.headers.has("location") ? [`location: ${res.headers.get("location")}`] : [])];
      fs.writeFileSync(path.join(outDir, fileOf(p, init)), `${head.join("\n")}\n\n${body}`);
    }
    return list.length;
  } finally {
    server.kill("SIGTERM");
    if (server.exitCode === null) await new Promise((r) => server.once("exit", r));
  }
}

// ---------- the files written ----------

function walk(dir: string, base = dir, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, base, out);
    else if (entry.isFile()) out.push(path.relative(base, full));
  }
  return out.sort();
}

/**
 * The site as served: the live generation (its directory name is a time, pid and random part, so it
 * is copied as `current/`), the archive, and the precompressed files the live generation names (older
 * generations' are left in `compressed/` until a later publish collects them, which is timing).
 */
function copySite(dataDir: string, outDir: string): number {
  const site = path.join(dataDir, "site");
  const live = fs.realpathSync(path.join(site, "current"));
  fs.cpSync(live, path.join(outDir, "current"), { recursive: true });
  fs.cpSync(path.join(site, "archive"), path.join(outDir, "archive"), { recursive: true });
  const used = Object.values(JSON.parse(fs.readFileSync(path.join(live, ".compressed.json"), "utf8")) as Record<string, string>).map((etag) => etag.replaceAll('"', ""));
  for (const name of fs.readdirSync(path.join(site, "compressed")).filter((n) => used.includes(n.replace(/\.\w+$/, "")))) {
    fs.cpSync(path.join(site, "compressed", name), path.join(outDir, "compressed", name));
  }
  return walk(outDir).length;
}

/**
 * Every .eml, named by what it is (`digest-denver-colorado-2026-11-25-ada.eml`): the outbox's own names
 * hold the time and pid, and the Message-IDs (`digest-19`, the outbox row) follow the order in which the
 * morning composed the towns.
 */
function copyMail(dataDir: string, outDir: string): { count: number; first: string } {
  const dir = path.join(dataDir, "outbox");
  fs.mkdirSync(outDir, { recursive: true });
  const names = fs.readdirSync(dir).filter((n) => n.endsWith(".eml"));
  for (const name of names) {
    const raw = fs.readFileSync(path.join(dir, name), "utf8");
    const end = raw.indexOf("\n\n");
    // Header fields with their folded lines: Date is the sending time, Message-ID the outbox row (see above).
    const head = raw.slice(0, end).replace(/\n(?=[ \t])/g, "\0").split("\n").filter((f) => !/^(Date|Message-ID):/i.test(f)).join("\n").replaceAll("\0", "\n");
    const text = (head + raw.slice(end)).replace(/_NmP-[0-9a-f]+-Part_/g, "_NmP-BOUNDARY-Part_"); // nodemailer's random MIME boundary
    const [, slug, kind] = /^Feedback-ID: ([\w-]+):(\w+):/m.exec(head) ?? [, "none", "mail"];
    const date = new RegExp(`/${slug}/(\\d{4}-\\d\\d-\\d\\d)`).exec(raw)?.[1];
    const to = /^To: ([^@\s]+)/m.exec(head)?.[1];
    let file = [kind, slug, date, to].filter(Boolean).join("-");
    // Two emails of one kind to one reader about one edition: both kept, each named by its content.
    if (fs.existsSync(path.join(outDir, `${file}.eml`))) file += `-${crypto.createHash("sha256").update(text).digest("hex").slice(0, 8)}`;
    fs.writeFileSync(path.join(outDir, `${file}.eml`), text);
  }
  const first = walk(outDir).find((n) => n.startsWith("digest-"));
  return { count: names.length, first: first ? fs.readFileSync(path.join(outDir, first), "utf8") : "" };
}

/** The links a reader follows from an email, with the base URL taken off (the server runs on a free port). */
function linksOf(eml: string): { unsubscribe: string; go: string } {
  const unfolded = eml.replace(/=\n/g, "").replace(/=3D/g, "=");
  const unsubscribe = /<https:\/\/citydaily\.example(\/unsubscribe\/[^>]+)>/.exec(unfolded)?.[1];
  const go = /https:\/\/citydaily\.example(\/go\/[^\s>]+)/.exec(unfolded)?.[1];
  if (!unsubscribe || !go) throw new Error("the first digest has no unsubscribe or /go/ link");
  return { unsubscribe, go };
}

/**
 * Each reader's referral code is random (a trigger's randomblob in migration 010): it is written as
 * `ref-<reader>-<town>` so each still shows whose it is.
 */
function referralLabels(dataDir: string): Record<string, string> {
  const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true });
  const rows = db.prepare("SELECT s.referral_code AS code, s.email, p.slug FROM subscribers s JOIN places p ON p.geoid = s.place_geoid").all() as Array<{ code: string; email: string; slug: string }>;
  db.close();
  return Object.fromEntries(rows.map((r) => [r.code, `ref-${r.email.replace(/@.*/, "")}-${r.slug}`]));
}

/** Replaces run-specific strings in every text file (the precompressed copies are bytes, and hold neither). */
function normalise(dir: string, replacements: Record<string, string>): void {
  for (const f of walk(dir).filter((name) => !/\.(br|gz)$/.test(name))) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    const out = Object.entries(replacements).reduce((t, [from, to]) => t.replaceAll(from, to), text);
    if (out !== text) fs.writeFileSync(path.join(dir, f), out);
  }
}

const sha256 = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

function writeManifest(outDir: string): void {
  const lines = walk(outDir).filter((f) => f !== "manifest.txt").map((f) => `${sha256(path.join(outDir, f))}  ${f}`);
  fs.writeFileSync(path.join(outDir, "manifest.txt"), `${lines.join("\n")}\n`);
}

// ---------- the driver ----------

async function snapshot(outDir: string): Promise<void> {
  const started = performance.now();
  if (fs.existsSync(outDir) && fs.readdirSync(outDir).length) throw new Error(`${outDir} is not empty`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-snapshot-"));
  const standIns = await startStandIns();
  try {
    const env = appEnv(dataDir, standIns, DAY1);
    // The first command creates the database (places imported); the keys are pinned before anything signs.
    await run(env, "scripts/admin.ts", "feeds", "add", "seattle-washington", `${standIns.env.NWS_API_URL}/seattle/library.ics`);
    pinStoredSecrets(dataDir);
    await run(env, "scripts/admin.ts", "feeds", "add", "st-louis-missouri", `${standIns.env.NWS_API_URL}/st-louis/news.rss`);
    await run(env, "scripts/demo.ts");
    await run(env, "scripts/build-site.ts");
    // The next morning: an incremental publish and a second day's digests.
    standIns.nextDay();
    const next = appEnv(dataDir, standIns, DAY2);
    await run(next, "scripts/morning.ts");
    await run(next, "scripts/send-mail.ts");
    checkNoOtherSecrets(dataDir);
    const site = copySite(dataDir, path.join(outDir, "site"));
    const mail = copyMail(dataDir, path.join(outDir, "mail"));
    const api = await recordApi(next, path.join(outDir, "api"), linksOf(mail.first));
    normalise(outDir, { ...standIns.origins, ...referralLabels(dataDir) });
    writeManifest(outDir);
    console.log(`snapshot: ${site} site files, ${mail.count} emails, ${api} API answers in ${outDir} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } finally {
    await standIns.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Where two text files first differ (line and column), with some context from each. */
function firstDifference(a: string, b: string): string {
  const [la, lb] = [fs.readFileSync(a, "utf8").split("\n"), fs.readFileSync(b, "utf8").split("\n")];
  let line = la.findIndex((text, n) => text !== lb[n]);
  if (line < 0) line = la.length;
  const [ta, tb] = [la[line] ?? "<end>", lb[line] ?? "<end>"];
  let col = 0;
  while (col < ta.length && ta[col] === tb[col]) col++;
  const show = (t: string) => (col > 80 ? "..." : "") + t.slice(Math.max(0, col - 80), col + 160);
  return `line ${line + 1}, column ${col + 1}:\n    - ${show(ta)}\n    + ${show(tb)}`;
}

function compare(a: string, b: string): number {
  const [fa, fb] = [new Set(walk(a)), new Set(walk(b))];
  let differences = 0;
  for (const f of [...new Set([...fa, ...fb])].sort()) {
    if (f === "manifest.txt") continue;
    if (!fb.has(f)) console.log(`only in ${a}: ${f}`);
    else if (!fa.has(f)) console.log(`only in ${b}: ${f}`);
    else if (sha256(path.join(a, f)) !== sha256(path.join(b, f))) console.log(`differs: ${f}, ${firstDifference(path.join(a, f), path.join(b, f))}`);
    else continue;
    differences++;
  }
  console.log(differences ? `${differences} files differ` : `identical: ${[...fa].filter((f) => f !== "manifest.txt").length} files`);
  return differences ? 1 : 0;
}

if (args.compare && positionals.length === 2) process.exitCode = compare(positionals[0]!, positionals[1]!);
else if (args.out) await snapshot(path.resolve(args.out));
else {
  console.error("usage: node scripts/output-snapshot.ts --out DIR | --compare DIR_A DIR_B");
  process.exitCode = 2;
}
