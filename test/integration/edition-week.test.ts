import { clickUrl } from "../../src/core/edition/click-links.ts";
import { clickKey } from "../../src/services/readers/clicks.ts";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { addFeed } from "../../src/services/sources/feeds.ts";
import { drainDueMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { payOnHostedPage } from "../helpers/commerce.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";
import {
  ATOM_TYPE, atomFeed, CALENDAR_TYPE, libraryCalendar, nwsAlert, RSS_TYPE, rssFeed, startTownSourcesServer, type FeedItemInput, type TownSourcesServer,
} from "../helpers/town-sources-server.ts";

// A week as its reader lives it: seven consecutive mornings of Ely, Nevada over SMTP, with stand-ins for NWS,
// air quality, an iCalendar feed (VTIMEZONE, a weekly RRULE, all-day events) and an RSS and an Atom
// feed, checked in the email's HTML and text parts, the web page, its twin and /api/archive: the
// warning leads only while active, no headline or fact repeats, recurring events appear on each of
// their days, featured events are in the email on their days and free and standard ones on the town
// page, and every paid placement says Sponsored.

const ELY = "ely-nevada";
const READER = "reader@ely.example.org";
const ADMIN = { Authorization: "Bearer week-token" };
const DATES = ["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"];
/** 07:00 in Ely (Pacific Standard Time) on each date. */
const morningOf = (date: string) => new Date(`${date}T15:00:00.000Z`);
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

// The library's calendar (VTIMEZONE; story time weekly on Tuesdays; an all-day book sale on Sat Nov 28; a
// talk given in UTC), plus a knitting circle every Wednesday and Saturday and the city's all-day closure.
const calendar = libraryCalendar({ weekStart: "2026-11-17" }).replace("END:VCALENDAR", [
  "BEGIN:VEVENT", "UID:knit@wpcl.example.org", "DTSTAMP:20261101T120000Z",
  "DTSTART;TZID=America/Los_Angeles:20261118T180000", "DTEND;TZID=America/Los_Angeles:20261118T200000",
  "RRULE:FREQ=WEEKLY;BYDAY=WE,SA", "SUMMARY:Knitting Circle", "LOCATION:White Pine County Library", "END:VEVENT",
  "BEGIN:VEVENT", "UID:closed@wpcl.example.org", "DTSTAMP:20261101T120000Z",
  "DTSTART;VALUE=DATE:20261126", "DTEND;VALUE=DATE:20261128", "SUMMARY:Library closed for Thanksgiving", "END:VEVENT",
  "END:VCALENDAR",
].join("\r\n"));

/** Two new stories in the paper and one from the city each morning, on top of what was there. */
function newsOf(n: number): { rss: FeedItemInput[]; atom: FeedItemInput[] } {
  const rss: FeedItemInput[] = [];
  const atom: FeedItemInput[] = [];
  for (let i = 0; i <= n; i++) {
    const at = `${DATES[i] ?? "2026-11-23"}T0${i % 10}:00:00Z`;
    rss.push({ title: `Ely Times story ${i}a`, link: `https://times.example.org/${i}a`, published: at });
    rss.push({ title: `Ely Times story ${i}b`, link: `https://times.example.org/${i}b`, published: at.replace("T0", "T1") });
    atom.push({ title: `City notice ${i}`, link: `https://city.example.gov/${i}`, published: at });
  }
  return { rss, atom };
}

let src: TownSourcesServer;
let meteo: OpenMeteoServer;
let sink: SmtpSink;
let server: TestServer;
const digests = new Map<string, ReceivedMail>();
/** The town page, its twin and /api/city as readers saw them on the third morning (Thu Nov 26). */
let townOnDay3: { api: string; page: string; twin: string };

async function listing(path: string, body: Record<string, unknown>, price?: string): Promise<string> {
  const res = await server.post(path, { slug: ELY, buyerEmail: "seller@example.com", ...body });
  const json = (await res.json()) as { orderId: string; checkoutUrl?: string };
  expect(res.status, JSON.stringify(json)).toBeLessThan(300);
  if (price) await payOnHostedPage(json.checkoutUrl!, price);
  else expect((await server.post(`/admin/orders/${json.orderId}/approve`, {}, { headers: ADMIN })).status).toBe(200);
  return json.orderId;
}

beforeAll(async () => {
  src = await startTownSourcesServer();
  meteo = await startOpenMeteoServer({ today: DATES[0] });
  sink = await new SmtpSink().start();
  src.setFeed("/library.ics", { body: calendar, contentType: CALENDAR_TYPE, etag: '"cal-1"' });
  src.setAlerts([nwsAlert({
    event: "Winter Storm Warning", severity: "Severe",
    description: "* WHAT...Heavy snow expected. Total snow accumulations of 8 to 14 inches.\n\n* WHERE...White Pine County.\n\n* WHEN...Until 10 PM PST Wednesday.",
    instruction: "If you must travel, keep an extra flashlight, food, and water in your vehicle.",
    onset: "2026-11-24T04:00:00-08:00", ends: "2026-11-25T22:00:00-08:00", expires: "2026-11-25T22:00:00-08:00",
  })]);
  src.setAirQuality({ usAqi: 112, pm2_5: 112, pm10: 30, ozone: 40, time: "2026-11-24T15:00" });
  server = await startTestServer({
    NOW: morningOf(DATES[0]!).toISOString(), ADMIN_TOKEN: "week-token", MAIL_SENDER: "off", SMTP_URL: sink.url,
    OPEN_METEO_URL: meteo.url, FEEDS_ALLOW_PRIVATE: "true", NWS_API_URL: src.url, AIR_QUALITY_API_URL: src.url, SOURCES_TIMEOUT_MS: "2000", FEED_TIMEOUT_MS: "2000",
    MAIL_FROM: "citydaily <news@citydaily.example>",
  });
  addSubscriber(server.ctx.db, ELY, READER);
  // A year ago today, from the archive.
  addEdition(server.ctx.db, ELY, "2025-11-24", "Ely, Nov 24: Clear");
  server.ctx.db.prepare("UPDATE editions SET weather_json = ? WHERE date = '2025-11-24'").run(JSON.stringify({
    today: { high: 47, low: 20, current: 30, code: 0, condition: "Clear sky", emoji: "", precipitationChance: 0, windSpeed: 5 }, daily: [],
  }));
  await addFeed(server.ctx, ELY, `${src.url}/library.ics`, "staff");
  const news = newsOf(0);
  src.setFeed("/times.rss", { body: rssFeed("The Ely Times", news.rss), contentType: RSS_TYPE, etag: '"t0"' });
  src.setFeed("/city.atom", { body: atomFeed("City of Ely News", news.atom), contentType: ATOM_TYPE, etag: '"c0"' });
  await addFeed(server.ctx, ELY, `${src.url}/times.rss`, "staff");
  await addFeed(server.ctx, ELY, `${src.url}/city.atom`, "operator@ely.example.org");
  // Listings: a featured event on Fri Nov 27 (the email, on its day and the days before), a standard
  // and a free one (the town page only), a featured business (its weekly mention).
  await listing("/api/listing-checkout", { tier: "featured", title: "Holiday Lights Parade", description: "Floats and cocoa on Aultman Street.", url: "https://parade.example.org/", startsAt: "2026-11-27T19:00", venue: "Aultman Street" }, "$25.00");
  await listing("/api/listing-checkout", { tier: "standard", title: "Choir Concert", description: "Carols at the church.", url: "https://choir.example.org/", startsAt: "2026-11-26T17:00", venue: "First Methodist Church" }, "$10.00");
  await listing("/api/listing-checkout", { tier: "free", title: "Quilt Show", description: "Local quilts on display.", url: "https://quilts.example.org/", startsAt: "2026-11-29", venue: "Ely Convention Center" });
  await listing("/api/business-checkout", { tier: "featured", title: "Silver State Bakery", description: "Fresh bread every morning.", url: "https://bakery.example.org/", address: "501 Aultman St", category: "Bakery" }, "$25.00");

  for (const [n, date] of DATES.entries()) {
    const now = morningOf(date);
    server.ctx.config.now = () => now;
    if (n > 0) {
      const more = newsOf(n);
      src.setFeed("/times.rss", { body: rssFeed("The Ely Times", more.rss), contentType: RSS_TYPE, etag: `"t${n}"` });
      src.setFeed("/city.atom", { body: atomFeed("City of Ely News", more.atom), contentType: ATOM_TYPE, etag: `"c${n}"` });
    }
    const s = await runMorning(server.ctx, { now });
    expect([s.composed, s.failed], date).toEqual([1, 0]);
    await drainDueMail(server.ctx);
    const mail = sink.to(READER).find((m) => m.parsed.subject?.startsWith(`Ely, ${date === "2026-11-24" ? "Nov 24" : `Nov ${Number(date.slice(8))}`}:`));
    expect(mail, date).toBeDefined();
    digests.set(date, mail!);
    if (n === 2) {
      townOnDay3 = {
        api: await (await server.get(`/api/city/${ELY}`)).text(), page: await (await server.get(`/${ELY}`)).text(), twin: await (await server.get(`/${ELY}.md`)).text(),
      };
    }
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await src?.close();
  await meteo?.close();
});

const html = (date: string) => digests.get(date)!.parsed.html as string;
/** An outbound link of an edition as readers get it: through the counting redirect (src/core/edition/click-links.ts). */
const tracked = (url: string, date: string) => clickUrl(server.url, clickKey(server.ctx), ELY, date, url);
const text = (date: string) => digests.get(date)!.parsed.text!;
const subject = (date: string) => digests.get(date)!.parsed.subject!;
/** The h2 headings of a digest's HTML, in order. */
const headings = (date: string) => [...html(date).matchAll(/<h2[^>]*>([\s\S]*?)<\/h2>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ""));
/** The HTML of one section (from its h2 to the next). */
const section = (date: string, title: string) => {
  const h = html(date);
  const at = h.search(new RegExp(`<h2[^>]*>${title}`));
  if (at < 0) return "";
  const next = h.slice(at + 4).search(/<h2[^>]*>/);
  return next < 0 ? h.slice(at) : h.slice(at, at + 4 + next);
};

describe("seven mornings of Ely, Nevada", () => {
  it("the warning leads the email and its subject only while it is active", () => {
    for (const date of DATES.slice(0, 2)) {
      expect(subject(date)).toMatch(/^Ely, Nov 2[45]: Winter Storm Warning until 10:00 PM/);
      expect(headings(date)[0]).toBe("Winter Storm Warning");
      expect(html(date)).toContain("Until 10:00 PM Wed, Nov 25.</strong> Heavy snow expected.");
      expect(html(date)).toMatch(/What to do:<\/strong> If you must travel/);
      expect(text(date)).toContain("WINTER STORM WARNING");
      expect(text(date)).toContain("Until 10:00 PM Wed, Nov 25.");
    }
    for (const date of DATES.slice(2)) {
      expect(subject(date)).not.toContain("Warning");
      expect(html(date)).not.toContain("Winter Storm Warning");
      expect(text(date)).not.toContain("WINTER STORM");
    }
  });

  it("every email has its forecast, the table as columns in the text part", () => {
    for (const date of DATES) {
      expect(headings(date)).toContain("Weather");
      expect(html(date)).toMatch(/at publication: high -?\d+°F, low -?\d+°F/);
      expect(text(date)).toMatch(/^Day\s{2,}Conditions\s{2,}High \(°F\)/m);
    }
  });

  it("every email: air quality in words with the EPA's advice, reading time, Read on the web once, a share line, no ISO times", () => {
    for (const date of DATES) {
      for (const part of [html(date), text(date)]) {
        expect(part).toContain("Air quality: 112, unhealthy for sensitive groups; mostly fine particles.");
        expect(part).toMatch(/Here is your day, a \d+-minute read\./);
        expect(part.match(/Read on the web/g), date).toHaveLength(1);
        expect(part).toMatch(/Forward to a neighbor/i);
        expect(part).not.toMatch(ISO_TIME);
      }
      expect(text(date)).not.toMatch(/\*\*|\]\(/); // no markdown syntax reaches the reader
    }
  });

  it("a recurring event appears on each of its days, and in the week ahead before them", () => {
    // Knitting Circle: Wednesdays and Saturdays at 6:00 PM.
    for (const date of ["2026-11-25", "2026-11-28"]) {
      expect(html(date)).toMatch(/(Knitting Circle<\/strong>, 6:00 PM to 8:00 PM at White Pine County Library|<h2[^>]*>Today: Knitting Circle<\/h2>)/);
    }
    const calendarOfDay1 = section("2026-11-24", "On the calendar");
    expect(calendarOfDay1).toContain("Knitting Circle</strong>, Wed, Nov 25, 6:00 PM to 8:00 PM at White Pine County Library.");
    expect(calendarOfDay1).toContain("Knitting Circle</strong>, Sat, Nov 28, 6:00 PM to 8:00 PM at White Pine County Library.");
    // All-day events say so, and the source is named; public calendar events are not sponsored.
    expect(calendarOfDay1).toContain("Library closed for Thanksgiving</strong>, Thu, Nov 26 to Fri, Nov 27. From White Pine County Library.");
    expect(calendarOfDay1).toMatch(/Story Time for Little Ones<\/strong>, 10:30 AM to 11:30 AM at White Pine County Library, 950 Campton St\./);
    expect(calendarOfDay1).not.toMatch(/Sponsored: <strong>(Knitting|Story|Library)/);
  });

  it("the featured event is in the email on its day (the lead) and in the week ahead; standard and free ones are not", () => {
    for (const date of ["2026-11-24", "2026-11-25", "2026-11-26"]) {
      expect(section(date, "On the calendar"), date).toMatch(/Sponsored: <strong>Holiday Lights Parade<\/strong>, Fri, Nov 27, 7:00 PM at Aultman Street\./);
    }
    expect(subject("2026-11-27")).toMatch(/^Ely, Nov 27: Holiday Lights Parade at 7:00 PM( · |$)/);
    expect(headings("2026-11-27")[0]).toBe("Today: Holiday Lights Parade");
    expect(html("2026-11-27")).toContain(`<a href="${tracked("https://parade.example.org/", "2026-11-27")}" rel="sponsored"`);
    expect(text("2026-11-27")).toMatch(/Sponsored\. 7:00 PM at Aultman Street\./);
    for (const date of DATES) {
      expect(html(date)).not.toContain("Choir Concert");
      expect(html(date)).not.toContain("Quilt Show");
    }
    expect(html("2026-11-28")).not.toContain("Holiday Lights Parade");
  });

  it("the featured business is mentioned once in the week, Sponsored, with its category and address", () => {
    const mentions = DATES.filter((d) => html(d).includes("Silver State Bakery"));
    expect(mentions).toHaveLength(1);
    expect(html(mentions[0]!)).toContain("Sponsored: <strong>Silver State Bakery</strong> (Bakery, 501 Aultman St).");
    expect(html(mentions[0]!)).toContain(`href="${tracked("https://bakery.example.org/", mentions[0]!)}" rel="sponsored"`);
    expect(text(mentions[0]!)).toContain("Sponsored: Silver State Bakery (Bakery, 501 Aultman St).");
  });

  it("no headline repeats, at most 5 a morning, each linked with its outlet's name", () => {
    const seen = new Map<string, string>();
    for (const date of DATES) {
      const items = [...html(date).matchAll(/<a href="[^"]*\/go\/[^"]*\?to=(https%3A%2F%2F(?:times\.example\.org|city\.example\.gov)%2F[^"]+)"[^>]*>([^<]+)<\/a> \((The Ely Times|City of Ely News)\)/g)]
        .map(([, url, title]) => [, decodeURIComponent(url!), title]);
      expect(items.length, date).toBeGreaterThan(0);
      expect(items.length, date).toBeLessThanOrEqual(5);
      for (const [, url, title] of items) {
        expect(seen.get(url!), `${title} again on ${date}`).toBeUndefined();
        seen.set(url!, date);
      }
    }
    expect(seen.size).toBeGreaterThanOrEqual(14);
  });

  it("no fact repeats, and none says what has not been imported", () => {
    const facts = DATES.map((d) => /<h2[^>]*>Did you know\?<\/h2>\s*<p[^>]*>([\s\S]*?)<\/p>/.exec(html(d))?.[1]).filter(Boolean);
    expect(facts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(facts).size).toBe(facts.length);
    for (const d of DATES) expect(html(d)).not.toMatch(/imported/i);
  });

  it("from the archive: a year ago today, linked", () => {
    expect(section("2026-11-24", "From the archive")).toContain("A year ago today: clear sky, a high of 47°F");
    expect(section("2026-11-24", "From the archive")).toContain(`href="${server.url}/${ELY}/2025-11-24"`);
  });

  it("the web page, its twin and /api/archive carry the same edition", async () => {
    for (const date of [DATES[0]!, DATES[3]!]) {
      const api = (await (await server.get(`/api/archive/${ELY}/${date}`)).json()) as { html: string; subject: string };
      expect(api.subject).toBe(subject(date));
      const page = await (await server.get(`/${ELY}/${date}`)).text();
      const twin = await (await server.get(`/${ELY}/${date}.md`)).text();
      for (const h of headings(date)) {
        expect(api.html).toContain(`<h2>${h}</h2>`);
        expect(page).toContain(`<h2>${h}</h2>`);
        expect(twin).toContain(`## ${h}`);
      }
      expect(page).toContain("Air quality: 112, unhealthy for sensitive groups");
      expect(twin).toContain("Air quality: 112, unhealthy for sensitive groups");
    }
    const parade = await (await server.get(`/${ELY}/2026-11-27.md`)).text();
    expect(parade).toContain('[Details](https://parade.example.org/ "Sponsored")');
    const page = await (await server.get(`/${ELY}/2026-11-27`)).text();
    expect(page).toContain(`<a href="${tracked("https://parade.example.org/", "2026-11-27")}" rel="sponsored">`);
  });

  it("the town page, its twin and /api/city list free and standard listings beside the public calendars, paid ones Sponsored", async () => {
    const city = JSON.parse(townOnDay3.api) as { events: Array<{ title: string; sponsored: boolean; source?: string; startsAt: string }> };
    const byTitle = new Map(city.events.map((e) => [e.title, e]));
    expect(byTitle.get("Quilt Show")).toMatchObject({ sponsored: false });
    expect(byTitle.get("Choir Concert")).toMatchObject({ sponsored: true });
    expect(byTitle.get("Holiday Lights Parade")).toMatchObject({ sponsored: true });
    expect(byTitle.get("Knitting Circle")).toMatchObject({ sponsored: false, source: "White Pine County Library" });
    const page = townOnDay3.page;
    const calendar = /<section aria-labelledby="calendar-heading">([\s\S]*?)<\/section>/.exec(page)![1]!;
    expect(calendar).toContain("Quilt Show");
    expect(calendar).toMatch(/<span class="sponsored">Sponsored<\/span> <strong><a href="https:\/\/choir\.example\.org\/" rel="sponsored">Choir Concert<\/a><\/strong>, <time datetime="2026-11-26T17:00">Thu, Nov 26, 5:00 PM<\/time> at First Methodist Church/);
    expect(calendar).toContain("Knitting Circle");
    expect(calendar).toMatch(/<span class="sponsored">Sponsored<\/span> <strong><a href="https:\/\/parade\.example\.org\/" rel="sponsored">Holiday Lights Parade<\/a>/);
    expect(calendar.replace(/datetime="[^"]*"/g, "")).not.toMatch(ISO_TIME);
    const twin = townOnDay3.twin;
    expect(twin).toContain("- [Quilt Show](https://quilts.example.org/), Sun, Nov 29, all day at Ely Convention Center: Local quilts on display.");
    expect(twin).toContain("- Sponsored: [Choir Concert](https://choir.example.org/), Thu, Nov 26, 5:00 PM at First Methodist Church");
    expect(twin).toContain("(from White Pine County Library)");
    expect(twin).toMatch(/Sponsored: \[Silver State Bakery\]\(https:\/\/bakery\.example\.org\/\) \(Bakery, 501 Aultman St\)/);
  });

  it("reads on a phone and a desktop: the email at 390 and 640 px and the web edition never scroll sideways", async () => {
    // With SCREENSHOT_DIR set, each is photographed there (for looking at, not asserted).
    const shots = process.env.SCREENSHOT_DIR;
    if (shots) fs.mkdirSync(shots, { recursive: true });
    const browser = await launchChromium();
    try {
      for (const date of ["2026-11-24", "2026-11-27"]) {
        for (const width of [390, 640]) {
          const page = await browser.newPage({ viewport: { width, height: 900 } });
          await page.setContent(html(date));
          expect(await page.evaluate(() => document.documentElement.scrollWidth), `email ${date} at ${width}px`).toBeLessThanOrEqual(width);
          if (shots) await page.screenshot({ path: path.join(shots, `email-${date}-${width}.png`), fullPage: true });
          await page.close();
        }
        for (const width of [390, 1280]) {
          const page = await browser.newPage({ viewport: { width, height: 900 } });
          await page.goto(`${server.url}/${ELY}/${date}`);
          expect(await page.evaluate(() => document.documentElement.scrollWidth), `web ${date} at ${width}px`).toBeLessThanOrEqual(width);
          if (shots) await page.screenshot({ path: path.join(shots, `web-${date}-${width}.png`), fullPage: true });
          await page.close();
        }
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});
