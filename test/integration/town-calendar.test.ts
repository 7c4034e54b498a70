import ical, { type CalendarResponse, type VEvent as IcalEvent } from "node-ical";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventsResponse } from "../../src/contract/events.ts";
import { addFeed } from "../../src/services/sources/feeds.ts";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";
import { payOnHostedPage, problemOf } from "../helpers/commerce.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { CALENDAR_TYPE, libraryCalendar, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// Ely, Nevada's public calendar as a reader's calendar app subscribes to it (/{slug}/calendar.ics,
// read back by node-ical, a parser independent of the library that wrote it) and as agents read it
// (/api/events/{slug}): the library's iCalendar feed (a weekly story time with one week cancelled,
// an all-day book sale, an evening talk) and a paid, featured listing, all in Pacific time.

const NOW = "2026-11-24T14:00:00.000Z"; // Tuesday, 6 am in Ely
const SLUG = "ely-nevada";
const TZ = "America/Los_Angeles";
let src: TownSourcesServer;
let sink: SmtpSink;
let server: TestServer;
let listingId: string;

beforeAll(async () => {
  src = await startTownSourcesServer();
  src.setFeed("/library.ics", { body: libraryCalendar({ weekStart: "2026-11-17" }), contentType: CALENDAR_TYPE });
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000", FEEDS_ALLOW_PRIVATE: "true", POSTAL_ADDRESS: "citydaily, 100 Main St, Springfield, IL 62701" });
  addSubscriber(server.ctx.db, SLUG, "reader@example.org");
  addEdition(server.ctx.db, SLUG, "2026-11-24", "Ely: cold and clear");
  await addFeed(server.ctx, SLUG, `${src.url}/library.ics`, "staff");
  const created = await (await server.post("/api/listing-checkout", {
    slug: SLUG, tier: "featured", title: "Harvest Supper at the Elks", description: "Roast turkey, pies and a fiddle band.",
    url: "https://elks.example.org/supper", startsAt: "2026-11-28T19:00", endsAt: "2026-11-28T21:00", venue: "Ely Elks Lodge", buyerEmail: "elks@example.org",
  })).json();
  listingId = created.orderId;
  expect((await payOnHostedPage(created.checkoutUrl, "$25.00")).status).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await src?.close();
  await sink?.stop();
});

type VEvent = IcalEvent & { start: Date & { tz?: string; dateOnly?: boolean } };
const eventsOf = (data: CalendarResponse) => Object.values(data).filter((c): c is VEvent => (c as { type?: string } | undefined)?.type === "VEVENT");

describe("/{slug}/calendar.ics", () => {
  it("is iCalendar with a strong ETag, revalidated with 304", async () => {
    const res = await server.get(`/${SLUG}/calendar.ics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(res.headers.get("cache-control")).toMatch(/^public, max-age=\d+/);
    const etag = res.headers.get("etag")!;
    const text = await res.text();
    expect(text.startsWith("BEGIN:VCALENDAR\r\n")).toBe(true);
    // The same calendar gives the same bytes: a calendar app's revalidation is a 304.
    expect(await (await server.get(`/${SLUG}/calendar.ics`)).text()).toBe(text);
    expect((await server.get(`/${SLUG}/calendar.ics`, { headers: { "If-None-Match": etag } })).status).toBe(304);
    const head = await fetch(`${server.url}/${SLUG}/calendar.ics`, { method: "HEAD" });
    expect([head.status, head.headers.get("content-type"), head.headers.get("etag")]).toEqual([200, "text/calendar; charset=utf-8", etag]);
    expect(await head.text()).toBe("");
    expect((await fetch(`${server.url}/${SLUG}/calendar.ics`, { method: "POST" })).status).toBe(405);
  });

  it("read by node-ical: the recurring story time, the all-day book sale and the sponsored supper, right in Ely's time", async () => {
    const data = await ical.async.fromURL(`${server.url}/${SLUG}/calendar.ics`);
    const zone = Object.values(data).find((c) => (c as { type?: string } | undefined)?.type === "VTIMEZONE") as { tzid?: string } | undefined;
    expect(zone?.tzid).toBe(TZ);
    const events = eventsOf(data);

    // Story time, weekly on Tuesdays at 10:30 Pacific (18:30 UTC in November), the cancelled week left out.
    const story = events.filter((e) => e.summary === "Story Time for Little Ones").sort((a, b) => +a.start - +b.start);
    expect(story.map((e) => e.start.toISOString())).toEqual(["2026-11-24T18:30:00.000Z", "2026-12-08T18:30:00.000Z"]);
    expect(story.map((e) => e.end!.toISOString())).toEqual(["2026-11-24T19:30:00.000Z", "2026-12-08T19:30:00.000Z"]);
    for (const e of story) {
      expect(e.start.tz).toBe(TZ);
      expect(e.location).toBe("White Pine County Library, 950 Campton St");
      expect(String(e.description)).toMatch(/^From White Pine County Library's public calendar\nSongs, rhymes and picture books/);
      expect(e.categories ?? []).not.toContain("Sponsored");
    }
    expect(new Set(story.map((e) => e.uid)).size).toBe(2);

    // The book sale is a whole day, Saturday the 28th, as a date (no time, no zone shift).
    const sale = events.find((e) => e.summary === "Friends of the Library Book Sale")!;
    expect(sale.datetype).toBe("date");
    expect(sale.start.dateOnly).toBe(true);
    expect([sale.start.getFullYear(), sale.start.getMonth() + 1, sale.start.getDate()]).toEqual([2026, 11, 28]);

    // The paid featured listing: 7 to 9 pm Pacific on the 28th, labelled Sponsored.
    const supper = events.find((e) => e.summary === "Harvest Supper at the Elks")!;
    expect(supper.uid).toBe(`${listingId}@127.0.0.1`);
    expect([supper.start.toISOString(), supper.end!.toISOString()]).toEqual(["2026-11-29T03:00:00.000Z", "2026-11-29T05:00:00.000Z"]);
    expect(supper.start.tz).toBe(TZ);
    expect(supper.categories).toEqual(["Sponsored", "Featured"]);
    expect(String(supper.description).split("\n")[0]).toBe("Sponsored (featured listing)");
    expect(supper.location).toBe("Ely Elks Lodge");
    expect((supper.url as unknown as { val?: string })?.val ?? supper.url).toBe("https://elks.example.org/supper");

    // The talk was given in UTC by its feed; it is written in Ely's zone, the same instant.
    const talk = events.find((e) => String(e.summary).startsWith("Author Talk"))!;
    expect(talk.start.toISOString()).toBe("2026-11-26T02:30:00.000Z");
  });

  it("writes local times with TZID and a VTIMEZONE whose rules are Pacific time", async () => {
    const text = await (await server.get(`/${SLUG}/calendar.ics`)).text();
    expect(text).toContain(`DTSTART;TZID=${TZ}:20261128T190000`);
    expect(text).toContain(`DTSTART;TZID=${TZ}:20261124T103000`);
    expect(text).toContain("DTSTART;VALUE=DATE:20261128");
    expect(text).toMatch(/BEGIN:STANDARD\r\nDTSTART:20261101T020000\r\nTZOFFSETFROM:-0700\r\nTZOFFSETTO:-0800\r\nTZNAME:PST\r\nEND:STANDARD/);
    expect(text).toContain("CATEGORIES:Sponsored,Featured");
  });

  it("a place without a newsletter, or a malformed slug, is 404", async () => {
    for (const path of ["/nampa-idaho/calendar.ics", "/Not%20a%20slug/calendar.ics"]) {
      const res = await server.get(path);
      expect(res.status).toBe(404);
      expect(await res.text()).toMatch(/No calendar here/);
    }
  });

  it("a town leased before its first edition has its calendar: what was sold there can be found", async () => {
    const lease = await (await server.post("/api/operator-actions", { action: "guest-checkout", city: "Twin Falls", state: "Idaho", email: "op@example.com" })).json();
    expect((await server.get("/twin-falls-idaho/calendar.ics")).status).toBe(404);
    await payOnHostedPage(lease.checkoutUrl, "$10.00");
    const checkout = await (await server.post("/api/listing-checkout", {
      slug: "twin-falls-idaho", tier: "standard", title: "Canyon Rim Cleanup", description: "Gloves and bags provided.",
      url: "https://cleanup.example/", startsAt: "2026-12-05T09:00", venue: "Shoshone Falls Park", buyerEmail: "buyer@example.com",
    })).json();
    await payOnHostedPage(checkout.checkoutUrl, "$10.00");
    const res = await server.get("/twin-falls-idaho/calendar.ics");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("SUMMARY:Canyon Rim Cleanup");
    const events = (await (await server.get("/api/events/twin-falls-idaho?from=2026-12-05&to=2026-12-05")).json()) as EventsResponse;
    expect(events.events.map((e) => e.title)).toEqual(["Canyon Rim Cleanup"]);
  });

  it("the town page links it with webcal:", async () => {
    const html = await (await server.get(`/${SLUG}`)).text();
    const webcal = `${server.url.replace(/^http:/, "webcal:")}/${SLUG}/calendar.ics`;
    expect(html).toContain(`href="${webcal}"`);
    expect(html).toContain(`href="/${SLUG}/calendar.ics"`);
  });

  it("every email's footer links it with webcal:, in the text and the HTML part", async () => {
    const res = await server.post("/api/subscribe", { email: "new-reader@example.org", city: "Ely", state: "Nevada", slug: SLUG });
    expect(res.status).toBe(200);
    await sendPendingMail(server.ctx);
    const mail = sink.messages.find((m) => m.to.includes("new-reader@example.org"))!;
    const webcal = `${server.url.replace(/^http:/, "webcal:")}/${SLUG}/calendar.ics`;
    expect(mail.parsed.text).toContain(`Add the Ely calendar to your calendar app: ${webcal}`);
    expect(mail.parsed.html).toContain(`href="${webcal}"`);
  });
});

describe("/api/events/{slug}", () => {
  it("next Saturday in Ely: one call with from = to = that date, the town's zone and today in the answer", async () => {
    const res = await server.get(`/api/events/${SLUG}?from=2026-11-28&to=2026-11-28`);
    expect(res.status).toBe(200);
    const body = EventsResponse.parse(await res.json());
    expect(body).toMatchObject({ slug: SLUG, city: "Ely", state: "Nevada", timeZone: TZ, today: "2026-11-24", from: "2026-11-28", to: "2026-11-28", calendarUrl: `${server.url}/${SLUG}/calendar.ics` });
    expect(body.events.map((e) => [e.title, e.startsAt, e.endsAt ?? null, e.allDay, e.sponsored])).toEqual([
      ["Harvest Supper at the Elks", "2026-11-28T19:00", "2026-11-28T21:00", false, true],
      ["Friends of the Library Book Sale", "2026-11-28", null, true, false],
    ]);
    expect(body.events[1]!.source).toBe("White Pine County Library");
  });

  it("defaults to the town's today and the 7 days after; recurring events one entry per occurrence", async () => {
    const body = EventsResponse.parse(await (await server.get(`/api/events/${SLUG}`)).json());
    expect([body.from, body.to]).toEqual(["2026-11-24", "2026-12-01"]);
    expect(body.events.filter((e) => e.title === "Story Time for Little Ones").map((e) => e.startsAt)).toEqual(["2026-11-24T10:30"]);
    expect(body.events.map((e) => e.startsAt.slice(0, 10))).toEqual([...body.events.map((e) => e.startsAt.slice(0, 10))].sort());
  });

  it("a bad range is 400 validation_error naming the field; a place without a newsletter is 404", async () => {
    const backwards = await problemOf(await server.get(`/api/events/${SLUG}?from=2026-11-28&to=2026-11-27`));
    expect(backwards.code).toBe("validation_error");
    expect(backwards.issues).toEqual([{ path: "to", message: "must not be before `from`" }]);
    const long = await problemOf(await server.get(`/api/events/${SLUG}?from=2026-11-01&to=2027-01-15`));
    expect(long.detail).toMatch(/76 days; at most 62/);
    expect((await problemOf(await server.get(`/api/events/${SLUG}?from=2026-02-30`))).issues?.[0]?.path).toBe("from");
    expect((await problemOf(await server.get("/api/events/nampa-idaho"))).code).toBe("city_not_found");
    expect((await server.get(`/api/v1/events/${SLUG}?from=2026-11-28&to=2026-11-28`)).status).toBe(200);
  });
});
