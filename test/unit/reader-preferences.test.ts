import { describe, expect, it } from "vitest";
import { ReaderPreferencesUpdate } from "../../src/contract/preferences.ts";
import { renderEditionHtml } from "../../src/core/edition/render-html.ts";
import { withoutSections } from "../../src/core/edition/hidden-sections.ts";
import { applyUpdate, deliveryInstant, fromStored, hiddenKeys, hiddenText, timeLabel, timeToMinute } from "../../src/core/readers/preferences.ts";

// The pure side of readers' choices: the stored form, the delivery instant, an edition without the
// sections a reader hid.

const EDITION = renderEditionHtml([
  "# Ely Daily: Tuesday, November 24, 2026", "", "Good morning, Ely, Nevada. Here is your day, a 2-minute read.", "",
  "## Weather", "", "**Light snow**, 28°F at publication.", "", "Air quality: 38, good.", "",
  "## Local headlines", "", "- [Council approves the water tank](https://times.example.org/1) (The Ely Times)", "- [Road work on Aultman](https://city.example.gov/2) (City of Ely)", "",
  "## From the archive", "", "- A year ago today: 47°F and clear.", "",
  "## Did you know?", "", "Ely is the county seat of White Pine County.", "",
  "## Sun", "", "Sunrise 6:49 AM, sunset 4:14 PM: 9 h 25 min of daylight.", "",
  "## Holidays and observances", "", "- **Today: Thanksgiving Eve** (observance)", "",
  "Forecast and air quality: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0). Census figures: U.S. Census Bureau.", "",
].join("\n"));

describe("an edition without the sections a reader hid", () => {
  it("nothing hidden: the very same text", () => {
    expect(withoutSections(EDITION, [])).toBe(EDITION);
  });

  it("each hideable section goes with its heading, the rest stays as it was", () => {
    const out = withoutSections(EDITION, ["sun", "holidays", "did-you-know", "archive", "headlines", "air-quality"]);
    for (const gone of ["<h2>Sun</h2>", "Sunrise", "Holidays", "Thanksgiving", "Did you know", "county seat", "From the archive", "A year ago", "Local headlines", "water tank", "Air quality: 38"]) {
      expect(out, gone).not.toContain(gone);
    }
    expect(out).toContain("<h2>Weather</h2>\n<p><strong>Light snow</strong>, 28°F at publication.</p>");
    // The sources line after the last section stays.
    expect(out).toMatch(/<p>Forecast and air quality: <a href="https:\/\/open-meteo.com\/">Open-Meteo.com<\/a> \(CC BY 4.0\)\. Census figures: U.S. Census Bureau.<\/p>\n$/);
    expect(withoutSections(EDITION, ["sun"])).toBe(EDITION.replace("<h2>Sun</h2>\n<p>Sunrise 6:49 AM, sunset 4:14 PM: 9 h 25 min of daylight.</p>\n", ""));
  });

  it("unhealthy air is never hidden", () => {
    const bad = EDITION.replace("Air quality: 38, good.", "Air quality: 112, unhealthy for sensitive groups; mostly fine particles. People with heart or lung disease should reduce exertion.");
    expect(withoutSections(bad, ["air-quality"])).toBe(bad);
    const moderate = EDITION.replace("Air quality: 38, good.", "Air quality: 75, moderate; mostly ozone.");
    expect(withoutSections(moderate, ["air-quality"])).not.toContain("Air quality");
  });
});

describe("the stored choices", () => {
  it("delivery times: 5:00 to 9:00 AM in half hours", () => {
    expect(timeToMinute("05:00")).toBe(300);
    expect(timeToMinute("07:30")).toBe(450);
    expect(timeToMinute("09:00")).toBe(540);
    for (const bad of ["04:30", "09:30", "06:15", "6:00", "noon"]) expect(timeToMinute(bad), bad).toBeUndefined();
    expect(timeLabel(450)).toBe("7:30 AM");
  });

  it("hidden sections are stored in one order, unknown keys dropped", () => {
    expect(hiddenText(["sun", "holidays", "sun", "weather"])).toBe("holidays,sun");
    expect(hiddenKeys("sun,holidays,nope")).toEqual(["holidays", "sun"]);
    expect(hiddenKeys("")).toEqual([]);
  });

  it("an update changes only the fields it has", () => {
    const stored = { frequency: "daily" as const, weekly_day: 6, delivery_minute: 360, hidden_sections: "" };
    expect(applyUpdate(stored, { weeklyDay: "tuesday", hiddenSections: ["sun"] })).toEqual({ ...stored, weekly_day: 2, hidden_sections: "sun" });
    expect(fromStored({ ...stored, delivery_minute: 450 })).toEqual({ frequency: "daily", weeklyDay: "saturday", deliveryTime: "07:30", hiddenSections: [] });
    expect(ReaderPreferencesUpdate.safeParse({}).success).toBe(false);
    expect(ReaderPreferencesUpdate.safeParse({ deliveryTime: "07:30", extra: 1 }).success).toBe(false);
  });

  it("the delivery instant is the town's wall clock, on standard time and summer time", () => {
    expect(new Date(deliveryInstant("2026-11-24", "America/Los_Angeles", 450)).toISOString()).toBe("2026-11-24T15:30:00.000Z");
    expect(new Date(deliveryInstant("2026-07-01", "America/New_York", 360)).toISOString()).toBe("2026-07-01T10:00:00.000Z");
    // The morning the clocks go forward (2:00 AM): 6:00 is already summer time.
    expect(new Date(deliveryInstant("2026-03-08", "America/New_York", 360)).toISOString()).toBe("2026-03-08T10:00:00.000Z");
    expect(new Date(deliveryInstant("2026-11-24", "Pacific/Honolulu", 300)).toISOString()).toBe("2026-11-24T15:00:00.000Z");
  });
});
