import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainDueMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { launchChromium } from "../helpers/browser.ts";
import { startHazardsServer, type HazardsServer } from "../helpers/hazards-server.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink, type ReceivedMail } from "../helpers/smtp-sink.ts";

// What public data alone gives a town nobody runs: a week of mornings of a small coastal town with no operator and no feeds,
// read as its reader would: Bar Harbor, Maine (2,300 people), in the first week of December. Public
// data only: the forecast (a late-autumn UV index of 1-2: nothing to say), USGS's feed (quakes all
// week, one felt in town on Wednesday), OpenFEMA (declarations elsewhere only) and the tides. Is there
// something true and local every day? The tides; and the quake, once. With SCREENSHOT_DIR set, each
// morning's email (text part and HTML at 390 px) and web edition (390 px) are written there.

const TOWN = "bar-harbor-maine";
const READER = "reader@barharbor.example.org";
const DATES = ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04", "2026-12-05", "2026-12-06"];
/** 07:00 in Bar Harbor (Eastern Standard Time). */
const morningOf = (date: string) => new Date(`${date}T12:00:00.000Z`);
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

let hz: HazardsServer;
let meteo: OpenMeteoServer;
let sink: SmtpSink;
let server: TestServer;
const mail = new Map<string, ReceivedMail>();

beforeAll(async () => {
  hz = await startHazardsServer();
  meteo = await startOpenMeteoServer({
    fixture: "forecast-denver", today: DATES[0],
    transform: (b) => ({ ...b, daily_units: { ...(b.daily_units as object), uv_index_max: "" }, daily: { ...b.daily, uv_index_max: [1.6, 1.9, 1.2, 2.1, 1.4, 0.9, 1.8] } }),
  });
  sink = await new SmtpSink().start();
  // Declarations in other states all week: none for Hancock County.
  hz.setDeclarations([
    { disasterNumber: 4902, state: "WA", declarationType: "DR", declarationDate: "2026-11-27T00:00:00.000Z", incidentType: "Flood", declarationTitle: "SEVERE STORMS AND FLOODING", fipsStateCode: "53", fipsCountyCode: "073", designatedArea: "Whatcom (County)" },
    { disasterNumber: 5601, state: "CA", declarationType: "FM", declarationDate: "2026-12-02T00:00:00.000Z", incidentType: "Fire", declarationTitle: "RIDGE FIRE", fipsStateCode: "06", fipsCountyCode: "037", designatedArea: "Los Angeles (County)" },
  ]);
  server = await startTestServer({
    NOW: morningOf(DATES[0]!).toISOString(), MAIL_SENDER: "off", SMTP_URL: sink.url, MAIL_FROM: "citydaily <news@citydaily.example>",
    OPEN_METEO_URL: meteo.url, USGS_EARTHQUAKES_URL: hz.url, OPENFEMA_API_URL: `${hz.url}/api/open`, HAZARDS_BUDGET_MS: "30000",
  });
  addSubscriber(server.ctx.db, TOWN, READER);
  for (const [n, date] of DATES.entries()) {
    const now = morningOf(date);
    server.ctx.config.now = () => now;
    meteo.configure({ today: date });
    const t = now.getTime();
    hz.setQuakes([
      // Every day: quakes far away (Alaska, California), never told in Maine.
      { id: `ak02600${n}1`, mag: 3.4, place: "41 km NW of Talkeetna, Alaska", time: t - 5 * 3_600_000, latitude: 62.6, longitude: -150.7 },
      { id: `ci4090${n}2`, mag: 2.8, place: "9 km SW of Ocotillo Wells, CA", time: t - 9 * 3_600_000, latitude: 33.1, longitude: -116.2 },
      // Wednesday morning: a small quake near Ellsworth, 24 km away, felt and reported by 14 people.
      ...(date === "2026-12-02" ? [{ id: "us7000abcd", mag: 2.7, place: "6 km ESE of Ellsworth, Maine", time: Date.parse("2026-12-02T08:12:00Z"), latitude: 44.53, longitude: -68.35, felt: 14 }] : []),
    ]);
    const s = await runMorning(server.ctx, { now });
    expect([s.composed, s.failed, s.withoutWeather], date).toEqual([1, 0, 0]);
    await drainDueMail(server.ctx);
    const got = sink.to(READER).find((m) => m.parsed.subject?.startsWith(`Bar Harbor, ${new Date(`${date}T12:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" })}:`));
    expect(got, date).toBeDefined();
    mail.set(date, got!);
  }
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await meteo?.close();
  await hz?.close();
});

const text = (date: string) => mail.get(date)!.parsed.text!;
const html = (date: string) => mail.get(date)!.parsed.html as string;

describe("a week of Bar Harbor, Maine, from public data alone", () => {
  it("every morning has the day's tides at Bar Harbor's NOAA station, a different set each day, in the town's clock", () => {
    const lines = DATES.map((d) => /((?:High|Low) tide .*?) Predicted for the NOAA tide station at Bar Harbor, 1 mi away;/.exec(text(d).replace(/\s+/g, " "))?.[1]);
    expect(lines.every(Boolean), lines.join("\n")).toBe(true);
    expect(new Set(lines).size).toBe(7);
    for (const l of lines) expect(l).toMatch(/^(High|Low) tide \d{1,2}:\d\d\s[AP]M \(−?\d+\.\d\sft\)(, (high|low) \d{1,2}:\d\d\s[AP]M \(−?\d+\.\d\sft\)){2,3}\.$/);
    // A tide range of Bar Harbor's order (10-14 ft between a day's high and low).
    const heights = lines[0]!.match(/−?\d+\.\d(?=\sft)/g)!.map((h) => Number(h.replace("−", "-")));
    expect(Math.max(...heights) - Math.min(...heights)).toBeGreaterThan(9);
  });

  it("the quake felt near Ellsworth is told on Wednesday only; quakes far away and other states' declarations never", () => {
    expect(text("2026-12-02").replace(/\s+/g, " ")).toContain("Earthquake: A magnitude 2.7 earthquake 6 km ESE of Ellsworth, Maine at 3:12 AM, about 12 mi from town: 14 people told USGS they felt it.");
    // It is that morning's news: it leads the subject, the other mornings lead with the weather.
    expect(mail.get("2026-12-02")!.parsed.subject).toMatch(/^Bar Harbor, Dec 2: Magnitude 2\.7 earthquake felt, 12 mi away · /);
    for (const d of DATES) if (d !== "2026-12-02") expect(mail.get(d)!.parsed.subject, d).not.toMatch(/earthquake/i);
    for (const d of DATES) {
      const t = text(d);
      if (d !== "2026-12-02") expect(t, d).not.toContain("Earthquake");
      expect(t, d).not.toMatch(/Alaska|Ocotillo|Disaster declaration|Whatcom|Los Angeles|UV index/);
    }
  });

  it("no raw values: no ISO times in the text part, the block's heading says what is in it", () => {
    for (const d of DATES) {
      expect(text(d), d).not.toMatch(ISO_TIME);
      expect(html(d), d).toMatch(d === "2026-12-02" ? /<h2[^>]*>Hazards and tides today<\/h2>/ : /<h2[^>]*>Tides today<\/h2>/);
    }
  });

  it("reads on a phone: the email and the web edition at 390 px never scroll sideways", async () => {
    const shots = process.env.SCREENSHOT_DIR;
    if (shots) fs.mkdirSync(shots, { recursive: true });
    const browser = await launchChromium();
    try {
      for (const date of DATES) {
        if (shots) fs.writeFileSync(path.join(shots, `bar-harbor-${date}.txt`), `Subject: ${mail.get(date)!.parsed.subject}\n\n${text(date)}`);
        const email = await browser.newPage({ viewport: { width: 390, height: 900 } });
        await email.setContent(html(date));
        expect(await email.evaluate(() => document.documentElement.scrollWidth), `email ${date}`).toBeLessThanOrEqual(390);
        if (shots) await email.screenshot({ path: path.join(shots, `bar-harbor-email-${date}-390.png`), fullPage: true });
        await email.close();
        const web = await browser.newPage({ viewport: { width: 390, height: 900 } });
        await web.goto(`${server.url}/${TOWN}/${date}`);
        expect(await web.evaluate(() => document.documentElement.scrollWidth), `web ${date}`).toBeLessThanOrEqual(390);
        if (shots) await web.screenshot({ path: path.join(shots, `bar-harbor-web-${date}-390.png`), fullPage: true });
        await web.close();
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
