import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addFeed } from "../../src/services/sources/feeds.ts";
import { drainDueMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { launchChromium } from "../helpers/browser.ts";
import { payOnHostedPage } from "../helpers/commerce.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";
import {
  ATOM_TYPE, atomFeed, CALENDAR_TYPE, libraryCalendar, nwsAlert, RSS_TYPE, rssFeed, startTownSourcesServer, type FeedItemInput, type TownSourcesServer,
} from "../helpers/town-sources-server.ts";

// The weekly email over a real week: seven mornings of Ely, Nevada (Tue Nov 24 to Mon Nov 30) with
// stand-ins for the forecast, NWS, a library calendar and two news feeds, a daily reader, a weekly
// reader whose day is Saturday at 8:00 AM, and a daily reader who switches with the first email's
// footer link. Each weekly reader gets exactly one email, on Saturday after that day's edition, at
// their hour: the week's headlines without repeats, what is coming, the forecast, what is in
// force, the featured listings (Sponsored), links to the daily editions it draws on. A fourth,
// weekly reader hid the headlines (and sun times, which the weekly does not have): their weekly has
// no headlines. At the end the Saturday reader leaves and comes back on Monday: a welcome, no daily.

const ELY = "ely-nevada";
const DAILY = "daily@ely.example.org";
const WEEKLY = "weekly@ely.example.org";
/** A daily reader who follows the first email's "Get this once a week instead". */
const SWITCHER = "switcher@ely.example.org";
/** A Saturday reader at 6:00 who hid the headlines and sun times. */
const HIDER = "hider@ely.example.org";
const DATES = ["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"];
const SATURDAY = "2026-11-28";
/** 07:00 in Ely (Pacific Standard Time) on each date. */
const morningOf = (date: string) => new Date(`${date}T15:00:00.000Z`);

/** Two stories in the paper and one from the city each morning, on top of what was there; one story runs in both. */
function newsOf(n: number): { rss: FeedItemInput[]; atom: FeedItemInput[] } {
  const rss: FeedItemInput[] = [];
  const atom: FeedItemInput[] = [];
  for (let i = 0; i <= n; i++) {
    const at = `${DATES[i] ?? "2026-11-23"}T0${i % 10}:00:00Z`;
    rss.push({ title: `Ely Times story ${i}a`, link: `https://times.example.org/${i}a`, published: at });
    rss.push({ title: `Ely Times story ${i}b`, link: `https://times.example.org/${i}b`, published: at.replace("T0", "T1") });
    // The city's notice of day 3 has the paper's words: the weekly names it once.
    atom.push({ title: i === 3 ? "Ely Times story 3a" : `City notice ${i}`, link: `https://city.example.gov/${i}`, published: at });
  }
  return { rss, atom };
}

let src: TownSourcesServer;
let meteo: OpenMeteoServer;
let sink: SmtpSink;
let server: TestServer;
const summaries: string[] = [];
/** The Saturday weekly's outbox rows as queued, before any was sent. */
let saturdayRows: Array<{ email: string; next_attempt_at: number }> = [];
/** The weekly reader's inbox after the Saturday morning's first send at 7:00 (before their 8:00). */
let weeklyAtSeven = -1;
const switchPage = { get: "", post: "", frequencyAfterGet: "" };

async function listing(p: string, body: Record<string, unknown>): Promise<void> {
  const res = await server.post(p, { slug: ELY, buyerEmail: "seller@example.com", ...body });
  const json = (await res.json()) as { checkoutUrl?: string };
  expect(res.status, JSON.stringify(json)).toBeLessThan(300);
  await payOnHostedPage(json.checkoutUrl!, "$25.00");
}

beforeAll(async () => {
  src = await startTownSourcesServer();
  // The recorded forecast starts on Friday: Saturday's edition has six days of it.
  meteo = await startOpenMeteoServer({ today: "2026-11-27" });
  sink = await new SmtpSink().start();
  src.setFeed("/library.ics", { body: libraryCalendar({ weekStart: "2026-11-17" }), contentType: CALENDAR_TYPE, etag: '"cal-1"' });
  src.setAlerts([]);
  server = await startTestServer({
    NOW: morningOf(DATES[0]!).toISOString(), ADMIN_TOKEN: "weekly-token", MAIL_SENDER: "off", MORNING_SCHEDULE: "off", SMTP_URL: sink.url,
    OPEN_METEO_URL: meteo.url, FEEDS_ALLOW_PRIVATE: "true", NWS_API_URL: src.url, AIR_QUALITY_API_URL: src.url, SOURCES_TIMEOUT_MS: "2000", FEED_TIMEOUT_MS: "2000",
    MAIL_FROM: "citydaily <news@citydaily.example>",
  });
  addSubscriber(server.ctx.db, ELY, DAILY);
  addSubscriber(server.ctx.db, ELY, WEEKLY);
  addSubscriber(server.ctx.db, ELY, SWITCHER);
  addSubscriber(server.ctx.db, ELY, HIDER);
  server.ctx.db.prepare("UPDATE subscribers SET frequency = 'weekly', weekly_day = 6, delivery_minute = 360, hidden_sections = 'sun,headlines' WHERE email = ?").run(HIDER);
  server.ctx.db.prepare("UPDATE subscribers SET frequency = 'weekly', weekly_day = 6, delivery_minute = 480 WHERE email = ?").run(WEEKLY);
  await addFeed(server.ctx, ELY, `${src.url}/library.ics`, "staff");
  const news = newsOf(0);
  src.setFeed("/times.rss", { body: rssFeed("The Ely Times", news.rss), contentType: RSS_TYPE, etag: '"t0"' });
  src.setFeed("/city.atom", { body: atomFeed("City of Ely News", news.atom), contentType: ATOM_TYPE, etag: '"c0"' });
  await addFeed(server.ctx, ELY, `${src.url}/times.rss`, "staff");
  await addFeed(server.ctx, ELY, `${src.url}/city.atom`, "staff");
  // A featured event in the weekly's coming days, and a featured business.
  await listing("/api/listing-checkout", { tier: "featured", title: "Tree Lighting", description: "Carols and cocoa at the courthouse.", url: "https://trees.example.org/", startsAt: "2026-12-01T18:00", venue: "Courthouse Square" });
  await listing("/api/business-checkout", { tier: "featured", title: "Silver State Bakery", description: "Fresh bread every morning.", url: "https://bakery.example.org/", address: "501 Aultman St", category: "Bakery" });

  for (const [n, date] of DATES.entries()) {
    const now = morningOf(date);
    server.ctx.config.now = () => now;
    if (n > 0) {
      const more = newsOf(n);
      src.setFeed("/times.rss", { body: rssFeed("The Ely Times", more.rss), contentType: RSS_TYPE, etag: `"t${n}"` });
      src.setFeed("/city.atom", { body: atomFeed("City of Ely News", more.atom), contentType: ATOM_TYPE, etag: `"c${n}"` });
    }
    // Saturday morning: a wind advisory in force until Sunday evening.
    src.setAlerts(date === SATURDAY ? [nwsAlert({
      event: "Wind Advisory", description: "* WHAT...West winds 25 to 35 mph with gusts to 55 mph.\n\n* WHERE...White Pine County.",
      onset: "2026-11-28T04:00:00-08:00", ends: "2026-11-29T18:00:00-08:00", expires: "2026-11-29T18:00:00-08:00",
    })] : []);
    const s = await runMorning(server.ctx, { now });
    expect([s.composed, s.failed], date).toEqual([1, 0]);
    summaries.push(`${date} ${s.weekliesQueued ?? 0}`);
    if (date === SATURDAY) {
      saturdayRows = server.ctx.db.prepare("SELECT s.email, o.next_attempt_at FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE o.weekly_id IS NOT NULL ORDER BY s.email")
        .all() as typeof saturdayRows;
    }
    await drainDueMail(server.ctx);
    if (date === SATURDAY) {
      weeklyAtSeven = sink.to(WEEKLY).length;
      // 8:00 AM in Ely: the weekly reader's hour.
      const eight = new Date("2026-11-28T16:00:00.000Z");
      server.ctx.config.now = () => eight;
      await drainDueMail(server.ctx);
    }
    if (n === 0) {
      // The switcher follows the footer's link in their first email: a page with one button (the GET changes nothing), then the button.
      const link = /Get this once a week instead: (\S+)/.exec(sink.to(SWITCHER)[0]!.parsed.text!)![1]!;
      switchPage.get = await (await fetch(link)).text();
      switchPage.frequencyAfterGet = server.ctx.db.prepare("SELECT frequency FROM subscribers WHERE email = ?").pluck().get(SWITCHER) as string;
      switchPage.post = await (await fetch(link, { method: "POST" })).text();
    }
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await src?.close();
  await meteo?.close();
});

const weeklies = () => sink.to(WEEKLY).filter((m) => m.parsed.subject?.startsWith("Ely this week"));
const weekly = (): ReceivedMail => weeklies()[0]!;
const html = () => weekly().parsed.html as string;
const text = () => weekly().parsed.text!;
/** The HTML of one section of the weekly (from its h2 to the next). */
const section = (title: string) => sectionOf(weekly(), title);
function sectionOf(mail: ReceivedMail, title: string): string {
  const h = mail.parsed.html as string;
  const at = h.search(new RegExp(`<h2[^>]*>${title}`));
  if (at < 0) return "";
  const next = h.slice(at + 4).search(/<h2[^>]*>/);
  return next < 0 ? h.slice(at) : h.slice(at, at + 4 + next);
}

describe("the weekly email over seven mornings", () => {
  it.runIf(process.env.SCREENSHOT_DIR)("(with SCREENSHOT_DIR: the weekly's parts written there to read)", () => {
    fs.mkdirSync(process.env.SCREENSHOT_DIR!, { recursive: true });
    fs.writeFileSync(path.join(process.env.SCREENSHOT_DIR!, "weekly.txt"), `Subject: ${weekly().parsed.subject}\n\n${text()}`);
    fs.writeFileSync(path.join(process.env.SCREENSHOT_DIR!, "weekly.eml"), weekly().raw);
  });

  it("comes once, on the reader's Saturday, after that day's edition; the daily reader gets seven dailies and no weekly", () => {
    expect(weeklies()).toHaveLength(1);
    expect(summaries).toEqual(DATES.map((d) => `${d} ${d === SATURDAY ? 3 : 0}`));
    expect(weekly().header("Message-ID")).toMatch(/^<weekly-\d+@citydaily\.example>$/);
    expect(weekly().header("Feedback-ID")).toBe(`${ELY}:weekly:citydaily`);
    expect(weekly().header("List-Unsubscribe")).toMatch(/^<https?:\/\/[^>]+\/unsubscribe\/[^>]+>, <mailto:/);
    const dailies = sink.to(DAILY);
    expect(dailies.filter((m) => /^Ely, Nov \d+:/.test(m.parsed.subject ?? ""))).toHaveLength(7);
    expect(dailies.some((m) => m.parsed.subject?.startsWith("Ely this week"))).toBe(false);
    // The weekly is composed once for the town and day.
    const geoid = geoidOf(server.ctx.db, ELY);
    expect(server.ctx.db.prepare("SELECT date FROM weekly_editions WHERE place_geoid = ?").pluck().all(geoid)).toEqual([SATURDAY]);
    // Its day's edition existed before it: the weekly links it.
    expect(html()).toContain(`href="${server.url}/${ELY}/${SATURDAY}"`);
  });

  it("is queued for each reader's hour: 8:00 AM for the weekly reader (not sent at 7:00), at once for a 6:00 reader whose hour had passed", () => {
    expect(saturdayRows).toEqual([
      { email: HIDER, next_attempt_at: morningOf(SATURDAY).getTime() },
      { email: SWITCHER, next_attempt_at: morningOf(SATURDAY).getTime() },
      { email: WEEKLY, next_attempt_at: Date.parse("2026-11-28T16:00:00.000Z") },
    ]);
    expect(weeklyAtSeven).toBe(0);
  });

  it("a daily reader who switched with the footer's link gets one daily, then the weekly", () => {
    expect(switchPage.get).toMatch(/<form method="post"><button type="submit">Send me Ely once a week<\/button><\/form>/);
    expect(switchPage.frequencyAfterGet).toBe("daily");
    expect(switchPage.post).toContain("once a week, on Saturdays");
    const mails = sink.to(SWITCHER);
    expect(mails.filter((m) => /^Ely, Nov \d+:/.test(m.parsed.subject ?? "")).map((m) => m.parsed.subject!.slice(0, 11))).toEqual(["Ely, Nov 24"]);
    const theirs = mails.filter((m) => m.parsed.subject?.startsWith("Ely this week"));
    expect(theirs).toHaveLength(1);
    // The same weekly, composed once: only the reader's own footer differs.
    expect(theirs[0]!.parsed.subject).toBe(weekly().parsed.subject);
    expect(section("The week's headlines")).toBe(sectionOf(theirs[0]!, "The week's headlines"));
  });

  it("says in its subject that it is the week: what is in force, then the weather to come", () => {
    expect(weekly().parsed.subject).toMatch(/^Ely this week: Wind Advisory · ([a-z ]+ (Sunday|Monday|Tuesday|Wednesday|Thursday)|highs -?\d+ to -?\d+°F)$/);
  });

  it("the week's headlines newest first, at most ten, none twice (same link or same words), each with its outlet and day", () => {
    const items = [...section("The week's headlines").matchAll(/<li[^>]*><a href="([^"]+)"[^>]*>([^<]+)<\/a> \(([^,)]+), ([A-Z][a-z]+day)\)<\/li>/g)]
      .map(([, url, title, outlet, day]) => ({ url: url!, title: title!, outlet: outlet!, day: day! }));
    expect(items.length).toBe(10);
    expect(new Set(items.map((i) => i.url)).size).toBe(items.length);
    expect(new Set(items.map((i) => i.title)).size).toBe(items.length);
    // Newest first: the Saturday edition's headlines lead, and the days never go back up (Sat to Wed).
    const order = ["Saturday", "Friday", "Thursday", "Wednesday", "Tuesday"];
    expect(items[0]!.day).toBe("Saturday");
    const days = items.map((i) => order.indexOf(i.day));
    expect(days).toEqual([...days].sort((a, b) => a - b));
    expect(days).not.toContain(-1);
    for (const i of items) expect(["The Ely Times", "City of Ely News"]).toContain(i.outlet);
    // No headline twice in the whole email, and the text part has them as words with their links.
    for (const i of items) expect(html().split(`>${i.title}</a>`)).toHaveLength(2);
    expect(text()).toContain(`${items[0]!.title} <${items[0]!.url}>`);
  });

  it("what is coming: the calendar's next seven days (featured listings Sponsored), the forecast, the warning in force", () => {
    const coming = section("Coming up");
    expect(coming).toMatch(/Friends of the Library Book Sale<\/strong>, Sat, Nov 28, all day/);
    // Story time is weekly on Tuesdays, but the library cancelled Dec 1 (EXDATE).
    expect(coming).not.toContain("Story Time");
    expect(coming).toMatch(/Sponsored: <strong>Tree Lighting<\/strong>, Tue, Dec 1, 6:00 PM at Courthouse Square\./);
    expect(coming).toContain('rel="sponsored"');
    // Nothing past the seven days (Sat Nov 28 to Fri Dec 4).
    expect(coming).not.toMatch(/Dec [5-9]/);
    const forecast = section("The forecast");
    expect(forecast).toMatch(/<th[^>]*>Day<\/th>/);
    expect(forecast).toMatch(/Sat, Nov 28/);
    expect(text()).toMatch(/^Day\s{2,}Conditions\s{2,}High \(°F\)/m);
    const inForce = section("Still in force");
    expect(inForce).toMatch(/<strong>Wind Advisory<\/strong>, until 6:00 PM Sun, Nov 29\./);
    const directory = section("From the directory");
    expect(directory).toContain("Sponsored: <strong>Silver State Bakery</strong> (Bakery, 501 Aultman St).");
  });

  it("links the daily editions it draws on, says how it is made, and has no markdown in its text part", () => {
    const editions = section("This week's editions");
    const days = ["Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
    for (const [n, date] of DATES.slice(0, 5).entries()) expect(editions).toMatch(new RegExp(`<a href="${server.url}/${ELY}/${date}"[^>]*>${days[n]}</a>`));
    // In the order they came, Tuesday to Saturday.
    expect([...editions.matchAll(/>([A-Z][a-z]+day)<\/a>/g)].map((m) => m[1])).toEqual(days);
    expect(editions).not.toContain("2026-11-29");
    expect(html()).toContain("put together automatically from this week's editions");
    expect(text()).not.toMatch(/\*\*|\]\(|^#+ /m);
    expect(text()).toContain("chose to get the Ely, Nevada newsletter from citydaily once a week, on Saturdays.");
    // As in the daily: "Read on the web" first (the town's page, where the editions are), the forward box last.
    expect(text().split("\n")[0]).toBe(`Read this week's editions on the web: ${server.url}/${ELY}`);
    expect(html()).toMatch(/<div class="share"[^>]*>\s*<p[^>]*><strong>Forward to a neighbor\.<\/strong>/);
    expect(Buffer.byteLength(html())).toBeGreaterThan(4_800);
    // (With "Read on the web" and the daily's forward box, as the daily has them.)
    expect(Buffer.byteLength(html())).toBeLessThan(15_000);
  });

  it("every daily edition says how it is made, near its sources: email, web page and markdown twin", async () => {
    const daily = sink.to(DAILY).find((m) => m.parsed.subject?.startsWith("Ely, Nov 28:"))!;
    const line = "put together automatically each morning from the public sources credited below; no one writes it.";
    expect(daily.parsed.html as string).toContain(line);
    expect(daily.parsed.text!.replace(/\s+/g, " ")).toContain(line);
    expect(await (await server.get(`/${ELY}/${SATURDAY}`)).text()).toContain(line);
    const twin = await (await server.get(`/${ELY}/${SATURDAY}.md`)).text();
    expect(twin).toMatch(/\*\*How this edition is made:\*\* put together automatically each morning .*\n\n.*Forecast and air quality: \[Open-Meteo/);
  });

  it("reads on a phone and a desktop: the daily and the weekly at 390 and 600 px never scroll sideways", async () => {
    // With SCREENSHOT_DIR set, each is photographed there (for looking at, not asserted).
    const shots = process.env.SCREENSHOT_DIR;
    if (shots) fs.mkdirSync(shots, { recursive: true });
    const daily = sink.to(DAILY).find((m) => m.parsed.subject?.startsWith("Ely, Nov 28:"))!;
    const browser = await launchChromium();
    try {
      for (const [name, mail] of [["daily", daily], ["weekly", weekly()]] as const) {
        for (const width of [390, 600]) {
          for (const scheme of ["light", "dark"] as const) {
            const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
            await page.setContent(mail.parsed.html as string);
            expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}px`).toBeLessThanOrEqual(width);
            if (shots) await page.screenshot({ path: path.join(shots, `${name}-${width}-${scheme}.png`), fullPage: true });
            await page.close();
          }
        }
      }
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("leaves the week's headlines out for a reader who hid them, and only them; the others' weeklies keep them", () => {
    const theirs = sink.to(HIDER).filter((m) => m.parsed.subject?.startsWith("Ely this week"));
    expect(theirs).toHaveLength(1);
    const mail = theirs[0]!;
    const h = mail.parsed.html as string;
    expect(section("The week's headlines")).toMatch(/Ely Times story/);
    expect(sectionOf(mail, "The week's headlines")).toBe("");
    expect(h).not.toMatch(/Ely Times story|City notice/);
    expect(mail.parsed.text!).not.toMatch(/Ely Times story|City notice|THE WEEK'S HEADLINES/i);
    // The opening no longer counts headlines it does not show.
    expect(html()).toMatch(/Here is your week: 10 headlines from this week's editions, \w+ events? in the coming seven days, and the forecast\./);
    expect(h).toMatch(/Here is your week: \w+ events? in the coming seven days and the forecast\./);
    // The rest is the same weekly, composed once: what is coming, the forecast, what is in force, the subject.
    for (const title of ["Still in force", "Coming up", "The forecast", "From the directory"]) expect(sectionOf(mail, title), title).toBe(section(title));
    // The last section runs on into each reader's own footer.
    const ownFooter = (x: string) => x.slice(0, x.indexOf("Forward to a neighbor"));
    expect(ownFooter(sectionOf(mail, "This week's editions"))).toBe(ownFooter(section("This week's editions")));
    expect(mail.parsed.subject).toBe(weekly().parsed.subject);
  });

  it("a Saturday reader who leaves and comes back on Monday is welcomed to the weekly, promised no edition today, and gets no daily", async () => {
    const unsubscribe = /<(https?:[^>]+)>/.exec(weekly().header("List-Unsubscribe")!)![1]!;
    expect((await fetch(unsubscribe, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "" })).status).toBe(200);
    const before = sink.to(WEEKLY).length;
    // Monday Nov 30, 7:00 in Ely: that day's edition is out.
    const res = await server.post("/api/subscribe", { email: WEEKLY, city: "Ely", state: "Nevada", slug: ELY });
    expect(res.status).toBeLessThan(300);
    await drainDueMail(server.ctx);
    const after = sink.to(WEEKLY).slice(before);
    // Still a weekly reader: welcomed to the week on their day, not to a daily.
    expect(after.map((m) => m.parsed.subject)).toEqual(["Welcome to Ely, Nevada, once a week"]);
    expect(after[0]!.parsed.text!).toContain("Every Saturday morning you will get Ely's week");
    expect(after[0]!.parsed.text!).not.toMatch(/Every morning|Today's edition is on its way/);
    expect(after[0]!.parsed.html).toContain("Ely, Nevada · weekly newsletter");
    const rows = server.ctx.db.prepare("SELECT o.kind, o.weekly_id IS NOT NULL AS weekly FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE s.email = ? ORDER BY o.id").all(WEEKLY);
    expect(rows).toEqual([{ kind: "digest", weekly: 1 }, { kind: "welcome", weekly: 0 }]);
    expect(server.ctx.db.prepare("SELECT status, frequency FROM subscribers WHERE email = ?").get(WEEKLY)).toEqual({ status: "active", frequency: "weekly" });
  });
});
