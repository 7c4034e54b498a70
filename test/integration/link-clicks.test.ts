import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { EVENT, payOnHostedPage } from "../helpers/commerce.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// Numbers a sponsor can trust, since it paid for them: a featured event's link in a week of Boise's editions goes
// through our signed redirect; people's clicks are counted per day and shown on the order page (and as
// CSV), a mail gateway's burst and link checkers are not, and a tampered redirect goes nowhere.

const PERSON = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
let server: TestServer;
let sink: SmtpSink;
let meteo: OpenMeteoServer;
let orderId: string;
const days = ["2026-11-22", "2026-11-23", "2026-11-24"];
const at = (date: string) => new Date(`${date}T15:00:00Z`); // 8 AM in Boise

beforeAll(async () => {
  sink = await new SmtpSink().start();
  // The forecast's credit is one more link in each edition (a gateway's burst opens them all).
  meteo = await startOpenMeteoServer({ today: days[0] });
  server = await startTestServer({ OPEN_METEO_URL: meteo.url, SMTP_URL: sink.url, MAIL_SENDER: "off", NOW: "2026-11-22T14:00:00Z", SUBSCRIBE_RATE_LIMIT: "1000", TRUST_PROXY_HOPS: "1" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  addSubscriber(server.ctx.db, "boise-idaho", "neighbor@example.org");
  const body = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "featured" })).json();
  orderId = body.orderId;
  await payOnHostedPage(body.checkoutUrl, "$25.00");
  for (const d of days) {
    meteo.configure({ today: d });
    await runMorning(server.ctx, { now: at(d) });
    // The sender sends on the morning's clock: the digests are queued at the run's `now`.
    await sendPendingMail(server.ctx, { now: () => at(d).getTime() });
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
  await meteo?.close();
});

const editionHtml = async (date: string) => ((await (await server.get(`/api/archive/boise-idaho/${date}`)).json()) as { html: string }).html;
const goLinks = (html: string) => [...html.matchAll(/href="([^"]*\/go\/[^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
const follow = (url: string, init: { ua?: string; from?: string; method?: string } = {}) =>
  fetch(url, { redirect: "manual", method: init.method ?? "GET", headers: { "User-Agent": init.ua ?? PERSON, "X-Forwarded-For": init.from ?? "203.0.113.7" } });

describe("counting clicks on editions' links", () => {
  it("the edition's outbound links go through the signed redirect, web and email alike; the markdown keeps them as they are", async () => {
    const html = await editionHtml("2026-11-22");
    const links = goLinks(html);
    const fair = links.find((l) => l.includes(encodeURIComponent(EVENT.url)));
    expect(fair).toMatch(new RegExp(`^${server.url}/go/boise-idaho/2026-11-22/[A-Za-z0-9_-]{16}\\?to=`));
    // Links to our own site are not outbound: they stay as they are.
    expect(links.every((l) => !decodeURIComponent(l.split("?to=")[1]!).startsWith(server.url))).toBe(true);
    const md = await (await server.get("/api/archive/boise-idaho/2026-11-22.md")).text();
    expect(md).toContain(`(${EVENT.url}`);
    expect(md).not.toContain("/go/");
    // The email carries the same links, in both parts, and says what is counted.
    const mail = sink.messages.find((m) => m.to.includes("reader@example.org") && m.parsed.subject?.startsWith("Boise, Nov 22"))!.parsed;
    expect(mail.html).toContain(fair!.replace(/&/g, "&amp;"));
    expect(mail.text).toContain(fair!);
    expect(mail.text!.replace(/\s+/g, " ")).toMatch(/counts how often each is followed, in total; nobody's opens or clicks are tracked/);
  });

  it("people's clicks are counted per day on the order page and in its CSV; scanners, HEAD and a gateway's burst are not", async () => {
    const [d1, d2] = [goLinks(await editionHtml(days[0]!)), goLinks(await editionHtml(days[1]!))];
    const fair1 = d1.find((l) => l.includes(encodeURIComponent(EVENT.url)))!;
    const fair2 = d2.find((l) => l.includes(encodeURIComponent(EVENT.url)))!;
    // Two readers on the first day, one on the next (another day on the clock).
    for (const from of ["198.51.100.1", "198.51.100.2"]) {
      const res = await follow(fair1, { from });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(EVENT.url);
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    server.ctx.config.now = () => new Date("2026-11-23T18:00:00Z");
    expect((await follow(fair2, { from: "198.51.100.3" })).status).toBe(302);
    // Not people: a link checker's HEAD, a scanner's agent, and a gateway opening every link of one message at once.
    expect((await follow(fair1, { method: "HEAD" })).status).toBe(302);
    expect((await follow(fair1, { ua: "Mozilla/5.0 (compatible; Barracuda Sentinel)" })).status).toBe(302);
    expect(d2.length).toBeGreaterThanOrEqual(2);
    for (const link of d2) expect((await follow(link, { from: "192.0.2.50" })).status).toBe(302);

    const n = server.ctx.db.prepare("SELECT day, SUM(clicks) AS clicks FROM link_clicks WHERE url = ? GROUP BY day ORDER BY day").all(EVENT.url);
    expect(n).toEqual([{ day: "2026-11-22", clicks: 2 }, { day: "2026-11-23", clicks: 1 }]);
    // Nothing stored says who clicked: the table holds counts only.
    const columns = (server.ctx.db.prepare("PRAGMA table_info(link_clicks)").all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).toEqual(["place_geoid", "edition_date", "url", "day", "clicks"]);

    const page = await (await server.get(`/orders/${orderId}`)).text();
    expect(page).toContain("How it is doing");
    expect(page).toMatch(/3 editions carried it, delivered in 6 emails; its link was followed 3 times from them\./);
    expect(page).toMatch(/<td>Sun, Nov 22<\/td><td><a href="\/boise-idaho\/2026-11-22">Carried it<\/a><\/td><td class="num">2<\/td><td class="num">2<\/td>/);
    const csv = await (await server.get(`/orders/${orderId}/numbers.csv`)).text();
    expect(csv.split("\r\n")).toEqual(["date,in_edition,emails_delivered,clicks", "2026-11-22,yes,2,2", "2026-11-23,yes,2,1", "2026-11-24,yes,2,0", ""]);
  });

  it("a tampered or cut redirect is refused with a page, never a redirect", async () => {
    const fair = goLinks(await editionHtml(days[0]!)).find((l) => l.includes(encodeURIComponent(EVENT.url)))!;
    const tampered = fair.replace(encodeURIComponent(EVENT.url), encodeURIComponent("https://evil.example/phish"));
    for (const url of [tampered, fair.replace("2026-11-22", "2026-11-23"), fair.split("?")[0]!]) {
      const res = await follow(url);
      expect(res.status).toBe(404);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toContain("This link is not one of citydaily");
    }
  });
});
