import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainDueMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { launchChromium } from "../helpers/browser.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// What a weekly reader meets, over real HTTP and SMTP, on a quiet Saturday in Ely, Nevada: no
// forecast (Open-Meteo is down), no news feeds, nothing on the calendar. The weekly says only what it
// has (no zero counts, no forecast it lacks, no credit for one), lists its editions in the order they
// came, has "Read on the web" and the forward box of the daily, and a footer naming the reader's day.
// The daily of that morning and its web page credit no forecast either. Every page and email a weekly
// reader meets (unsubscribe, thanks after subscribing again, welcome, the emailed confirmation and its
// page) says once a week on their day; a daily reader's say every morning.

const ELY = "ely-nevada";
const SATURDAY = "2026-11-28";
/** 07:00 in Ely (Pacific Standard Time). */
const MORNING = new Date(`${SATURDAY}T15:00:00.000Z`);
const WEEKLY = "weekly@ely.example.org";
const DAILY = "daily@ely.example.org";
/** A weekly reader of Ely who also gets Boise every morning. */
const TWO = "two@ely.example.org";
/** A weekly reader who leaves every city and comes back through the emailed confirmation. */
const BACK = "back@ely.example.org";

let sink: SmtpSink;
let server: TestServer;
const idOf = (email: string, slug = ELY) => server.ctx.db.prepare("SELECT s.id FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ? AND p.slug = ?").pluck().get(email, slug) as number;
const tokenOf = (email: string, slug = ELY) => subscriberToken(server.ctx, idOf(email, slug), email);
const form = (body: Record<string, string>) => ({ method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body).toString() });
const weeklyOf = (email: string): ReceivedMail => sink.to(email).find((m) => m.parsed.subject?.startsWith("Ely this week"))!;
const words = (s: string) => s.replace(/\s+/g, " ");
/** A page's own words, without the site's header, footer and scripts. */
const mainOf = (html: string) => (/<main[\s\S]*<\/main>/.exec(html)?.[0] ?? "").replace(/<script[\s\S]*?<\/script>/g, "");

beforeAll(async () => {
  sink = await new SmtpSink().start();
  // Every outside source is a closed local port (test/helpers/server.ts): no forecast, no air quality, no alerts.
  server = await startTestServer({ NOW: MORNING.toISOString(), MAIL_SENDER: "off", SMTP_URL: sink.url, SOURCES_TIMEOUT_MS: "1000", SUBSCRIBE_RATE_LIMIT: "1000", MAIL_FROM: "citydaily <news@citydaily.example>" });
  for (const email of [WEEKLY, DAILY, TWO, BACK]) addSubscriber(server.ctx.db, ELY, email);
  addSubscriber(server.ctx.db, "boise-idaho", TWO);
  server.ctx.db.prepare("UPDATE subscribers SET frequency = 'weekly', weekly_day = 6 WHERE email IN (?, ?, ?) AND place_geoid = (SELECT geoid FROM places WHERE slug = ?)").run(WEEKLY, TWO, BACK, ELY);
  const s = await runMorning(server.ctx, { now: MORNING });
  expect(s.failed).toBe(0);
  await drainDueMail(server.ctx);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

describe("a quiet week's weekly", () => {
  it("says only what is there: no zero counts, no forecast promised or credited, nothing 'this morning'", () => {
    const mail = weeklyOf(WEEKLY);
    expect(mail).toBeDefined();
    // The subject names the week, not "the week's editions".
    expect(mail.parsed.subject).toBe("Ely this week: Nov 28");
    const text = words(mail.parsed.text!);
    const html = mail.parsed.html as string;
    expect(text).toContain("Good morning, Ely, Nevada. A quiet week: no local headlines in this week's editions.");
    for (const part of [text, html]) {
      expect(part).not.toMatch(/\b0 (headlines|events)|the forecast|this morning|Open-Meteo/i);
      expect(part).not.toContain("The week's headlines");
    }
    expect(html).not.toMatch(/<h2[^>]*>The forecast</);
    expect(html).toMatch(/<h2[^>]*>Coming up<\/h2>/);
    // The preheader (the inbox line beside the subject) says the week was quiet, not "This week: Coming up".
    const preheader = /<div class="preheader"[^>]*>([^<]*)<\/div>/.exec(html)?.[1]?.replace(/&#39;/g, "'");
    expect(preheader).toBe("A quiet week in Ely: no local headlines in this week's editions, and nothing on the town calendar for the coming seven days yet.");
  });

  it("has 'Read on the web' and the forward box of the daily, and a footer naming the reader's day", () => {
    const mail = weeklyOf(WEEKLY);
    const html = mail.parsed.html as string;
    expect(mail.parsed.text!.split("\n")[0]).toBe(`Read this week's editions on the web: ${server.url}/${ELY}`);
    expect(html).toMatch(new RegExp(`<a href="${server.url}/${ELY}" class="muted-link"[^>]*>Read this week(&#39;|')s editions on the web</a>`));
    const daily = sink.to(DAILY).find((m) => m.parsed.subject?.startsWith("Ely, Nov 28"))!;
    const box = (h: string) => /<div class="share"[\s\S]*?<\/div>/.exec(h)?.[0]?.replace(/\?ref=[0-9a-f]+/g, "?ref=");
    expect(box(html)).toBeDefined();
    expect(box(html)).toBe(box(daily.parsed.html as string));
    expect(words(mail.parsed.text!)).toContain("chose to get the Ely, Nevada newsletter from citydaily once a week, on Saturdays.");
    expect(mail.parsed.text).not.toMatch(/daily newsletter|every morning you/i);
  });

  it("reads on a phone and a desktop (390 and 600 px) without sideways scrolling", async () => {
    const shots = process.env.SCREENSHOT_DIR;
    if (shots) {
      fs.mkdirSync(shots, { recursive: true });
      fs.writeFileSync(path.join(shots, "weekly-quiet.txt"), `Subject: ${weeklyOf(WEEKLY).parsed.subject}\n\n${weeklyOf(WEEKLY).parsed.text}`);
    }
    const browser = await launchChromium();
    try {
      for (const width of [390, 600]) {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.setContent(weeklyOf(WEEKLY).parsed.html as string);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        if (shots) await page.screenshot({ path: path.join(shots, `weekly-quiet-${width}.png`), fullPage: true });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 30_000);
});

describe("a morning without a forecast credits none", () => {
  it("in the daily email, on the web edition and in its markdown twin", async () => {
    const daily = sink.to(DAILY).find((m) => m.parsed.subject?.startsWith("Ely, Nov 28"))!;
    const page = await (await server.get(`/${ELY}/${SATURDAY}`)).text();
    const twin = await (await server.get(`/${ELY}/${SATURDAY}.md`)).text();
    for (const [name, body] of [["email text", daily.parsed.text!], ["email html", daily.parsed.html as string], ["web page", page], ["twin", twin]] as const) {
      expect(body, name).toContain("The forecast was not available this morning.");
      expect(body, name).toContain("Census figures: U.S. Census Bureau.");
      expect(body, name).not.toMatch(/Forecast( and air quality)?: |Open-Meteo\.com/);
    }
  });
});

describe("every page and email names the reader's own cadence", () => {
  it("the unsubscribe page: once a week on Saturdays for a weekly reader, every morning for a daily one", async () => {
    const weekly = await (await fetch(`${server.url}/unsubscribe/${tokenOf(WEEKLY)}`)).text();
    expect(weekly).toContain("weekly@ely.example.org gets the Ely, Nevada newsletter once a week, on Saturdays.");
    // (The site's own footer, on every page, says what citydaily is: "a free daily newsletter for every U.S. city".)
    expect(mainOf(weekly)).not.toMatch(/\bdaily\b|every morning/);
    const daily = await (await fetch(`${server.url}/unsubscribe/${tokenOf(DAILY)}`)).text();
    expect(daily).toContain("daily@ely.example.org gets the Ely, Nevada newsletter every morning.");
  });

  it("after unsubscribing: the weekly's own words, and 'your other cities' only for a reader who has some", async () => {
    const alone = await (await fetch(`${server.url}/unsubscribe/${tokenOf(WEEKLY)}`, form({}))).text();
    expect(alone).toContain("weekly@ely.example.org will get no more Ely, Nevada weekly emails.");
    expect(alone).not.toContain("Manage your other cities");
    expect(alone).toContain(`<a href="/subscriptions/${tokenOf(WEEKLY)}">Changed your mind? Subscribe to Ely again</a>`);
    const left = await (await fetch(`${server.url}/unsubscribe/${tokenOf(WEEKLY)}`)).text();
    expect(left).toContain("weekly@ely.example.org no longer gets the Ely, Nevada newsletter.");
    const two = await (await fetch(`${server.url}/unsubscribe/${tokenOf(TWO)}`, form({}))).text();
    expect(two).toContain(`<a href="/subscriptions/${tokenOf(TWO)}">Manage your other cities</a>`);
  });

  it("subscribing again through the form: thanks that promise no daily, and a welcome to the weekly whose footer says once a week", async () => {
    const before = sink.to(WEEKLY).length;
    const res = await fetch(`${server.url}/subscribe`, form({ email: WEEKLY, slug: ELY, city: "Ely", state: "Nevada", landing_path: `/${ELY}` }));
    expect(res.status).toBe(200);
    const thanks = await res.text();
    expect(thanks).toContain("<title>Thanks: the Ely, Nevada newsletter is on its way · citydaily</title>");
    expect(thanks).toContain("weekly@ely.example.org will get the Ely, Nevada newsletter every morning, or once a week if the address chose that before.");
    expect(mainOf(thanks)).not.toMatch(/edition each morning|\bdaily\b/);
    await drainDueMail(server.ctx);
    const welcome = sink.to(WEEKLY).slice(before);
    expect(welcome.map((m) => m.parsed.subject)).toEqual(["Welcome to Ely, Nevada, once a week"]);
    const text = words(welcome[0]!.parsed.text!);
    expect(text).toContain("You get this email because weekly@ely.example.org subscribed to the Ely, Nevada newsletter from citydaily, once a week, on Saturdays.");
    expect(words(welcome[0]!.parsed.html as string)).toContain("subscribed to the Ely, Nevada newsletter from citydaily, once a week, on Saturdays.");
    expect(text).not.toMatch(/daily newsletter/);
  });

  it("after leaving every city: the emailed confirmation, its page and its answer say once a week", async () => {
    expect((await fetch(`${server.url}/unsubscribe/${tokenOf(BACK)}`, form({ scope: "all" }))).status).toBe(200);
    const before = sink.to(BACK).length;
    expect((await server.post("/api/subscribe", { email: BACK, slug: ELY, city: "Ely", state: "Nevada" })).status).toBe(200);
    await drainDueMail(server.ctx);
    const confirm = sink.to(BACK).slice(before);
    expect(confirm.map((m) => m.parsed.subject)).toEqual(["Confirm: subscribe to Ely, Nevada once a week, on Saturdays again?"]);
    const text = words(confirm[0]!.parsed.text!);
    expect(text).toContain("Someone asked to subscribe this address to the Ely, Nevada newsletter, once a week, on Saturdays as you had chosen.");
    expect(text).not.toMatch(/\bdaily\b/);
    const link = /Confirm: (\S+)/.exec(confirm[0]!.parsed.text!)![1]!;
    const page = await (await fetch(link)).text();
    expect(page).toContain("<h1>Subscribe to Ely, Nevada once a week, on Saturdays again?</h1>");
    expect(page).toContain("Press the button to get Ely, Nevada once a week, on Saturdays again.");
    expect(mainOf(page)).not.toMatch(/each morning|\bdaily\b/);
    const done = await (await fetch(link, form({}))).text();
    expect(done).toContain("<h1>Subscribed to Ely, Nevada once a week, on Saturdays</h1>");
    await drainDueMail(server.ctx);
    expect(sink.to(BACK).slice(before + 1).map((m) => m.parsed.subject)).toEqual(["Welcome to Ely, Nevada, once a week"]);
  });
});
