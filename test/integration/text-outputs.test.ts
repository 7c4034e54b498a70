import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { marked, type Token, type Tokens } from "marked";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { PROBLEMS } from "../../src/contract/problems.ts";
import { createLogger } from "../../src/lib/log.ts";
import { writeTextOutputs } from "../../src/publish/text-outputs.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { databaseFile, openDatabase, type DB } from "../../src/store/db.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { freshDataDir } from "../helpers/server.ts";

// The text outputs built from a real (temporary) SQLite database into a real directory, then read
// back with independent parsers: fast-xml-parser for RSS and sitemaps, marked's lexer for markdown.

const BASE = "https://citydaily.example";
const HOSTILE = "Alert ](javascript:alert(1)) <script>x</script> | # *boom* [link](http://evil.example) & ]]> \u0001";
const RFC822 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const W3C_DATETIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  isArray: (name) => ["item", "url", "sitemap"].includes(name),
  parseTagValue: false,
});

let dataDir: string;
let db: DB;
let ctx: AppContext;
let site: string;
const geoid: Record<string, string> = {};
const editionIds: number[] = [];

function read(rel: string): string {
  return fs.readFileSync(path.join(site, rel), "utf8");
}

function parseXml(rel: string) {
  const text = read(rel);
  expect(XMLValidator.validate(text), rel).toBe(true);
  return xmlParser.parse(text);
}

function edition(slug: string, date: string, publishedAt: string, subject = `${slug} on ${date}`): number {
  const id = insertEdition(db, {
    placeGeoid: geoid[slug], date, subject,
    markdown: `# ${slug} Daily: ${date}\n\nGood morning.\n\n## Weather\n\nSunny.\n`,
    html: `<h1>${slug} Daily</h1><p>Good morning, see <a href="/${slug}">the city page</a>.</p>`,
    publishedAt,
  });
  if (id === undefined) throw new Error("edition not inserted");
  return id;
}

/** Every file under a directory, relative, with its inode (a rename-into-place gives a new one) and bytes. */
function snapshot(dir: string): Map<string, { ino: number; text: string }> {
  const files = new Map<string, { ino: number; text: string }>();
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, rel);
    const st = fs.statSync(file);
    if (st.isFile()) files.set(rel.split(path.sep).join("/"), { ino: st.ino, text: fs.readFileSync(file, "utf8") });
  }
  return files;
}

beforeAll(async () => {
  dataDir = freshDataDir("citydaily-text-");
  db = openDatabase(databaseFile(dataDir));
  ctx = { db, config: loadConfig({ DATA_DIR: dataDir, BASE_URL: BASE, LOG_LEVEL: "silent", NOW: "2026-11-22T18:00:00Z" }), log: createLogger("silent") } as AppContext;
  for (const slug of ["st-louis-missouri", "kansas-city-missouri", "kailua-hawaii", "canon-city-colorado", "boise-idaho"]) {
    geoid[slug] = db.prepare("SELECT geoid FROM places WHERE slug = ?").pluck().get(slug) as string;
  }
  // One place with every census figure imported; the others only have the Gazetteer/ACS basics.
  db.prepare("UPDATE places SET median_income = 52941, median_age = 35.4, acs_detail_year = '2023' WHERE slug = 'st-louis-missouri'").run();
  // A hostile place name: data text must not break the markdown structure.
  db.prepare("UPDATE places SET name = ? WHERE slug = 'canon-city-colorado'").run("Cañon ](http://evil.example) <b>City</b>");
  const now = "2026-11-22T12:00:00.000Z";
  db.prepare("INSERT INTO subscribers (email, place_geoid, created_at, updated_at) VALUES (?, ?, ?, ?)").run("a@example.com", geoid["boise-idaho"], now, now);
  db.prepare("INSERT INTO subscribers (email, place_geoid, created_at, updated_at) VALUES (?, ?, ?, ?)").run("b@example.com", geoid["st-louis-missouri"], now, now);
  for (const date of ["2026-11-19", "2026-11-20", "2026-11-21"]) {
    for (const [slug, hour] of [["st-louis-missouri", 11], ["kansas-city-missouri", 11], ["kailua-hawaii", 16], ["canon-city-colorado", 13]] as const) {
      editionIds.push(edition(slug, date, `${date}T${hour}:00:00.000Z`, slug === "kailua-hawaii" && date === "2026-11-21" ? HOSTILE : undefined));
    }
  }
  site = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-site-"));
});

afterAll(() => {
  db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(site, { recursive: true, force: true });
});

describe("a full build", () => {
  let written: number;
  beforeAll(async () => {
    written = await writeTextOutputs(ctx, { outDir: site, editionIds: [], full: true, sitemapMaxUrls: 2 });
  });

  it("writes every twin, feed, sitemap and llms file, and counts them", () => {
    const files = [...snapshot(site).keys()];
    expect(files.length).toBe(written);
    for (const f of ["index.md", "cities.md", "feed.md", "feed.xml", "developers.md", "llms.txt", "llms-full.txt", "sitemap.xml",
      "st-louis-missouri.md", "st-louis-missouri/2026-11-21.md", "st-louis-missouri/feed.xml", "states/missouri.md", "states/hawaii.md"]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /^[^/]+\/\d{4}-\d{2}-\d{2}\.md$/.test(f))).toHaveLength(editionIds.length);
    // Boise only has a subscriber: no edition, so no city page yet (it has nothing to show).
    expect(files).not.toContain("boise-idaho.md");
    expect(files.some((f) => f.endsWith(".tmp"))).toBe(false);
  });

  it("feed.xml is valid RSS 2.0: channel elements, RFC 822 dates, unique permalink guids, full HTML", () => {
    const rss = parseXml("feed.xml").rss;
    expect(rss["@_version"]).toBe("2.0");
    const ch = rss.channel;
    for (const k of ["title", "link", "description", "language", "lastBuildDate"]) expect(ch[k], k).toBeTruthy();
    expect(ch.link).toBe(`${BASE}/`);
    expect(ch.language).toBe("en-us");
    expect(ch.lastBuildDate).toMatch(RFC822);
    expect(ch["atom:link"]).toMatchObject({ "@_href": `${BASE}/feed.xml`, "@_rel": "self", "@_type": "application/rss+xml" });
    const items = ch.item as Array<Record<string, any>>;
    expect(items).toHaveLength(editionIds.length);
    const guids = items.map((i) => i.guid["#text"]);
    expect(new Set(guids).size).toBe(items.length);
    for (const i of items) {
      expect(i.title).toBeTruthy();
      expect(i.link).toMatch(new RegExp(`^${BASE}/[a-z0-9-]+/\\d{4}-\\d{2}-\\d{2}$`));
      expect(i.guid["@_isPermaLink"]).toBe("true");
      expect(i.guid["#text"]).toBe(i.link);
      expect(i.pubDate).toMatch(RFC822);
      expect(i["content:encoded"]).toContain(`href="${BASE}/`);
    }
    // Newest first; lastBuildDate is the newest item's date.
    const times = items.map((i) => Date.parse(i.pubDate));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(Date.parse(ch.lastBuildDate)).toBe(times[0]);
    // The hostile subject comes back as exactly the text stored (minus the control character XML cannot carry).
    expect(items.map((i) => i.title)).toContain(HOSTILE.replace("\u0001", "").trim());
  });

  it("each city has its own feed with only its editions", () => {
    const ch = parseXml("kailua-hawaii/feed.xml").rss.channel;
    expect(ch.link).toBe(`${BASE}/kailua-hawaii`);
    expect(ch["atom:link"]["@_href"]).toBe(`${BASE}/kailua-hawaii/feed.xml`);
    const links = (ch.item as Array<{ link: string }>).map((i) => i.link);
    expect(links).toEqual(["2026-11-21", "2026-11-20", "2026-11-19"].map((d) => `${BASE}/kailua-hawaii/${d}`));
  });

  it("sitemap.xml is an index of children within the URL limit, every loc absolute, every lastmod a W3C date", () => {
    const index = parseXml("sitemap.xml").sitemapindex;
    expect(index["@_xmlns"]).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
    const children = index.sitemap as Array<{ loc: string; lastmod: string }>;
    const seen: string[] = [];
    for (const c of children) {
      expect(c.loc.startsWith(`${BASE}/sitemaps/`)).toBe(true);
      expect(c.lastmod).toMatch(W3C_DATETIME);
      const rel = c.loc.slice(BASE.length + 1);
      const set = parseXml(rel).urlset;
      expect(set["@_xmlns"]).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
      const urls = set.url as Array<{ loc: string; lastmod?: string }>;
      expect(urls.length).toBeGreaterThan(0);
      expect(urls.length).toBeLessThanOrEqual(2);
      expect(Buffer.byteLength(read(rel))).toBeLessThan(50 * 1024 * 1024);
      for (const u of urls) {
        expect(new URL(u.loc).origin).toBe(BASE);
        if (u.lastmod !== undefined) expect(u.lastmod).toMatch(W3C_DATETIME);
        // A child's lastmod is never older than its URLs'.
        if (u.lastmod) expect(Date.parse(c.lastmod)).toBeGreaterThanOrEqual(Date.parse(u.lastmod));
        seen.push(u.loc);
      }
    }
    // Every page exactly once: 12 editions, 4 city pages, 3 state pages, home, /cities, /states, /developers.
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((l) => /\/\d{4}-\d{2}-\d{2}$/.test(l))).toHaveLength(editionIds.length);
    expect(seen).toEqual(expect.arrayContaining([`${BASE}/`, `${BASE}/cities`, `${BASE}/states`, `${BASE}/developers`, `${BASE}/states/missouri`, `${BASE}/st-louis-missouri`]));
    expect(seen).toHaveLength(editionIds.length + 4 + 3 + 4);
    // A day with four editions and a limit of two is split into two parts.
    expect(children.map((c) => c.loc)).toEqual(expect.arrayContaining([`${BASE}/sitemaps/editions-2026-11-21.xml`, `${BASE}/sitemaps/editions-2026-11-21.2.xml`]));
  });

  it("an edition twin is the stored markdown under a metadata header", () => {
    const text = read("kailua-hawaii/2026-11-21.md");
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(front).not.toBeNull();
    // Every front matter value is one JSON scalar on one line.
    const fields = Object.fromEntries(front![1].split("\n").map((l) => [l.slice(0, l.indexOf(":")), JSON.parse(l.slice(l.indexOf(":") + 1))]));
    expect(fields).toMatchObject({ subject: HOSTILE, city: "Kailua", state: "Hawaii", date: "2026-11-21", url: `${BASE}/kailua-hawaii/2026-11-21` });
    // One top-level heading (markdownlint MD025): the body's h1, no front-matter title beside it.
    expect(fields.title).toBeUndefined();
    expect(text.slice(front![0].length)).toContain("# kailua-hawaii Daily: 2026-11-21\n\nGood morning.");
  });

  it("a hostile subject or place name cannot add links, headings or HTML to a twin", () => {
    for (const rel of ["kailua-hawaii.md", "feed.md", "cities.md", "states/colorado.md", "canon-city-colorado.md", "llms-full.txt"]) {
      const tokens = marked.lexer(read(rel).replace(/^---\n[\s\S]*?\n---\n/, ""));
      const links: string[] = [];
      const html: string[] = [];
      const walk = (list: Token[]) => {
        for (const t of list) {
          if (t.type === "link") links.push((t as Tokens.Link).href);
          if (t.type === "html") html.push(t.raw);
          if ("tokens" in t && t.tokens) walk(t.tokens);
          if (t.type === "list") walk((t as Tokens.List).items);
          if (t.type === "table") for (const row of [(t as Tokens.Table).header, ...(t as Tokens.Table).rows]) for (const cell of row) walk(cell.tokens);
        }
      };
      walk(tokens);
      expect(html, rel).toEqual([]);
      for (const href of links) expect(href.startsWith(`${BASE}/`), `${rel}: ${href}`).toBe(true);
    }
    // The hostile city keeps its full name as text in its heading, and the page has one h1.
    const tokens = marked.lexer(read("canon-city-colorado.md").replace(/^---\n[\s\S]*?\n---\n/, ""));
    const h1 = tokens.filter((t) => t.type === "heading" && (t as Tokens.Heading).depth === 1) as Tokens.Heading[];
    expect(h1).toHaveLength(1);
    expect(marked.parseInline(h1[0].text)).toBe("Cañon ](http://evil.example) &lt;b&gt;City&lt;/b&gt;, Colorado");
  });

  it("the city twin has the latest edition, the archive index and a census table of the figures there are (never 'not imported', which tells a reader nothing)", () => {
    const text = read("st-louis-missouri.md");
    const tokens = marked.lexer(text.replace(/^---\n[\s\S]*?\n---\n/, ""));
    const headings = tokens.filter((t) => t.type === "heading").map((t) => [(t as Tokens.Heading).depth, (t as Tokens.Heading).text]);
    expect(headings).toEqual(expect.arrayContaining([[1, "St. Louis, Missouri"], [2, "Latest edition"], [3, "st-louis-missouri Daily: 2026-11-21"], [2, "Archive"], [2, "Census figures"]]));
    expect(text).toContain(`- [2026-11-19](${BASE}/st-louis-missouri/2026-11-19.md)`);
    const table = tokens.find((t) => t.type === "table") as Tokens.Table;
    const rows = Object.fromEntries(table.rows.map((r) => [r[0].text, r[1].text]));
    const population = db.prepare("SELECT population FROM places WHERE slug = 'st-louis-missouri'").pluck().get() as number;
    expect(rows.Population).toBe(population.toLocaleString("en-US"));
    expect(rows["Median household income"]).toBe("$52,941");
    expect(rows["Median age"]).toBe("35.4 years");
    expect(rows).not.toHaveProperty("Median home value");
    expect(text).not.toMatch(/not available|imported/i);
  });

  it("state twins list the state's cities by population; cities.md groups them by state", () => {
    const mo = read("states/missouri.md");
    expect(mo.indexOf("[Kansas City]")).toBeGreaterThan(-1);
    // Kansas City is larger than St. Louis.
    expect(mo.indexOf("[Kansas City]")).toBeLessThan(mo.indexOf("[St. Louis]"));
    const cities = marked.lexer(read("cities.md").replace(/^---\n[\s\S]*?\n---\n/, ""));
    const states = cities.filter((t) => t.type === "heading" && (t as Tokens.Heading).depth === 2).map((t) => (t as Tokens.Heading).text);
    expect(states).toEqual([`[Colorado](${BASE}/states/colorado.md)`, `[Hawaii](${BASE}/states/hawaii.md)`, `[Missouri](${BASE}/states/missouri.md)`]);
  });

  it("feed.md lists the most recent editions, newest first", () => {
    const list = marked.lexer(read("feed.md").replace(/^---\n[\s\S]*?\n---\n/, "")).find((t) => t.type === "list") as Tokens.List;
    expect(list.items).toHaveLength(editionIds.length);
    expect(list.items[0].text).toContain("2026-11-21");
    expect(list.items.at(-1)!.text).toContain("2026-11-19");
  });

  it("developers.md documents the base URL, OpenAPI, versioning and every problem code", () => {
    const text = read("developers.md");
    expect(text).toContain(`${BASE}/openapi.json`);
    expect(text).toContain("/api/v1/");
    for (const code of Object.keys(PROBLEMS)) expect(text).toContain(`| \`${code}\` | ${PROBLEMS[code as keyof typeof PROBLEMS].status} |`);
  });

  it("llms.txt follows llmstxt.org: h1, blockquote summary, h2 sections of links", () => {
    const tokens = marked.lexer(read("llms.txt"));
    expect(tokens[0]).toMatchObject({ type: "heading", depth: 1, text: "citydaily" });
    expect(tokens.find((t) => t.type !== "space" && t !== tokens[0])?.type).toBe("blockquote");
    const sections = tokens.filter((t) => t.type === "heading" && (t as Tokens.Heading).depth === 2).map((t) => (t as Tokens.Heading).text);
    expect(sections).toEqual(["Start here", "Feeds", "States and territories", "Optional"]);
    const links = tokens.filter((t) => t.type === "list").flatMap((l) => (l as Tokens.List).items.map((i) => /^\[[^\]]+\]\(([^)]+)\)(: .+)?$/.exec(i.text)?.[1]));
    expect(links).toEqual(expect.arrayContaining([`${BASE}/cities.md`, `${BASE}/feed.md`, `${BASE}/developers.md`, `${BASE}/openapi.json`, `${BASE}/feed.xml`, `${BASE}/sitemap.xml`, `${BASE}/llms-full.txt`, `${BASE}/states/missouri.md`]));
    expect(links.every((l) => l?.startsWith(`${BASE}/`))).toBe(true);
  });

  it("llms-full.txt describes the site and links out, with bounded lists", () => {
    const text = read("llms-full.txt");
    expect(text.startsWith("# citydaily\n\n> ")).toBe(true);
    expect(text).toContain("## Largest cities covered");
    expect(text).toContain("## Recent editions");
    expect(text).toContain("### Errors");
    expect(text).not.toContain("Good morning."); // no edition bodies inline
  });
});

describe("with a separate archive directory", () => {
  it("puts the dated edition twins there and everything else in the generation", async () => {
    const generation = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-gen-"));
    const archive = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-archive-"));
    try {
      const written = await writeTextOutputs(ctx, { outDir: generation, archiveDir: archive, editionIds: [], full: true });
      const inArchive = [...snapshot(archive).keys()];
      const inGeneration = [...snapshot(generation).keys()];
      expect(inArchive.length).toBe(editionIds.length);
      expect(inArchive.every((f) => /^[a-z0-9-]+\/\d{4}-\d{2}-\d{2}\.md$/.test(f))).toBe(true);
      expect(inGeneration.some((f) => /\/\d{4}-\d{2}-\d{2}\.md$/.test(f))).toBe(false);
      expect(inGeneration).toContain("kailua-hawaii/feed.xml");
      expect(written).toBe(inArchive.length + inGeneration.length);
    } finally {
      fs.rmSync(generation, { recursive: true, force: true });
      fs.rmSync(archive, { recursive: true, force: true });
    }
  });
});

describe("an incremental build", () => {
  it("rewrites only what the morning's new editions change, and ends where a full build would", async () => {
    const before = snapshot(site);
    const morning = [
      edition("st-louis-missouri", "2026-11-22", "2026-11-22T11:00:00.000Z"),
      edition("kailua-hawaii", "2026-11-22", "2026-11-22T16:00:00.000Z"),
    ];
    const written = await writeTextOutputs(ctx, { outDir: site, editionIds: morning, full: false, sitemapMaxUrls: 2 });
    const after = snapshot(site);
    const changed = [...after].filter(([f, v]) => before.get(f)?.ino !== v.ino).map(([f]) => f).sort();
    expect(changed).toHaveLength(written);
    // Each town's edition before the new one gains its "next" link, so readers can walk forward: its twin is rewritten too.
    expect(changed).toEqual([
      "cities.md", "feed.md", "feed.xml", "index.md", "kailua-hawaii.md", "kailua-hawaii/2026-11-21.md", "kailua-hawaii/2026-11-22.md", "kailua-hawaii/feed.xml",
      "llms-full.txt", "llms.txt", "sitemap.xml", "sitemaps/cities-hawaii.xml", "sitemaps/cities-missouri.xml", "sitemaps/editions-2026-11-22.xml",
      "sitemaps/pages.xml", "sitemaps/pages.2.xml", "sitemaps/pages.3.xml", "sitemaps/pages.4.xml", "states.md",
      "st-louis-missouri.md", "st-louis-missouri/2026-11-21.md", "st-louis-missouri/2026-11-22.md", "st-louis-missouri/feed.xml", "states/hawaii.md", "states/missouri.md",
    ].sort());
    // Yesterday's sitemap children are untouched, and the index still lists them.
    expect(after.get("sitemaps/editions-2026-11-21.xml")!.ino).toBe(before.get("sitemaps/editions-2026-11-21.xml")!.ino);
    expect(read("sitemap.xml")).toContain(`${BASE}/sitemaps/editions-2026-11-21.2.xml`);

    // The same files as a full build from scratch (the untouched ones included).
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-site-"));
    try {
      await writeTextOutputs(ctx, { outDir: fresh, editionIds: [], full: true, sitemapMaxUrls: 2 });
      const full = snapshot(fresh);
      expect([...after.keys()].sort()).toEqual([...full.keys()].sort());
      for (const [f, v] of full) expect(after.get(f)!.text, f).toBe(v.text);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});
