import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TownFeedList } from "../../src/contract/feeds.ts";
import { addFeed } from "../../src/services/sources/feeds.ts";
import { formatSummary } from "../../src/services/morning/summary.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { startFeedRefresh, townSources } from "../../src/services/sources/town-sources.ts";
import { insertTownFeed } from "../../src/store/sources/feeds.ts";
import { findPlaceBySlug } from "../../src/store/places/places.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import {
  ATOM_TYPE, atomFeed, CALENDAR_TYPE, libraryCalendar, nwsAlert, RSS_TYPE, rssFeed, startTownSourcesServer, type FeedItemInput, type TownSourcesServer,
} from "../helpers/town-sources-server.ts";

// The morning with public sources: each feed address fetched once however many towns use it,
// conditional requests, failures that keep the last good items for a day and mark the feed failing
// after 3 mornings, headlines never repeated in a town, and a morning that completes with every
// source down. Ely and Reno (Pacific time) share the local paper's RSS feed.

const day = (n: number) => new Date(Date.parse("2026-11-24T15:00:00Z") + (n - 1) * 86_400_000); // 07:00 PST
const TOKEN = "sources-token";
// The feeds' time limit: long enough that a local answer is never cut on a loaded CI machine (at
// 600 ms one was), short enough that the tests of hanging feeds stay quick.
const FEED_MS = 1500;

let src: TownSourcesServer;
let server: TestServer;

const times = (extra: FeedItemInput[] = []) => rssFeed("The Ely Times", [
  ...extra,
  { title: "Council approves water rates", link: "https://times.example.org/water", published: "2026-11-23T15:00:00Z" },
  { title: "High school wins state title", link: "https://times.example.org/state", published: "2026-11-23T18:00:00Z" },
  { title: "New clinic opens on Aultman Street", link: "https://times.example.org/clinic", published: "2026-11-22T12:00:00Z" },
  { title: "Mine expansion hearing set", link: "https://times.example.org/mine", published: "2026-11-21T12:00:00Z" },
  { title: "Fair results from August", link: "https://times.example.org/fair", published: "2026-08-20T12:00:00Z" }, // not news any more
]);
const city = atomFeed("City of Ely News", [
  { title: "Snow plowing schedule", link: "https://city.example.gov/plowing", published: "2026-11-24T12:00:00Z" },
  { title: "Holiday office hours", link: "https://city.example.gov/hours", published: "2026-11-20T12:00:00Z" },
  { title: "Water main flushing", link: "https://city.example.gov/flushing", published: "2026-11-19T12:00:00Z" },
]);

// The library's calendar plus a Sunday market every week (its recurrences run past any one fetch's window).
const calendar = libraryCalendar({ weekStart: "2026-11-17" }).replace("END:VCALENDAR", [
  "BEGIN:VEVENT", "UID:market@wpcl.example.org", "DTSTAMP:20261101T120000Z", "DTSTART;TZID=America/Los_Angeles:20261122T100000",
  "DTEND;TZID=America/Los_Angeles:20261122T130000", "RRULE:FREQ=WEEKLY;BYDAY=SU", "SUMMARY:Sunday Market", "END:VEVENT", "END:VCALENDAR",
].join("\r\n"));

beforeAll(async () => {
  src = await startTownSourcesServer();
  src.setFeed("/library.ics", { body: calendar, contentType: CALENDAR_TYPE, etag: '"cal-1"' });
  src.setFeed("/times.rss", { body: times(), contentType: RSS_TYPE, etag: '"times-1"' });
  src.setFeed("/city.atom", { body: city, contentType: ATOM_TYPE, lastModified: "Tue, 24 Nov 2026 12:00:00 GMT" });
  src.setAlerts([nwsAlert({
    event: "Winter Storm Warning", severity: "Severe", instruction: "Travel could be very difficult.",
    onset: "2026-11-24T04:00:00-08:00", ends: "2026-11-24T22:00:00-08:00", expires: "2026-11-24T16:00:00-08:00",
  })]);
  src.setAirQuality({ usAqi: 112, pm2_5: 112, pm10: 30, ozone: 40, time: "2026-11-24T15:00" });
  server = await startTestServer({
    NOW: day(1).toISOString(), ADMIN_TOKEN: TOKEN, MAIL_SENDER: "off", FEEDS_ALLOW_PRIVATE: "true",
    NWS_API_URL: src.url, AIR_QUALITY_API_URL: src.url, SOURCES_TIMEOUT_MS: "600", FEED_TIMEOUT_MS: String(FEED_MS),
  });
  for (const slug of ["ely-nevada", "reno-nevada"]) addSubscriber(server.ctx.db, slug, `reader@${slug}.example.org`);
  await addFeed(server.ctx, "ely-nevada", `${src.url}/library.ics`, "staff");
  await addFeed(server.ctx, "ely-nevada", `${src.url}/times.rss`, "staff");
  await addFeed(server.ctx, "ely-nevada", `${src.url}/city.atom`, "operator@ely.example.org");
  await addFeed(server.ctx, "reno-nevada", `${src.url}/times.rss`, "staff");
});
afterAll(async () => {
  await server?.stop();
  await src?.close();
});

const place = (slug: string) => findPlaceBySlug(server.ctx.db, slug)!;
const shown = (slug: string, date: string) =>
  server.ctx.db.prepare("SELECT item_key FROM town_headlines_shown WHERE place_geoid = ? AND date = ? ORDER BY item_key").pluck().all(geoidOf(server.ctx.db, slug), date) as string[];
const feedsOf = async (slug: string) =>
  TownFeedList.parse(await (await server.get(`/admin/towns/${slug}/feeds`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()).feeds;

describe("a week of mornings with public sources", () => {
  it("morning 1: gives the town its alert, air quality, the week's events and the 5 newest headlines, and records the headlines shown", async () => {
    const s = await runMorning(server.ctx, { now: day(1) });
    expect([s.composed, s.failed]).toEqual([2, 0]);
    // Adding the feeds fetched them minutes ago: the morning does not fetch them again.
    expect(s.feeds).toMatchObject({ sources: 3, skipped: 3, fetched: 0, failed: 0 });

    const ely = await townSources(server.ctx, place("ely-nevada"), "2026-11-24", { now: day(1) });
    expect(ely.alerts.map((a) => [a.event, a.ends, a.instruction])).toEqual([["Winter Storm Warning", "2026-11-24T22:00:00-08:00", "Travel could be very difficult."]]);
    expect(ely.airQuality).toEqual({ usAqi: 112, dominant: "pm2_5", asOf: "2026-11-24T15:00:00Z" });
    expect(ely.events.map((e) => [e.startsAt, e.title, e.source])).toEqual([
      ["2026-11-24T10:30", "Story Time for Little Ones", "White Pine County Library"],
      ["2026-11-25T18:30", "Author Talk: Great Basin Nights", "White Pine County Library"],
      ["2026-11-28", "Friends of the Library Book Sale", "White Pine County Library"],
      ["2026-11-29T10:00", "Sunday Market", "White Pine County Library"],
    ]);
    // Newest first across both feeds, each with its outlet; a re-read of the same date shows the same five.
    expect(ely.headlines.map((h) => [h.title, h.outlet])).toEqual([
      ["Snow plowing schedule", "City of Ely News"],
      ["High school wins state title", "The Ely Times"],
      ["Council approves water rates", "The Ely Times"],
      ["New clinic opens on Aultman Street", "The Ely Times"],
      ["Mine expansion hearing set", "The Ely Times"],
    ]);
    expect(shown("ely-nevada", "2026-11-24")).toEqual(ely.headlines.map((h) => h.key).sort());
    // Reno has the shared paper only, and no calendar.
    const reno = await townSources(server.ctx, place("reno-nevada"), "2026-11-24", { now: day(1) });
    expect([reno.events.length, reno.headlines.length]).toEqual([0, 4]);
  });

  it("morning 2: one fetch per address for both towns, a 304 keeps the calendar, a feed turned invalid keeps its items, no headline repeats", async () => {
    src.setFeed("/times.rss", { body: times([{ title: "Road closed for repairs", link: "https://times.example.org/road", published: "2026-11-25T13:00:00Z" }]), contentType: RSS_TYPE, etag: '"times-2"' });
    src.setMode("/city.atom", "invalid");
    const before = src.requests.length;
    const s = await runMorning(server.ctx, { now: day(2) });
    expect([s.composed, s.failed]).toEqual([2, 0]);
    expect(s.feeds).toMatchObject({ sources: 3, fetched: 1, notModified: 1, failed: 1, skipped: 0 });
    expect(formatSummary(s)).toContain("; feeds: 3 addresses, 1 fetched, 1 unchanged, 1 failed, 0 fetched earlier; ");
    const fetched = src.requests.slice(before);
    expect(fetched.filter((r) => r.path === "/times.rss")).toHaveLength(1); // shared by Ely and Reno
    expect(fetched.find((r) => r.path === "/times.rss")!.headers["if-none-match"]).toBe('"times-1"');
    expect(fetched.find((r) => r.path === "/library.ics")!.headers["if-none-match"]).toBe('"cal-1"');
    expect(fetched.find((r) => r.path === "/city.atom")!.headers["if-modified-since"]).toBe("Tue, 24 Nov 2026 12:00:00 GMT");
    expect(String(fetched.find((r) => r.path === "/times.rss")!.headers["user-agent"])).toMatch(/^citydaily \(http:\/\/127\.0\.0\.1:\d+, news@\[127\.0\.0\.1\]\)$/);

    const ely = await townSources(server.ctx, place("ely-nevada"), "2026-11-25", { now: day(2) });
    expect(ely.alerts).toEqual([]); // the warning expired overnight
    // The calendar (304) still gives the week, from the 25th.
    expect(ely.events.map((e) => e.startsAt)).toEqual(["2026-11-25T18:30", "2026-11-28", "2026-11-29T10:00"]);
    // Yesterday's five are not repeated: the new item, then the older ones not yet shown (the Atom feed's, kept from yesterday).
    expect(ely.headlines.map((h) => h.title)).toEqual(["Road closed for repairs", "Holiday office hours", "Water main flushing"]);
    const yesterday = shown("ely-nevada", "2026-11-24");
    expect(shown("ely-nevada", "2026-11-25").filter((k) => yesterday.includes(k))).toEqual([]);
    expect(shown("ely-nevada", "2026-11-25")).toHaveLength(3);

    const atom = (await feedsOf("ely-nevada")).find((f) => f.kind === "atom")!;
    expect(atom).toMatchObject({ status: "ok", consecutiveFailures: 1, itemCount: 3 });
    expect(atom.lastError).toMatch(/not an RSS or Atom feed/);
  });

  it("mornings 3 and 4: the invalid feed's items stop after a day, and it is marked failing after 3 mornings", async () => {
    await runMorning(server.ctx, { now: day(3) });
    const ely = await townSources(server.ctx, place("ely-nevada"), "2026-11-26", { now: day(3) });
    expect(ely.headlines.map((h) => h.outlet)).not.toContain("City of Ely News"); // last good 48 h ago
    expect((await feedsOf("ely-nevada")).find((f) => f.kind === "atom")).toMatchObject({ status: "ok", consecutiveFailures: 2 });
    const s = await runMorning(server.ctx, { now: day(4) });
    expect(s.failed).toBe(0);
    const feeds = await feedsOf("ely-nevada");
    expect(feeds.find((f) => f.kind === "atom")).toMatchObject({ status: "failing", consecutiveFailures: 3 });
    expect(feeds.filter((f) => f.kind !== "atom").map((f) => f.status)).toEqual(["ok", "ok"]);
    // A good fetch forgives it.
    src.setMode("/city.atom", "ok");
    await runMorning(server.ctx, { now: day(5) });
    expect((await feedsOf("ely-nevada")).find((f) => f.kind === "atom")).toMatchObject({ status: "ok", consecutiveFailures: 0, lastError: null });
    // The calendar answered 304 every morning, yet its recurrences moved on with the days: the
    // market of Dec 13 lies past the window of the fetch that added it (Nov 24 + 16 days).
    const items = server.ctx.db.prepare("SELECT items_json FROM feed_sources WHERE url = ?").pluck().get(`${src.url}/library.ics`) as string;
    expect(items).toContain("market@wpcl.example.org|2026-12-13T18:00:00Z");
  });

  it("completes the morning with every source down, within the sources' time limits, keeping yesterday's feed items", async () => {
    src.setMode("/alerts/active", "error");
    src.setMode("/v1/air-quality", "slow");
    for (const path of ["/library.ics", "/times.rss", "/city.atom"]) src.setMode(path, "slow");
    const started = performance.now();
    const s = await runMorning(server.ctx, { now: day(6) });
    const ms = performance.now() - started;
    expect([s.composed, s.failed]).toEqual([2, 0]);
    expect(s.feeds).toMatchObject({ sources: 3, failed: 3 });
    // Feeds (FEED_MS) and air quality (600 ms) run alongside each other: well under their sum per town.
    expect(ms).toBeLessThan(5000);
    const archive = await server.get("/api/archive/ely-nevada/2026-11-29");
    expect(archive.status).toBe(200);

    const ely = await townSources(server.ctx, place("ely-nevada"), "2026-11-29", { now: day(6) });
    expect(ely.alerts).toEqual([]);
    expect(ely.airQuality).toBeNull();
    // The calendar's last good items (yesterday's) still give the week.
    expect(ely.events.map((e) => [e.startsAt, e.title])).toEqual([["2026-11-29T10:00", "Sunday Market"]]);
  });
});

describe("the morning refresh", () => {
  it("keeps to the per-host limit while fetching different hosts at once, and a stopped run counts no failure", async () => {
    const other = await startTownSourcesServer();
    try {
      const geoids = (server.ctx.db.prepare("SELECT geoid FROM places WHERE state_name = 'Utah' ORDER BY population DESC LIMIT 6").pluck().all() as string[]);
      const yesterday = new Date(day(6).getTime() - 86_400_000).toISOString();
      geoids.forEach((geoid, i) => {
        for (const [host, name] of [[src, "a"], [other, "b"]] as const) {
          const path = `/limit/${name}${i}.rss`;
          host.setFeed(path, { body: rssFeed(`Feed ${name}${i}`, [{ title: `Story ${name}${i}`, link: `https://x.example.org/${name}${i}` }]), contentType: RSS_TYPE });
          host.setMode(path, "slow", { delayMs: 150 });
          insertTownFeed(server.ctx.db, { placeGeoid: geoid, url: `${host.url}${path}`, kind: "rss", sourceTitle: null, title: `Feed ${name}${i}`, addedBy: "staff", itemsJson: "[]", body: null, etag: null, lastModified: null }, yesterday);
        }
      });
      src.resetInFlight();
      other.resetInFlight();
      const limit = server.ctx.config.sources.feedHostConcurrency; // 4
      const started = performance.now();
      const summary = await startFeedRefresh(server.ctx, geoids, { now: day(6) }).done;
      const ms = performance.now() - started;
      expect(summary).toMatchObject({ sources: 12, fetched: 12, failed: 0 });
      expect([src.maxInFlight, other.maxInFlight]).toEqual([limit, limit]);
      // 6 per host, 4 at a time, 150 ms each: two rounds, the hosts side by side (not four rounds).
      expect(ms).toBeLessThan(4 * 150 + 400);

      // Stopped at once: nothing fetched, nothing counted against the feeds, all tried again next run.
      const stop = new AbortController();
      stop.abort();
      const stopped = await startFeedRefresh(server.ctx, geoids, { now: day(7), signal: stop.signal }).done;
      expect(stopped).toMatchObject({ fetched: 0, failed: 0, skipped: 12 });
      const failures = server.ctx.db.prepare("SELECT SUM(consecutive_failures) FROM feed_sources WHERE url LIKE '%/limit/%'").pluck().get();
      expect(failures).toBe(0);

      // 18 feeds on one host now hang: at 4 at a time, 5 rounds of the feed's time limit; the refresh's
      // budget (4 limits) ends it, and what it did not reach is left for the next run, no failure counted.
      for (let i = 0; i < 6; i++) {
        for (const name of ["a", "b", "c", "d"]) {
          const path = `/limit/${name}${i}.rss`;
          src.setFeed(path, { body: rssFeed("Hangs", []), contentType: RSS_TYPE });
          src.setMode(path, "slow");
          if (name === "c" || name === "d") insertTownFeed(server.ctx.db, { placeGeoid: geoids[i]!, url: `${src.url}${path}`, kind: "rss", sourceTitle: null, title: "Hangs", addedBy: "staff", itemsJson: "[]", body: null, etag: null, lastModified: null }, yesterday);
        }
      }
      server.ctx.db.prepare("UPDATE feed_sources SET checked_at = ? WHERE url LIKE '%/limit/%'").run(yesterday);
      const t0 = performance.now();
      const hung = await startFeedRefresh(server.ctx, geoids, { now: day(7) }).done;
      expect(performance.now() - t0).toBeLessThan(4 * FEED_MS + 800);
      expect(hung.sources).toBe(24);
      expect(hung.fetched).toBe(6); // the other host's six, unhindered
      expect(hung.failed + hung.skipped).toBe(18);
      expect(hung.skipped).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});

describe("the headlines a town was shown", () => {
  it("are forgotten after a month when they can never be offered again, and remembered while they can", async () => {
    const db = server.ctx.db;
    const ely = geoidOf(db, "ely-nevada");
    const rows = () => new Map((db.prepare("SELECT item_key, published_at FROM town_headlines_shown WHERE place_geoid = ?").all(ely) as Array<{ item_key: string; published_at: string | null }>)
      .map((r) => [r.item_key, r.published_at]));
    // Morning 1's five headlines were remembered with their own dates; their feeds still carry them.
    const morning1 = shown("ely-nevada", "2026-11-24");
    expect(morning1.length).toBe(5);
    expect(morning1.map((k) => rows().get(k))).toEqual(expect.arrayContaining([expect.stringMatching(/^2026-11-2\dT/)]));
    expect(morning1.every((k) => typeof rows().get(k) === "string")).toBe(true);
    // As if shown two months ago and undated: a feed still lists them, so they could come again.
    db.prepare("UPDATE town_headlines_shown SET date = '2026-10-01', published_at = NULL WHERE place_geoid = ? AND date = '2026-11-24'").run(ely);
    const insert = db.prepare("INSERT INTO town_headlines_shown (place_geoid, item_key, date, published_at) VALUES (?, ?, ?, ?)");
    insert.run(ely, "https://times.example.org/dated-long-ago", "2026-10-01", "2026-09-30T12:00:00.000Z"); // older than any headline may be
    insert.run(ely, "https://times.example.org/undated-gone", "2026-10-01", null); // no feed carries it any more
    insert.run(ely, "https://times.example.org/undated-lately", "2026-11-20", null); // gone, but shown less than a month ago
    insert.run(ely, "https://times.example.org/dated-lately", "2026-11-20", "2026-11-19T12:00:00.000Z");
    await runMorning(server.ctx, { now: day(8) }); // Tuesday, December 1: a month back is November 1
    const left = rows();
    expect(left.has("https://times.example.org/dated-long-ago")).toBe(false);
    expect(left.has("https://times.example.org/undated-gone")).toBe(false);
    expect(left.has("https://times.example.org/undated-lately")).toBe(true);
    expect(left.has("https://times.example.org/dated-lately")).toBe(true);
    for (const key of morning1) expect(left.has(key), key).toBe(true);
  });
});
