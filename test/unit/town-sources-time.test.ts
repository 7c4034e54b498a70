import { describe, expect, it } from "vitest";
import { localWallTime, wallTimeToInstant } from "../../src/lib/time.ts";
import { nwsPoint } from "../../src/integrations/hazards/nws.ts";
import { toLocal } from "../../src/core/calendar/calendar-events.ts";

// The conversions calendar events go through: an instant to the town's wall time and back.

describe("wall time in a town's zone", () => {
  it("gives an instant as the town's clock reads it", () => {
    expect(localWallTime(new Date("2026-11-24T18:30:00Z"), "America/Los_Angeles")).toBe("2026-11-24T10:30");
    expect(localWallTime(new Date("2026-11-25T04:30:00Z"), "America/New_York")).toBe("2026-11-24T23:30");
    expect(localWallTime(new Date("2026-11-24T18:30:00Z"), "Pacific/Honolulu")).toBe("2026-11-24T08:30");
    expect(localWallTime(new Date("2026-11-24T00:15:00Z"), "America/Phoenix")).toBe("2026-11-23T17:15");
  });

  it("finds the instant a zone's clocks read a wall time, across DST changes", () => {
    expect(wallTimeToInstant("2026-11-24T10:30", "America/Los_Angeles").toISOString()).toBe("2026-11-24T18:30:00.000Z");
    expect(wallTimeToInstant("2026-07-01T10:30", "America/Los_Angeles").toISOString()).toBe("2026-07-01T17:30:00.000Z");
    expect(wallTimeToInstant("2026-11-01T00:30:00", "America/Chicago").toISOString()).toBe("2026-11-01T05:30:00.000Z");
    // 01:30 happens twice on Nov 1 (fall back): the earlier instant.
    expect(wallTimeToInstant("2026-11-01T01:30", "America/Chicago").toISOString()).toBe("2026-11-01T06:30:00.000Z");
    // 02:30 never happens on Mar 8 (spring forward): the reading after the change.
    expect(localWallTime(wallTimeToInstant("2026-03-08T02:30", "America/Chicago"), "America/Chicago")).toBe("2026-03-08T03:30");
  });

  it("keeps all-day dates and floating times as they are", () => {
    expect(toLocal("2026-11-28", "America/Denver")).toBe("2026-11-28");
    expect(toLocal("2026-11-28T19:00", "America/Denver")).toBe("2026-11-28T19:00");
    expect(toLocal("2026-11-29T02:00:00Z", "America/Denver")).toBe("2026-11-28T19:00");
  });

  it("rounds the NWS point to the 4 decimals api.weather.gov accepts", () => {
    expect(nwsPoint(39.264928, -114.870868)).toBe("39.2649,-114.8709");
    expect(nwsPoint(40, -105.5)).toBe("40,-105.5");
  });
});
