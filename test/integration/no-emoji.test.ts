import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderEditionHtml } from "../../src/core/edition/render-html.ts";
import { describeWeatherCode } from "../../src/core/weather/wmo.ts";
import { queueEditionDigests } from "../../src/services/mail/digests.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { geoidOf } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// Weather emoji show as empty boxes on some systems: after a morning run, what readers read as text
// (the digest's HTML and plain-text parts, the edition's markdown twin, the city twin, the feeds)
// names each condition in words and carries no emoji. An edition stored before the change (with
// emoji in its markdown and HTML) reads the same way wherever it is shown.

const NOW = "2026-11-22T12:00:00.000Z"; // 07:00 in New York and Boston
const NY = { city: "New York", state: "New York", slug: "new-york-new-york" };
const BOSTON = { city: "Boston", state: "Massachusetts", slug: "boston-massachusetts" };
const EMOJI = /\p{Extended_Pictographic}/u;

let sink: SmtpSink;
let meteo: OpenMeteoServer;
let server: TestServer;
/** The day's condition of today's New York edition, in words. */
let condition: string;

// As the composer wrote an edition before: an emoji before each condition, in the line and the table.
const LEGACY_MARKDOWN = [
  "# Boston Daily: Saturday, November 21, 2026", "", "Good morning, Boston, Massachusetts. Here is your day.", "",
  "## Weather", "", "⛅ **Partly cloudy**, 44°F at publication: high 51°F, low 38°F.", "",
  "| Day | Conditions | High (°F) | Low (°F) | Precipitation (%) |", "|---|---|---:|---:|---:|",
  "| Sat, Nov 21 | ⛅ Partly cloudy | 51 | 38 | 10 |", "| Sun, Nov 22 | 🌧️ Rain | 47 | 40 | 80 |", "| Mon, Nov 23 | ❄️ Heavy snow | 33 | 25 | 90 |", "",
  "---", "", "[Read this edition online](https://citydaily.example/boston-massachusetts/2026-11-21)", "",
].join("\n");

beforeAll(async () => {
  sink = await new SmtpSink().start();
  meteo = await startOpenMeteoServer({ today: "2026-11-22", weatherCode: 2 });
  server = await startTestServer({
    SMTP_URL: sink.url, MAIL_SENDER: "off", MORNING_SCHEDULE: "off", NOW, OPEN_METEO_URL: meteo.url, WEATHER_TIMEOUT_MS: "2000",
    SUBSCRIBE_RATE_LIMIT: "1000", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701",
  });
  for (const [email, city] of [["ann@example.org", NY], ["bob@example.org", BOSTON]] as const) {
    expect((await server.post("/api/subscribe", { email, ...city })).status).toBe(200);
  }
  // Yesterday's Boston edition, stored with emoji, queued to Boston's reader.
  const db = server.ctx.db;
  const legacyId = insertEdition(db, {
    placeGeoid: geoidOf(db, BOSTON.slug), date: "2026-11-21", subject: "Boston, Nov 21: Partly cloudy, high 51°F",
    markdown: LEGACY_MARKDOWN, html: renderEditionHtml(LEGACY_MARKDOWN), publishedAt: "2026-11-21T12:00:00.000Z",
  })!;
  expect(EMOJI.test(db.prepare("SELECT html FROM editions WHERE id = ?").pluck().get(legacyId) as string)).toBe(true);
  queueEditionDigests(server.ctx, { id: legacyId, placeGeoid: geoidOf(db, BOSTON.slug), date: "2026-11-21" });

  const morning = await runMorning(server.ctx);
  expect(morning.digestsQueued).toBe(2);
  await buildSite(server.ctx);
  await sendPendingMail(server.ctx);
  await sink.waitForCount(5); // two welcomes, today's two digests, yesterday's Boston digest
  const today = JSON.parse(db.prepare("SELECT weather_json FROM editions WHERE place_geoid = ? AND date = '2026-11-22'").pluck().get(geoidOf(db, NY.slug)) as string);
  condition = describeWeatherCode(today.daily[0].code).condition;
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await meteo?.close();
});

const digestOf = (email: string, date: string) => sink.to(email).find((m) => m.parsed.subject?.includes(date === "2026-11-22" ? "Nov 22" : "Nov 21"))!;

describe("no emoji where readers read text, the conditions in words", () => {
  it("today's stored edition is written without emoji", () => {
    expect(condition).toBe("Partly cloudy");
    for (const col of ["markdown", "html", "subject"]) {
      const values = server.ctx.db.prepare(`SELECT ${col} FROM editions WHERE date = '2026-11-22'`).pluck().all() as string[];
      expect(values).toHaveLength(2);
      for (const v of values) expect(v, col).not.toMatch(EMOJI);
    }
  });

  it("the digest email: HTML part, text part, subject and preheader", () => {
    const mail = digestOf("ann@example.org", "2026-11-22");
    const html = mail.parsed.html as string;
    const text = mail.parsed.text!;
    for (const part of [html, text, mail.parsed.subject!]) expect(part).not.toMatch(EMOJI);
    expect(html).toMatch(/<strong>Partly cloudy<\/strong>, \d+°F at publication/);
    expect(html).toMatch(/<td style="[^"]*">Partly cloudy<\/td>/);
    // Number columns read right-aligned, as on the web.
    expect(html).toMatch(/<td class="num" style="[^"]*text-align:right[^"]*">\d+<\/td>/);
    expect(text).toMatch(/^Partly cloudy, \d+°F at publication/m);
    expect(text).toMatch(/^(Sun|Mon), Nov \d+\s+Partly cloudy\s+\d+/m);
  });

  it("an edition stored with emoji reaches the reader without them, its words kept", () => {
    const mail = digestOf("bob@example.org", "2026-11-21");
    const html = mail.parsed.html as string;
    const text = mail.parsed.text!;
    for (const part of [html, text]) {
      expect(part).not.toMatch(EMOJI);
      for (const words of ["Partly cloudy", "Rain", "Heavy snow"]) expect(part).toContain(words);
    }
    expect(html).toMatch(/<strong>Partly cloudy<\/strong>, 44°F at publication/);
  });

  it("the markdown twins: the edition's, the city's", async () => {
    for (const path of ["/new-york-new-york/2026-11-22.md", "/new-york-new-york.md", "/boston-massachusetts/2026-11-21.md", "/boston-massachusetts.md"]) {
      const res = await server.get(path);
      expect(res.status, path).toBe(200);
      const body = await res.text();
      expect(body, path).not.toMatch(EMOJI);
      expect(body, path).toContain("**Partly cloudy**");
      expect(body, path).toMatch(/\| Partly cloudy \|/);
    }
  });

  it("the archive API (JSON and markdown) gives an old edition without them, its words kept", async () => {
    const json = (await (await server.get("/api/archive/boston-massachusetts/2026-11-21")).json()) as { html: string; markdown?: string };
    expect(json.html).not.toMatch(EMOJI);
    expect(json.html).toContain("Partly cloudy");
    const md = await (await server.get("/api/archive/boston-massachusetts/2026-11-21.md")).text();
    expect(md).not.toMatch(EMOJI);
    expect(md).toContain("**Partly cloudy**");
  });

  it("the feeds: all cities, each city, and the feed twin", async () => {
    for (const path of ["/feed.xml", "/new-york-new-york/feed.xml", "/boston-massachusetts/feed.xml", "/feed.md"]) {
      const res = await server.get(path);
      expect(res.status, path).toBe(200);
      const body = await res.text();
      expect(body, path).not.toMatch(EMOJI);
      if (path.endsWith(".xml")) expect(body, path).toContain("&lt;strong&gt;Partly cloudy&lt;/strong&gt;");
    }
    // The Boston feed carries yesterday's stored edition too: its conditions in words.
    const boston = await (await server.get("/boston-massachusetts/feed.xml")).text();
    expect(boston).toContain("&lt;td&gt;Heavy snow&lt;/td&gt;");
  });

  it("the web page draws an icon (inline SVG, not emoji) before each condition, old edition or new", async () => {
    for (const path of ["/new-york-new-york/2026-11-22", "/boston-massachusetts/2026-11-21"]) {
      const html = await (await server.get(path)).text();
      expect(html, path).not.toMatch(EMOJI);
      expect(html, path).toMatch(/<p><svg class="wx"[^>]*>[\s\S]*?<\/svg> <strong>Partly cloudy<\/strong>/);
      expect(html, path).toMatch(/<td><svg class="wx"[^>]*>[\s\S]*?<\/svg> Partly cloudy<\/td>/);
    }
  });
});
