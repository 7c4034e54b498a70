import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectoryVerifyResult } from "../../src/contract/directory-sources.ts";
import { TownFeedList } from "../../src/contract/feeds.ts";
import { verifyDue } from "../../src/services/directory/verify.ts";
import { removeFeed } from "../../src/services/sources/feeds.ts";
import { feedSources } from "../../src/services/sources/town-sources.ts";
import { candidatesOfPlace, upsertCandidates } from "../../src/store/directory/candidates.ts";
import type { NewCandidate } from "../../src/core/directory/candidate.ts";
import { findPlaceBySlug } from "../../src/store/places/places.ts";
import { civicPlusSite, downOrigin, legistarApi, startSite, wordPressSite, type Site } from "../helpers/directory-sites.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Verifying the directory (a candidate is a guess): a town's candidates tried against stand-ins of the sites they
// point at (a CivicPlus city site, a WordPress paper found by autodiscovery, a site whose 2016 feed is
// gone but whose home page links a new one, a site that is down, one that redirects to a private
// address, Legistar's events API, a county paper) with the feed fetcher's rules: only what parses and
// is recent becomes a source of the town, credited, a county paper's items only when they name it.

const NOW = "2026-11-24T15:00:00.000Z";
const TOKEN = "directory-token";
const ROOT = path.resolve(import.meta.dirname, "../..");
const ELY = "ely-nevada";
const auth = { Authorization: `Bearer ${TOKEN}` };

let civic: Site, times: Site, moved: Site, redirecting: Site, legistar: Site, county: Site;
let down: string;
let server: TestServer;
let env: Record<string, string>;

const ago = (days: number, hour = 16) => new Date(Date.parse(NOW) - days * 86_400_000 + (hour - 15) * 3_600_000).toISOString();

beforeAll(async () => {
  [civic, times, moved, redirecting, legistar, county] = await Promise.all([startSite(), startSite(), startSite(), startSite(), startSite(), startSite()]);
  down = await downOrigin();
  civicPlusSite(civic, {
    city: "Ely",
    news: [
      { title: "Snow Removal Parking Restrictions in Effect", link: `${civic.url}/CivicAlerts.aspx?AID=210`, published: ago(1) },
      { title: "Water Main Flushing on Aultman Street", link: `${civic.url}/CivicAlerts.aspx?AID=209`, published: ago(4) },
    ],
    events: [
      { id: 1451, title: "Christmas Tree Lighting", start: "2026-11-28T17:30", end: "2026-11-28T19:00", location: "Broadway Park, 501 Mill St" },
      { id: 1452, title: "Parks & Recreation Board", start: "2026-12-02T17:00", end: "2026-12-02T18:00", location: "City Hall, 501 Mill St" },
    ],
    agendas: [{ title: "City Council Regular Meeting - Dec 1, 2026", link: `${civic.url}/AgendaCenter/ViewFile/Agenda/_12012026-312`, published: ago(2) }],
  });
  wordPressSite(times, { name: "The Ely Times", etag: '"wp-1"', items: [
    { title: "Council approves new water rates", link: `${times.url}/2026/11/23/council-approves-water-rates/`, published: ago(1) },
    { title: "Lady Bobcats open season with win", link: `${times.url}/2026/11/21/lady-bobcats-win/`, published: ago(3) },
  ] });
  // The 2016 feed is gone; the home page links the new one, relatively.
  moved.set("/", { body: `<!doctype html><html><head><title>Ely Radio</title><link rel="alternate" type="application/atom+xml" title="Ely Radio news" href="/news/atom.xml"></head><body><h1>Ely Radio</h1></body></html>` });
  moved.set("/news/atom.xml", { type: "application/atom+xml", body: `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Ely Radio</title><id>tag:elyradio,2026:news</id><updated>${ago(0)}</updated><entry><title>Highway 50 reopens after storm</title><link href="/news/hwy-50-reopens"/><id>tag:elyradio,2026:1</id><updated>${ago(0)}</updated></entry></feed>` });
  // A feed that redirects inside the network (a cloud metadata address, a private one): refused.
  redirecting.set("/feed", { location: "http://10.0.0.1/feed" });
  redirecting.set("/", { location: "http://169.254.169.254/latest/meta-data/" });
  legistarApi(legistar, { ely: [
    { id: 9001, body: "City Council", date: "2026-12-01", time: "6:00 PM", location: "Council Chambers, 501 Mill St", agendaFile: "https://ely.legistar1.com/ely/meetings/2026/12/9001_A_City_Council_26-12-01_Agenda.pdf" },
    { id: 9002, body: "Planning Commission", date: "2026-11-30", time: "5:30 PM", location: "City Hall", agendaFile: null, agendaStatus: "Draft" },
    { id: 8990, body: "City Council", date: "2026-11-10", time: "6:00 PM", location: "Council Chambers, 501 Mill St", agendaFile: "https://ely.legistar1.com/ely/meetings/2026/11/8990_A.pdf" },
    { id: 9003, body: "City Council Special Meeting", date: "2026-11-27", time: "12:00 PM", location: "City Hall", agendaFile: null, comment: "CANCELLED" },
  ] });
  wordPressSite(county, { name: "Great Basin Sun", items: [
    { title: "Ely council weighs downtown parking changes", link: `${county.url}/ely-parking/`, published: ago(1) },
    { title: "McGill pool to close for repairs", link: `${county.url}/mcgill-pool/`, published: ago(1) },
    { title: "East Ely depot museum reopens", link: `${county.url}/east-ely-depot/`, published: ago(2) },
    { title: "Baker: Great Basin park sets winter hours", link: `${county.url}/baker-hours/`, published: ago(2) },
  ] });
  env = {
    NOW, ADMIN_TOKEN: TOKEN, FEED_TIMEOUT_MS: "2000", LEGISTAR_API_URL: legistar.url, DIRECTORY_CHECKS_PER_HOUR: "0",
    // Loopback only for the stand-ins: every other private address stays refused (FEEDS_ALLOW_PRIVATE is not set).
    FEEDS_ALLOW_ADDRESSES: "127.0.0.1",
  };
  server = await startTestServer(env);
  const geoid = geoidOf(server.ctx.db, ELY);
  const cand = (c: Partial<NewCandidate> & Pick<NewCandidate, "kind" | "name" | "url">, row: string): NewCandidate =>
    ({ placeGeoid: geoid, scope: "town", feedUrls: [], platform: null, platformId: null, dataset: "test-directory.csv", datasetRow: row, ...c });
  upsertCandidates(server.ctx.db, [
    cand({ kind: "government", name: "City of Ely", url: `${civic.url}/`, platform: "civicplus", platformId: new URL(civic.url).host }, "1"),
    cand({ kind: "news", name: "The Ely Times", url: `${times.url}/`, platform: "wordpress" }, "2"),
    cand({ kind: "news", name: "Ely Radio", url: `${moved.url}/`, feedUrls: [`${moved.url}/rss/news-2016.xml`] }, "3"),
    cand({ kind: "news", name: "White Pine Chronicle", url: `${down}/`, feedUrls: [`${down}/feed`] }, "4"),
    cand({ kind: "news", name: "Ely Shopper", url: `${redirecting.url}/`, feedUrls: [`${redirecting.url}/feed`] }, "5"),
    cand({ kind: "civic", name: "Ely City Council", url: "https://ely.legistar.com/", platform: "legistar", platformId: "ely" }, "6"),
    cand({ kind: "news", scope: "county", name: "Great Basin Sun", url: `${county.url}/`, feedUrls: [`${county.url}/feed/`, `${county.url}/comments/feed/`] }, "7"),
  ], NOW);
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([civic, times, moved, redirecting, legistar, county].map((s) => s?.close()));
});

const feedsOf = async () => TownFeedList.parse(await (await server.get(`/admin/towns/${ELY}/feeds`, { headers: auth })).json()).feeds;

describe("POST /admin/towns/{slug}/directory/verify", () => {
  let result: ReturnType<typeof DirectoryVerifyResult.parse>;
  const byName = (name: string) => result.candidates.find((c) => c.name === name)!;

  beforeAll(async () => {
    const res = await server.post(`/admin/towns/${ELY}/directory/verify`, {}, { headers: auth });
    expect(res.status).toBe(200);
    result = DirectoryVerifyResult.parse(await res.json());
  }, 60_000);

  it("finds a CivicPlus city's news flash, its calendar (relative URL: lines resolved) and its Agenda Center by the platform's conventions", async () => {
    const city = byName("City of Ely");
    expect(city.status).toBe("verified");
    expect(city.feeds.map((f) => [f.action, f.kind, f.url])).toEqual([
      ["added", "rss", `${civic.url}/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml`],
      ["added", "ical", `${civic.url}/common/modules/iCalendar/iCalendar.aspx?catID=14&feed=calendar`],
      ["added", "rss", `${civic.url}/RSSFeed.aspx?ModID=65&CID=All-0`],
    ]);
    // robots.txt read once for the site, before its pages; every request says who we are.
    expect(civic.requests[0]).toBe("/robots.txt");
    expect(civic.requests.filter((r) => r === "/robots.txt")).toHaveLength(1);
    expect(new Set(civic.userAgents)).toEqual(new Set([expect.stringMatching(/^citydaily \(http:\/\/127\.0\.0\.1:\d+, [^)]+@[^)]+\)$/)]));
    const place = findPlaceBySlug(server.ctx.db, ELY)!;
    const { events } = feedSources(server.ctx, place, "2026-11-24", new Date(NOW));
    const lighting = events.find((e) => e.title === "Christmas Tree Lighting")!;
    expect(lighting).toMatchObject({ startsAt: "2026-11-28T17:30", venue: "Broadway Park, 501 Mill St", url: `${civic.url}/Calendar.aspx?EID=1451`, source: "City of Ely" });
  });

  it("finds a WordPress paper's feed on its home page, and leaves its comments feed out", () => {
    const t = byName("The Ely Times");
    expect(t.status).toBe("verified");
    expect(t.feeds.map((f) => [f.action, f.url])).toEqual([["added", `${times.url}/feed/`]]);
    expect(t.tried.map((x) => [x.via, x.url])).toEqual([["home page", `${times.url}/feed/`]]);
    expect(times.requests).not.toContain("/comments/feed/");
  });

  it("replaces a recorded 2016 feed that is gone (404) with the one the home page links now", () => {
    const r = byName("Ely Radio");
    expect(r.status).toBe("verified");
    expect(r.tried.map((x) => [x.via, x.outcome])).toEqual([["recorded", "failed"], ["home page", "ok"]]);
    expect(r.tried[0]!.detail).toContain("404");
    expect(r.feeds.map((f) => f.url)).toEqual([`${moved.url}/news/atom.xml`]);
  });

  it("says a site that is down could not be reached, and adds nothing", () => {
    const d = byName("White Pine Chronicle");
    expect(d.status).toBe("failed");
    expect(d.detail).toMatch(/could not be (reached|fetched)/);
    expect(d.feeds).toEqual([]);
  });

  it("refuses a redirect to a private or link-local address even though the stand-ins' loopback address is allowed", () => {
    const s = byName("Ely Shopper");
    expect(s.status).toBe("refused");
    expect(s.tried.map((x) => [x.via, x.outcome])).toEqual([["recorded", "refused"], ["home page", "refused"]]);
    expect(s.tried[0]!.detail).toBe("the address is private, loopback or link-local (not on the public internet) (it redirected to http://10.0.0.1/feed)");
    expect(s.tried[1]!.detail).toBe("the address is private, loopback or link-local (not on the public internet) (it redirected to http://169.254.169.254/latest/meta-data/)");
    // The redirects were answered by the stand-in, and nothing else was asked of it.
    expect(redirecting.requests).toEqual(["/robots.txt", "/feed", "/"]);
  });

  it("reads a Legistar client's meetings from the events API: body name, local time, place and agenda link; cancelled ones left out", async () => {
    const l = byName("Ely City Council");
    expect(l.status).toBe("verified");
    expect(l.feeds).toHaveLength(1);
    expect(l.feeds[0]!.url).toBe(`${legistar.url}/v1/ely/events?%24orderby=EventDate%20desc&%24top=100`);
    const place = findPlaceBySlug(server.ctx.db, ELY)!;
    const meetings = feedSources(server.ctx, place, "2026-11-25", new Date(NOW)).events.filter((e) => e.source === "Ely City Council");
    expect(meetings.map((e) => [e.title, e.startsAt, e.venue, e.agendaUrl ?? null])).toEqual([
      ["Planning Commission meeting", "2026-11-30T17:30", "City Hall", null],
      ["City Council meeting", "2026-12-01T18:00", "Council Chambers, 501 Mill St", "https://ely.legistar1.com/ely/meetings/2026/12/9001_A_City_Council_26-12-01_Agenda.pdf"],
    ]);
    expect(meetings[1]!.url).toMatch(/^https:\/\/ely\.legistar\.com\/MeetingDetail\.aspx\?LEGID=9001/);
  });

  it("keeps a county paper with its items filtered to those that name the town, marked county-wide", () => {
    const c = byName("Great Basin Sun");
    expect(c.status).toBe("verified");
    expect(c.scope).toBe("county");
    expect(c.detail).toContain("1 name Ely");
    expect(c.tried.map((x) => x.url)).not.toContain(`${county.url}/comments/feed/`);
    const place = findPlaceBySlug(server.ctx.db, ELY)!;
    const { headlines, credits } = feedSources(server.ctx, place, "2026-11-24", new Date(NOW));
    const fromSun = headlines.filter((h) => h.outlet === "Great Basin Sun");
    expect(fromSun.map((h) => [h.title, h.countyWide])).toEqual([["Ely council weighs downtown parking changes", true]]);
    expect(credits).toContainEqual({ name: "Great Basin Sun", url: `${county.url}/`, countyWide: true });
  });

  it("stores what passed as town feeds added by the directory, with provenance, and records each candidate's outcome", async () => {
    const feeds = await feedsOf();
    // Candidates in order: civic platforms, governments, news; the county-wide last.
    expect(feeds.map((f) => [f.title, f.addedBy, f.scope])).toEqual([
      ["Ely City Council", "directory", "town"],
      ["City of Ely", "directory", "town"], ["City of Ely", "directory", "town"], ["City of Ely", "directory", "town"],
      ["The Ely Times", "directory", "town"], ["Ely Radio", "directory", "town"],
      ["Great Basin Sun", "directory", "county"],
    ]);
    expect(feeds.every((f) => f.verifiedAt === NOW)).toBe(true);
    const checks = candidatesOfPlace(server.ctx.db, geoidOf(server.ctx.db, ELY)).map((c) => [c.name, c.check_status, c.checked_at]);
    expect(checks).toEqual(expect.arrayContaining([["White Pine Chronicle", "failed", NOW], ["Ely Shopper", "refused", NOW], ["The Ely Times", "verified", NOW]]));
  });
});

describe("npm run admin -- directory verify SLUG", () => {
  it("tries the town's candidates now and prints the outcome of each, feeds already there verified again", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["scripts/admin.ts", "directory", "verify", ELY], {
      cwd: ROOT, env: { ...process.env, ...env, DATA_DIR: server.dataDir, LOG_LEVEL: "silent", BASE_URL: server.url },
    });
    if (process.env.SCREENSHOT_DIR) fs.writeFileSync(path.join(process.env.SCREENSHOT_DIR, "directory-verify-cli.txt"), stdout);
    expect(stdout).toContain("Ely, Nevada: 7 candidate(s)");
    expect(stdout).toMatch(/^VERIFIED +#\d+ The Ely Times \(news\) http:\/\/127\.0\.0\.1:\d+\/$/m);
    expect(stdout).toMatch(/^ +verified feed \d+ \(rss\) http:\/\/127\.0\.0\.1:\d+\/feed\/$/m);
    expect(stdout).toMatch(/^FAILED +#\d+ White Pine Chronicle/m);
    expect(stdout).toMatch(/^REFUSED +#\d+ Ely Shopper/m);
    expect(stdout).toMatch(/tried recorded: http:\/\/127\.0\.0\.1:\d+\/feed -> refused: the address is private/);
    expect(stdout).toMatch(/^VERIFIED +#\d+ Great Basin Sun \(news, county-wide\)/m);
    expect(stdout).toMatch(/tried recorded: http:\/\/127\.0\.0\.1:\d+\/rss\/news-2016\.xml -> failed: the server answered 404/);
    expect((await feedsOf()).length).toBe(7);
    // The paper's feed, fetched before, was asked conditionally and answered 304: its stored items were judged.
    const feedAsks = times.requests.map((r, i) => [r, times.conditions[i]]).filter(([r]) => r === "/feed/");
    expect(feedAsks).toEqual([["/feed/", ""], ["/feed/", '"wp-1"']]);
    expect(stdout).toMatch(/tried home page: http:\/\/127\.0\.0\.1:\d+\/feed\/ -> ok: 2 item\(s\), 2 from the last 21 days/);
  }, 60_000);
});

describe("removals, blocks and the weekly re-check", () => {
  it("does not add back a source the town's operator removed; restoring it verifies it again", async () => {
    const radio = (await feedsOf()).find((f) => f.title === "Ely Radio")!;
    removeFeed(server.ctx, radio.id, ELY, "operator@ely.example.org");
    const again = DirectoryVerifyResult.parse(await (await server.post(`/admin/towns/${ELY}/directory/verify`, {}, { headers: auth })).json());
    const r = again.candidates.find((c) => c.name === "Ely Radio")!;
    expect(r.tried.find((t) => t.url === radio.url)).toMatchObject({ outcome: "removed", detail: "removed from the town by its operator" });
    expect((await feedsOf()).map((f) => f.url)).not.toContain(radio.url);
    const { restoreDirectorySource } = await import("../../src/services/directory/sources.ts");
    const restored = await restoreDirectorySource(server.ctx, ELY, radio.url);
    expect(restored?.feeds.map((f) => f.action)).toEqual(["added"]);
    expect((await feedsOf()).map((f) => f.url)).toContain(radio.url);
  }, 60_000);

  it("a host blocked by staff loses its directory feeds everywhere and is not tried again", async () => {
    const host = new URL(county.url).hostname;
    // The block is by host name: every stand-in shares 127.0.0.1, so a source (one address) is blocked here instead.
    const res = await server.post("/admin/directory/blocks", { kind: "source", value: `${county.url}/feed/`, reason: "copies other papers" }, { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ block: { kind: "source", value: `${county.url}/feed/`, reason: "copies other papers" }, removedFeeds: 1 });
    expect((await feedsOf()).map((f) => f.title)).not.toContain("Great Basin Sun");
    const again = DirectoryVerifyResult.parse(await (await server.post(`/admin/towns/${ELY}/directory/verify`, {}, { headers: auth })).json());
    const sun = again.candidates.find((c) => c.name === "Great Basin Sun")!;
    // The recorded feed is blocked; the home page announces the same one (and a comments feed, left out).
    expect(sun.tried.map((t) => t.outcome)).toEqual(["blocked"]);
    expect((await feedsOf()).map((f) => f.title)).not.toContain("Great Basin Sun");
    const hostBlock = await server.post("/admin/directory/blocks", { kind: "host", value: `http://${host}:1/` }, { headers: auth });
    expect(await hostBlock.json()).toMatchObject({ block: { kind: "host", value: host } });
    expect((await feedsOf()).length).toBe(0);
    await server.post("/admin/directory/unblock", { kind: "host", value: host }, { headers: auth });
    await server.post("/admin/directory/unblock", { kind: "source", value: `${county.url}/feed/` }, { headers: auth });
  }, 60_000);

  it("re-checks a week later, new subscribed towns first, and drops a source after failing for a week", async () => {
    await server.post(`/admin/towns/${ELY}/directory/verify`, {}, { headers: auth });
    const before = (await feedsOf()).find((f) => f.title === "The Ely Times")!;
    addSubscriber(server.ctx.db, ELY, "reader@ely.example.org");
    // Nothing is due within the week.
    expect(await verifyDue(server.ctx, 10)).toEqual([]);
    await times.close();
    const later = (days: number) => new Date(Date.parse(NOW) + days * 86_400_000);
    server.ctx.config.now = () => later(3);
    // Three days after: the paper is down; not due yet, and even when asked it is kept (failing for less than a week).
    const day3 = DirectoryVerifyResult.parse(await (await server.post(`/admin/towns/${ELY}/directory/verify`, {}, { headers: auth })).json());
    expect(day3.candidates.find((c) => c.name === "The Ely Times")!.feeds).toEqual([expect.objectContaining({ id: before.id, action: "kept" })]);
    server.ctx.config.now = () => later(11);
    const due = await verifyDue(server.ctx, 10);
    expect(due.map((c) => c.name)).toContain("The Ely Times");
    expect(due.find((c) => c.name === "The Ely Times")!.feeds).toEqual([expect.objectContaining({ id: before.id, action: "dropped" })]);
    expect((await feedsOf()).map((f) => f.title)).not.toContain("The Ely Times");
    server.ctx.config.now = () => new Date(NOW);
  }, 60_000);
});

describe("the server's background checks", () => {
  it("with DIRECTORY_CHECKS_PER_HOUR set, the server verifies a subscribed town's never-checked candidates by itself, a site at a time", async () => {
    const site = await startSite();
    wordPressSite(site, { name: "Boise Weekly", items: [{ title: "Treasure Valley transit plan advances", link: `${site.url}/transit/`, published: ago(1) }] });
    // 3600 an hour: one site a second.
    const busy = await startTestServer({ ...env, DIRECTORY_CHECKS_PER_HOUR: "3600" });
    try {
      const geoid = geoidOf(busy.ctx.db, "boise-idaho");
      upsertCandidates(busy.ctx.db, [{ placeGeoid: geoid, kind: "news", scope: "town", name: "Boise Weekly", url: `${site.url}/`, feedUrls: [], platform: "wordpress", platformId: null, dataset: "test-directory.csv", datasetRow: "9" }], NOW);
      // A town nobody subscribes to is not checked.
      upsertCandidates(busy.ctx.db, [{ placeGeoid: geoidOf(busy.ctx.db, "ely-nevada"), kind: "news", scope: "town", name: "Unsubscribed Times", url: `${site.url}/`, feedUrls: [], platform: null, platformId: null, dataset: "test-directory.csv", datasetRow: "10" }], NOW);
      addSubscriber(busy.ctx.db, "boise-idaho", "reader@boise.example.org");
      const checked = () => candidatesOfPlace(busy.ctx.db, geoid)[0]!.check_status;
      for (let i = 0; i < 50 && checked() === null; i++) await new Promise((r) => setTimeout(r, 100));
      expect(checked()).toBe("verified");
      expect(TownFeedList.parse(await (await busy.get("/admin/towns/boise-idaho/feeds", { headers: auth })).json()).feeds.map((f) => [f.title, f.addedBy])).toEqual([["Boise Weekly", "directory"]]);
      expect(candidatesOfPlace(busy.ctx.db, geoidOf(busy.ctx.db, "ely-nevada"))[0]!.check_status).toBeNull();
    } finally {
      await busy.stop();
      await site.close();
    }
  }, 30_000);
});
