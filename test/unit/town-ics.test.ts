import ical, { type VEvent } from "node-ical";
import { describe, expect, it } from "vitest";
import type { CalendarEvent } from "../../src/contract/resources.ts";
import { townIcs } from "../../src/core/calendar/town-ics.ts";
import { vtimezone } from "../../src/core/calendar/vtimezone.ts";

// The town calendar's iCalendar, read back by node-ical (not the library that wrote it): local
// times in the town's zone on both sides of a daylight-saving change, zones without one, UTC stamps.

const event = (id: string, startsAt: string, extra: Partial<CalendarEvent> = {}): CalendarEvent => ({
  id, title: `Event ${id}`, description: "", url: null, startsAt, featured: false, sponsored: false, allDay: startsAt.length === 10, ...extra,
});

function parse(timeZone: string, events: CalendarEvent[], from = "2026-01-01", to = "2026-12-31") {
  const text = townIcs({ baseUrl: "https://citydaily.example", slug: "x-illinois", city: "X", state: "Illinois", timeZone, from, to, events: events.map((e) => ({ event: e, stamp: "2026-06-01T12:00:00.000Z" })) });
  const parsed = Object.values(ical.sync.parseICS(text)).filter((c) => (c as { type?: string }).type === "VEVENT") as Array<VEvent & { start: Date & { tz?: string } }>;
  return { text, byTitle: new Map(parsed.map((e) => [String(e.summary), e])) };
}

describe("townIcs", () => {
  it("Chicago: 7 pm is 00:00 UTC in July (CDT) and 01:00 UTC in December (CST)", () => {
    const { text, byTitle } = parse("America/Chicago", [event("lo_a", "2026-07-04T19:00"), event("lo_b", "2026-12-24T19:00", { endsAt: "2026-12-24T21:30" })]);
    expect(byTitle.get("Event lo_a")!.start.toISOString()).toBe("2026-07-05T00:00:00.000Z");
    expect(byTitle.get("Event lo_b")!.start.toISOString()).toBe("2026-12-25T01:00:00.000Z");
    expect(byTitle.get("Event lo_b")!.end!.toISOString()).toBe("2026-12-25T03:30:00.000Z");
    expect(byTitle.get("Event lo_a")!.start.tz).toBe("America/Chicago");
    expect(text).toContain("DTSTART;TZID=America/Chicago:20260704T190000");
    // DTSTAMP is UTC (RFC 5545 3.8.7.2), whatever the events' zone.
    expect(text.match(/^DTSTAMP:.*$/gm)).toEqual(["DTSTAMP:20260601T120000Z", "DTSTAMP:20260601T120000Z"]);
  });

  it("the same events give the same bytes (the ETag changes only with the calendar)", () => {
    const events = [event("lo_a", "2026-07-04T19:00")];
    expect(parse("America/Chicago", events).text).toBe(parse("America/Chicago", events).text);
  });

  it("Phoenix and Honolulu keep one offset all year; Anchorage changes", () => {
    expect(parse("America/Phoenix", [event("lo_p", "2026-07-04T19:00")]).byTitle.get("Event lo_p")!.start.toISOString()).toBe("2026-07-05T02:00:00.000Z");
    expect(parse("Pacific/Honolulu", [event("lo_h", "2026-07-04T19:00")]).byTitle.get("Event lo_h")!.start.toISOString()).toBe("2026-07-05T05:00:00.000Z");
    expect(parse("America/Anchorage", [event("lo_k", "2026-07-04T19:00")]).byTitle.get("Event lo_k")!.start.toISOString()).toBe("2026-07-05T03:00:00.000Z");
  });

  it("all-day events are dates; a multi-day one ends the day after its last day (DTEND is exclusive)", () => {
    const { text, byTitle } = parse("America/New_York", [event("f:1", "2026-11-27", { endsAt: "2026-11-29" }), event("f:2", "2026-11-28")]);
    expect(text).toContain("DTSTART;VALUE=DATE:20261127\r\nDTEND;VALUE=DATE:20261130");
    expect(text).toMatch(/DTSTART;VALUE=DATE:20261128\r\n(?!DTEND)/);
    expect((byTitle.get("Event f:2") as { datetype?: string }).datetype).toBe("date");
  });
});

describe("vtimezone", () => {
  it("has each transition of the years asked for, DTSTART in the local time before it", () => {
    const text = vtimezone("America/Chicago", 2026, 2026);
    expect(text).toContain("BEGIN:DAYLIGHT\r\nDTSTART:20260308T020000\r\nTZOFFSETFROM:-0600\r\nTZOFFSETTO:-0500\r\nTZNAME:CDT\r\nEND:DAYLIGHT");
    expect(text).toContain("BEGIN:STANDARD\r\nDTSTART:20261101T020000\r\nTZOFFSETFROM:-0500\r\nTZOFFSETTO:-0600\r\nTZNAME:CST\r\nEND:STANDARD");
    expect(text.match(/BEGIN:(STANDARD|DAYLIGHT)/g)).toEqual(["BEGIN:STANDARD", "BEGIN:DAYLIGHT", "BEGIN:STANDARD"]);
  });

  it("a zone without daylight saving has one observance", () => {
    expect(vtimezone("America/Phoenix", 2026, 2027).match(/BEGIN:(STANDARD|DAYLIGHT)/g)).toEqual(["BEGIN:STANDARD"]);
    expect(vtimezone("America/Phoenix", 2026, 2027)).toContain("TZOFFSETTO:-0700");
  });
});
