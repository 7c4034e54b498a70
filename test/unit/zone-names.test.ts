import fs from "node:fs";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { PLACES_CSV } from "../../src/config/paths.ts";
import { NAMED_ZONES, timeZoneName } from "../../src/core/places/zone-names.ts";

// Every zone the places dataset uses, read from the file the app imports (content/data/us-places.csv).
const rows = parse(fs.readFileSync(PLACES_CSV), { columns: true, skip_empty_lines: true }) as Array<{ timezone: string }>;
const DATASET_ZONES = [...new Set(rows.map((r) => r.timezone))].sort();

describe("time zones as readers say them", () => {
  it("the dataset has the zones this test is about", () => {
    expect(DATASET_ZONES.length).toBeGreaterThan(20);
    expect(DATASET_ZONES).toEqual(expect.arrayContaining(["America/Puerto_Rico", "America/Phoenix", "America/Adak", "America/Detroit"]));
  });

  it.each(DATASET_ZONES)("%s has an everyday name without Standard or Daylight", (zone) => {
    const name = timeZoneName(zone);
    expect(name).toMatch(/^[A-Z][\w-]*( [A-Z][\w-]*)* Time$/);
    expect(name).not.toMatch(/Standard|Daylight/);
    // A written-out name, never Intl's guess (it says "Anchorage Time" for Alaska).
    expect(NAMED_ZONES).toContain(zone);
  });

  it.each([
    ["America/Puerto_Rico", "Atlantic Time"],
    ["America/St_Thomas", "Atlantic Time"],
    ["America/New_York", "Eastern Time"],
    ["America/Detroit", "Eastern Time"],
    ["America/Indiana/Indianapolis", "Eastern Time"],
    ["America/Chicago", "Central Time"],
    ["America/Indiana/Knox", "Central Time"],
    ["America/Denver", "Mountain Time"],
    ["America/Phoenix", "Mountain Time"],
    ["America/Los_Angeles", "Pacific Time"],
    ["America/Anchorage", "Alaska Time"],
    ["America/Nome", "Alaska Time"],
    ["Pacific/Honolulu", "Hawaii Time"],
    ["America/Adak", "Hawaii-Aleutian Time"],
    ["Pacific/Guam", "Chamorro Time"],
    ["Pacific/Saipan", "Chamorro Time"],
    ["Pacific/Pago_Pago", "Samoa Time"],
  ])("%s reads %s", (zone, name) => {
    expect(timeZoneName(zone)).toBe(name);
  });

  it("every written-out zone is one Intl knows", () => {
    for (const zone of NAMED_ZONES) expect(() => new Intl.DateTimeFormat("en-US", { timeZone: zone }), zone).not.toThrow();
  });

  it("a zone outside the table gets Intl's name without Standard, and a bad one its own words", () => {
    expect(timeZoneName("Europe/Berlin")).toBe("Central European Time");
    expect(timeZoneName("Asia/Tokyo")).toBe("Japan Time");
    expect(timeZoneName("Not/A_Zone")).toBe("Not/A Zone");
  });
});
