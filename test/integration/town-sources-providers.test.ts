import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAirQualityProvider } from "../../src/integrations/weather/air-quality.ts";
import { feedEventsFor } from "../../src/core/calendar/calendar-events.ts";
import { parseCalendar } from "../../src/integrations/feeds/ical.ts";
import { parseSyndication } from "../../src/integrations/feeds/syndication.ts";
import { SourceError } from "../../src/integrations/http-json.ts";
import { createNwsProvider } from "../../src/integrations/hazards/nws.ts";
import { atomFeed, CALENDAR_TYPE, libraryCalendar, nwsAlert, rssFeed, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// Each provider against the local stand-in answering in its real format.

const NOW = new Date("2026-11-24T14:00:00Z"); // 06:00 in Los Angeles, 07:00 in Ely
const ELY = { latitude: 39.2533, longitude: -114.8742 };
const UA = "citydaily (https://citydaily.example, news@citydaily.example)";

let src: TownSourcesServer;
beforeAll(async () => {
  src = await startTownSourcesServer();
});
afterAll(() => src?.close());

const nws = (timeoutMs = 2000) => createNwsProvider({ baseUrl: src.url, userAgent: UA, timeoutMs, now: () => NOW });

describe("NWS active alerts", () => {
  it("asks for the town's point with a User-Agent that names us and a contact, and keeps only live alerts, most severe first", async () => {
    const advisory = nwsAlert({ event: "Wind Advisory", severity: "Moderate", expires: "2026-11-24T20:00:00-08:00" });
    const warning = nwsAlert({
      event: "Winter Storm Warning", severity: "Severe", urgency: "Expected",
      headline: "Winter Storm Warning issued November 24 at 3:12AM PST until November 25 at 10:00PM PST by NWS Elko NV",
      description: "* WHAT...Heavy snow expected. Total snow accumulations of 8 to 14 inches.\n\n* WHERE...White Pine County.",
      instruction: "If you must travel, keep an extra flashlight, food, and water in your vehicle.",
      onset: "2026-11-24T10:00:00-08:00", ends: "2026-11-25T22:00:00-08:00", expires: "2026-11-24T19:00:00-08:00",
    });
    const expired = nwsAlert({ event: "Frost Advisory", severity: "Minor", expires: "2026-11-24T05:00:00-08:00" }); // 13:00Z, before NOW
    const ended = nwsAlert({ event: "Dense Fog Advisory", severity: "Minor", expires: "2026-11-24T20:00:00-08:00", ends: "2026-11-24T05:30:00-08:00" });
    const old = nwsAlert({ event: "Winter Storm Watch", severity: "Severe", expires: "2026-11-24T20:00:00-08:00" });
    const update = nwsAlert({ event: "Winter Storm Warning", severity: "Severe", urgency: "Future", expires: "2026-11-24T20:00:00-08:00", references: [old.properties.id], messageType: "Update" });
    const test = nwsAlert({ event: "Test Message", severity: "Extreme", expires: "2026-11-24T20:00:00-08:00", status: "Test" });
    const cancel = nwsAlert({ event: "Flood Watch", severity: "Severe", expires: "2026-11-24T20:00:00-08:00", messageType: "Cancel" });
    src.setAlerts([advisory, expired, ended, warning, old, update, test, cancel]);

    const before = src.requests.length;
    const alerts = await nws().active(ELY);
    const req = src.requests.slice(before).find((r) => r.path === "/alerts/active")!;
    expect(req.query.get("point")).toBe("39.2533,-114.8742");
    expect(req.headers["user-agent"]).toBe(UA);

    expect(alerts.map((a) => [a.event, a.severity])).toEqual([
      ["Winter Storm Warning", "Severe"], // Expected before Future
      ["Winter Storm Warning", "Severe"],
      ["Wind Advisory", "Moderate"],
    ]);
    expect(alerts[0]).toEqual({
      id: warning.properties.id,
      event: "Winter Storm Warning",
      severity: "Severe",
      urgency: "Expected",
      headline: warning.properties.headline,
      description: warning.properties.description,
      instruction: "If you must travel, keep an extra flashlight, food, and water in your vehicle.",
      onset: "2026-11-24T10:00:00-08:00",
      ends: "2026-11-25T22:00:00-08:00",
      expires: "2026-11-24T19:00:00-08:00",
      senderName: "NWS Elko NV",
      url: "https://forecast.weather.gov/MapClick.php?lat=39.2533&lon=-114.8742",
    });
    // Without `ends`, the alert ends when it expires.
    expect(alerts[2]!.ends).toBe("2026-11-24T20:00:00-08:00");
  });

  it("answers an empty list when nothing is active, and fails with a SourceError when NWS is down or slow", async () => {
    src.setAlerts([]);
    expect(await nws().active(ELY)).toEqual([]);
    src.setMode("/alerts/active", "error");
    await expect(nws().active(ELY)).rejects.toMatchObject({ name: "SourceError", kind: "status" });
    src.setMode("/alerts/active", "invalid");
    await expect(nws().active(ELY)).rejects.toMatchObject({ kind: "invalid" });
    src.setMode("/alerts/active", "slow");
    const started = performance.now();
    await expect(nws(300).active(ELY)).rejects.toMatchObject({ kind: "timeout" });
    expect(performance.now() - started).toBeLessThan(1500);
    src.setMode("/alerts/active", "ok");
  });
});

describe("Open-Meteo air quality", () => {
  const air = (timeoutMs = 2000) => createAirQualityProvider({ baseUrl: src.url, timeoutMs });

  it("reads the U.S. AQI now and names the pollutant with the highest sub-index", async () => {
    src.setAirQuality({ usAqi: 112, pm2_5: 112, pm10: 40, ozone: 61, time: "2026-11-24T14:00" });
    expect(await air().current(ELY)).toEqual({ usAqi: 112, dominant: "pm2_5", asOf: "2026-11-24T14:00:00Z" });
    const req = src.requests.filter((r) => r.path === "/v1/air-quality").at(-1)!;
    expect(req.query.get("latitude")).toBe("39.2533");
    expect(req.query.get("current")).toContain("us_aqi");
    src.setAirQuality({ usAqi: 48, pm2_5: 20, pm10: 10, ozone: 48 });
    expect((await air().current(ELY))?.dominant).toBe("ozone");
  });

  it("answers null where the model has no value, and fails with a SourceError on a bad answer", async () => {
    src.setAirQuality(null);
    expect(await air().current(ELY)).toBeNull();
    src.setMode("/v1/air-quality", "invalid");
    await expect(air().current(ELY)).rejects.toBeInstanceOf(SourceError);
    src.setMode("/v1/air-quality", "ok");
  });
});

describe("iCalendar feeds", () => {
  const window = { from: new Date("2026-11-23T00:00:00Z"), to: new Date("2026-12-10T00:00:00Z") };

  it("expands a weekly RRULE, skips its EXDATE, keeps all-day events as dates and gives times in the town's wall time", async () => {
    src.setFeed("/library.ics", { body: libraryCalendar({ weekStart: "2026-11-17" }), contentType: CALENDAR_TYPE });
    const text = await (await fetch(`${src.url}/library.ics`)).text();
    const cal = parseCalendar(text, window);
    expect(cal.title).toBe("White Pine County Library");

    // A town in Los Angeles time, its 7 days from Tuesday 2026-11-24.
    const la = feedEventsFor(cal.occurrences, { feedId: 7, source: "White Pine County Library", timeZone: "America/Los_Angeles", fromDate: "2026-11-24", days: 7 });
    expect(la.map((e) => [e.startsAt, e.endsAt, e.title])).toEqual([
      ["2026-11-24T10:30", "2026-11-24T11:30", "Story Time for Little Ones"],
      ["2026-11-25T18:30", "2026-11-25T19:30", "Author Talk: Great Basin Nights"], // 02:30Z on the 26th, HTML stripped
      ["2026-11-28", null, "Friends of the Library Book Sale"], // all-day, one day (DTEND exclusive)
    ]);
    expect(la[0]).toMatchObject({
      id: "7:storytime@wpcl.example.org|2026-11-24T18:30:00Z",
      description: "Songs, rhymes and picture books for ages 2-5.",
      venue: "White Pine County Library, 950 Campton St",
      url: "https://library.example.org/storytime",
      allDay: false,
      source: "White Pine County Library",
    });
    expect(la[2]!.allDay).toBe(true);

    // The next week: the EXDATE (Dec 1) is skipped, Dec 8 is there.
    const next = feedEventsFor(cal.occurrences, { feedId: 7, source: "x", timeZone: "America/Los_Angeles", fromDate: "2026-12-01", days: 8 });
    expect(next.filter((e) => e.title.startsWith("Story")).map((e) => e.startsAt)).toEqual(["2026-12-08T10:30"]);

    // The same feed for a town in Mountain time: 10:30 Pacific is 11:30 there; the all-day sale stays a date.
    const ely = feedEventsFor(cal.occurrences, { feedId: 7, source: "x", timeZone: "America/Denver", fromDate: "2026-11-24", days: 7 });
    expect(ely.map((e) => e.startsAt)).toEqual(["2026-11-24T11:30", "2026-11-25T19:30", "2026-11-28"]);
  });

  it("keeps the wall time across a DST change, and reads a TZID without its VTIMEZONE as an IANA zone", () => {
    const cal = parseCalendar(libraryCalendar({ weekStart: "2026-10-27" }), { from: new Date("2026-10-26T00:00:00Z"), to: new Date("2026-11-05T00:00:00Z") });
    const story = feedEventsFor(cal.occurrences, { feedId: 1, source: "x", timeZone: "America/Los_Angeles", fromDate: "2026-10-27", days: 8 }).filter((e) => e.title.startsWith("Story"));
    expect(story.map((e) => e.startsAt)).toEqual(["2026-10-27T10:30", "2026-11-03T10:30"]);

    const bare = libraryCalendar({ weekStart: "2026-11-17" }).replace(/BEGIN:VTIMEZONE[\s\S]*?END:VTIMEZONE\r\n/, "").replaceAll("America/Los_Angeles", "America/Chicago");
    const events = feedEventsFor(parseCalendar(bare, window).occurrences, { feedId: 1, source: "x", timeZone: "America/Chicago", fromDate: "2026-11-24", days: 1 });
    expect(events[0]!.startsAt).toBe("2026-11-24T10:30");
    expect(feedEventsFor(parseCalendar(bare, window).occurrences, { feedId: 1, source: "x", timeZone: "America/New_York", fromDate: "2026-11-24", days: 1 })[0]!.startsAt).toBe("2026-11-24T11:30");
  });

  it("refuses what is not a calendar", () => {
    expect(() => parseCalendar("<html><body>Events</body></html>", window)).toThrow(SourceError);
    expect(() => parseCalendar("BEGIN:VCALENDAR\r\nthis is not\r\n", window)).toThrow(/iCalendar/);
  });
});

describe("RSS and Atom feeds", () => {
  it("turns an RSS 2.0 channel into headlines: plain-text titles, http(s) links only, newest first", () => {
    const rss = rssFeed("The Ely Times", [
      { title: "Council approves <em>new</em> water rates", link: "https://times.example.org/water", published: "2026-11-23T15:00:00Z", summary: "<p>Long article text</p>" },
      { title: "High school wins state title", link: "https://times.example.org/state", id: "times-991", published: "2026-11-24T01:00:00Z" },
      { title: "Click me", link: "javascript:alert(1)", published: "2026-11-24T02:00:00Z" },
      { title: "Tom &amp; Jerry's diner reopens", link: "https://times.example.org/diner" },
    ]);
    const feed = parseSyndication(rss);
    expect(feed.kind).toBe("rss");
    expect(feed.title).toBe("The Ely Times");
    expect(feed.items).toEqual([
      { key: "times-991", title: "High school wins state title", url: "https://times.example.org/state", publishedAt: "2026-11-24T01:00:00.000Z" },
      { key: "https://times.example.org/water", title: "Council approves new water rates", url: "https://times.example.org/water", publishedAt: "2026-11-23T15:00:00.000Z" },
      { key: "https://times.example.org/diner", title: "Tom & Jerry's diner reopens", url: "https://times.example.org/diner", publishedAt: null },
    ]);
  });

  it("turns an Atom feed into headlines, resolving relative links", () => {
    const atom = atomFeed("City of Ely News", [
      { title: "Snow <b>plowing</b> schedule", link: "/news/plowing", id: "tag:ely.example.gov,2026:plowing", published: "2026-11-24T12:00:00Z" },
      { title: "Holiday office hours", link: "https://city.example.gov/news/hours", published: "2026-11-20T12:00:00Z" },
    ]);
    const feed = parseSyndication(atom, "https://city.example.gov/news.atom");
    expect(feed.kind).toBe("atom");
    expect(feed.title).toBe("City of Ely News");
    expect(feed.items.map((i) => [i.key, i.title, i.url])).toEqual([
      ["tag:ely.example.gov,2026:plowing", "Snow plowing schedule", "https://city.example.gov/news/plowing"],
      ["https://city.example.gov/news/hours", "Holiday office hours", "https://city.example.gov/news/hours"],
    ]);
  });

  it("refuses a web page", () => {
    expect(() => parseSyndication("<html><body><h1>News</h1></body></html>")).toThrow(SourceError);
  });
});
