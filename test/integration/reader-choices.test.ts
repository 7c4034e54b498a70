import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainDueMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber, geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";
import { startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// Readers choose, end to end: seven mornings of Ely, Nevada over SMTP with the stand-ins of
// edition-week.test.ts (Open-Meteo forecast and air quality, NWS). Readers of one town: one every
// morning (the default), one once a week on Saturday (chosen through the API), one who switches with
// the daily footer's link after the first morning, one who hides sun times and calm air (on the
// manage page's form), and one who asked for 7:30 AM (whose email must not leave before 7:30 in Ely).

const ELY = "ely-nevada";
const DATES = ["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"];
/** 07:00 in Ely (Pacific Standard Time), when the morning runs; 7:30 is 15:30 UTC. */
const at = (date: string, hhmmss: string) => new Date(`${date}T${hhmmss}.000Z`);
const R = { daily: "daily@ely.example.org", weekly: "weekly@ely.example.org", switcher: "switch@ely.example.org", hider: "hider@ely.example.org", late: "late@ely.example.org" };

let src: TownSourcesServer;
let meteo: OpenMeteoServer;
let sink: SmtpSink;
let server: TestServer;
const idOf = (email: string) => server.ctx.db.prepare("SELECT id FROM subscribers WHERE email = ?").pluck().get(email) as number;
const tokenOf = (email: string) => subscriberToken(server.ctx, idOf(email), email);
const prefsOf = (email: string) => server.ctx.db.prepare("SELECT frequency, weekly_day, delivery_minute, hidden_sections FROM subscribers WHERE email = ?").get(email);
const dailies = (email: string) => sink.to(email).filter((m) => /^Ely, Nov \d+:/.test(m.parsed.subject ?? ""));
const form = (body: string) => ({ method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
/** What the late reader had been sent just before 7:30 and just after, each morning. */
const lateSeen: Array<{ date: string; before: number; after: number }> = [];
let switcherPage = "";
let switcherBefore: unknown;
let switcherAfterGet: unknown;
let switcherConfirm = "";

beforeAll(async () => {
  src = await startTownSourcesServer();
  meteo = await startOpenMeteoServer({ today: DATES[0] });
  sink = await new SmtpSink().start();
  src.setAirQuality({ usAqi: 38, pm2_5: 38, time: "2026-11-24T15:00" });
  server = await startTestServer({
    NOW: at(DATES[0]!, "15:00:00").toISOString(), MAIL_SENDER: "off", SMTP_URL: sink.url, OPEN_METEO_URL: meteo.url,
    NWS_API_URL: src.url, AIR_QUALITY_API_URL: src.url, SOURCES_TIMEOUT_MS: "2000", MAIL_FROM: "citydaily <news@citydaily.example>",
  });
  for (const email of Object.values(R)) addSubscriber(server.ctx.db, ELY, email);

  // The weekly reader and the 7:30 reader choose through the API; the hider on the manage page.
  const weekly = await fetch(`${server.url}/api/subscriptions/${tokenOf(R.weekly)}/cities/${ELY}`, {
    method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ frequency: "weekly", weeklyDay: "saturday" }),
  });
  expect(weekly.status, await weekly.clone().text()).toBe(200);
  const late = await fetch(`${server.url}/api/subscriptions/${tokenOf(R.late)}/cities/${ELY}`, {
    method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ deliveryTime: "07:30" }),
  });
  expect(late.status).toBe(200);
  const hide = await fetch(`${server.url}/subscriptions/${tokenOf(R.hider)}`,
    form(`city=${ELY}&frequency=daily&weeklyDay=saturday&deliveryTime=06%3A00&hiddenSections%5B%5D=sun&hiddenSections%5B%5D=air-quality`));
  expect(hide.status).toBe(200);
  expect(await hide.text()).toContain("Saved. Ely, Nevada: every morning at 6:00 AM Pacific Time, without Sunrise and sunset, Air quality on good and moderate days.");

  for (const [n, date] of DATES.entries()) {
    const morning = at(date, "15:00:00");
    server.ctx.config.now = () => morning;
    const s = await runMorning(server.ctx, { now: morning });
    expect([s.composed, s.failed], date).toEqual([1, 0]);
    await drainDueMail(server.ctx);
    const justBefore = at(date, "15:29:59");
    server.ctx.config.now = () => justBefore;
    await drainDueMail(server.ctx);
    const before = dailies(R.late).length;
    const half = at(date, "15:30:00");
    server.ctx.config.now = () => half;
    await drainDueMail(server.ctx);
    lateSeen.push({ date, before, after: dailies(R.late).length });
    if (n === 0) {
      // After the first morning's email, the switcher follows its footer's link.
      const link = /Get this once a week instead: (\S+)/.exec(dailies(R.switcher)[0]!.parsed.text!)![1]!;
      switcherBefore = prefsOf(R.switcher);
      switcherPage = await (await fetch(link)).text();
      switcherAfterGet = prefsOf(R.switcher);
      switcherConfirm = await (await fetch(link, form(""))).text();
    }
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await src?.close();
  await meteo?.close();
});

const html = (m: ReceivedMail) => m.parsed.html as string;

describe("every morning or once a week", () => {
  it("the daily reader gets seven mornings, the weekly reader no daily email", () => {
    expect(dailies(R.daily).map((m) => m.parsed.subject!.slice(0, 12))).toEqual(DATES.map((d) => `Ely, Nov ${Number(d.slice(8))}:`));
    expect(dailies(R.weekly)).toEqual([]);
    expect(prefsOf(R.weekly)).toEqual({ frequency: "weekly", weekly_day: 6, delivery_minute: 360, hidden_sections: "" });
  });

  it("the footer's link: a GET shows one button and changes nothing; the POST switches that town to Saturdays", () => {
    expect(dailies(R.daily)[0]!.parsed.html).toContain(">Get this once a week instead</a>");
    expect(switcherPage).toContain("Get Ely, Nevada once a week?");
    expect(switcherPage).toMatch(/<form method="post"><button type="submit">Send me Ely once a week<\/button><\/form>/);
    expect(switcherAfterGet).toEqual(switcherBefore);
    expect(switcherConfirm).toContain("Done: switch@ely.example.org gets Ely once a week, on Saturdays, instead of every morning.");
    expect(prefsOf(R.switcher)).toMatchObject({ frequency: "weekly", weekly_day: 6 });
    // The first morning's email, then no more daily ones.
    expect(dailies(R.switcher).map((m) => m.parsed.subject!.slice(0, 12))).toEqual(["Ely, Nov 24:"]);
  });
});

describe("what a reader leaves out", () => {
  it("the hidden sections are absent from that reader's emails and present in the others'", () => {
    const mine = dailies(R.hider);
    const theirs = dailies(R.daily);
    expect(mine).toHaveLength(7);
    for (const [i, m] of mine.entries()) {
      expect(html(theirs[i]!)).toMatch(/<h2[^>]*>Sun<\/h2>/);
      expect(html(theirs[i]!)).toContain("Air quality: 38, good.");
      expect(theirs[i]!.parsed.text).toContain("Air quality: 38, good.");
      expect(html(m)).not.toMatch(/<h2[^>]*>Sun<\/h2>/);
      expect(html(m)).not.toContain("Air quality:");
      expect(m.parsed.text).not.toMatch(/^SUN$/m);
      expect(m.parsed.text).not.toContain("Air quality:");
      // The rest of the edition is there: the same subject, the weather, the holidays.
      expect(m.parsed.subject).toBe(theirs[i]!.parsed.subject);
      expect(html(m)).toMatch(/<h2[^>]*>Weather<\/h2>/);
    }
  });
});

describe("the delivery time", () => {
  it("a 7:30 AM reader's email does not leave before 7:30 in Ely, and does at 7:30", () => {
    expect(lateSeen).toEqual(DATES.map((date, i) => ({ date, before: i, after: i + 1 })));
    const sent = server.ctx.db.prepare("SELECT o.sent_at FROM outbox o WHERE o.subscriber_id = ? AND o.kind = 'digest' ORDER BY o.id").pluck().all(idOf(R.late)) as string[];
    expect(sent).toEqual(DATES.map((d) => `${d}T15:30:00.000Z`));
  });

  it("the API answers the reader's towns and choices, and refuses a bad value next to its field", async () => {
    const res = await fetch(`${server.url}/api/subscriptions/${tokenOf(R.late)}`);
    expect(res.status).toBe(200);
    const body = await res.json() as { email: string; cities: Array<{ slug: string; timezone: string; preferences: unknown }>; sections: Array<{ key: string }> };
    expect(body.email).toBe(R.late);
    expect(body.cities).toEqual([expect.objectContaining({ slug: ELY, timezone: "America/Los_Angeles", preferences: { frequency: "daily", weeklyDay: "saturday", deliveryTime: "07:30", hiddenSections: [] } })]);
    expect(body.sections.map((s) => s.key)).toEqual(expect.arrayContaining(["holidays", "did-you-know", "sun", "air-quality"]));
    const bad = await fetch(`${server.url}/api/subscriptions/${tokenOf(R.late)}/cities/${ELY}`, {
      method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ deliveryTime: "04:30", hiddenSections: ["weather"] }),
    });
    expect(bad.status).toBe(400);
    const problem = await bad.json() as { code: string; issues: Array<{ path: string }> };
    expect(problem.code).toBe("validation_error");
    expect(problem.issues.map((i) => i.path).sort()).toEqual(["deliveryTime", "hiddenSections.0"]);
    expect((await fetch(`${server.url}/api/subscriptions/${tokenOf(R.late).slice(0, -1)}x`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/subscriptions/${tokenOf(R.late)}/cities/boise-idaho`, {
      method: "PATCH", headers: { "Content-Type": "application/json" }, body: "{\"frequency\":\"weekly\"}",
    })).status).toBe(404);
    expect(geoidOf(server.ctx.db, ELY)).toBeTruthy();
  });
});
