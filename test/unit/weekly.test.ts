import { describe, expect, it } from "vitest";
import { composeEdition } from "../../src/core/edition/compose.ts";
import { prepareEdition } from "../../src/core/edition/email-render.ts";
import { madeByLine, sourcesLine } from "../../src/core/edition/sections.ts";
import { webHtml, webMarkdown, withoutMissingForecastCredit } from "../../src/core/edition/web-edition.ts";
import { composeWeekly, weeklyOpening, weeklySubject } from "../../src/core/edition/weekly.ts";
import { prepareWeekly, weeklyWithoutSections } from "../../src/core/edition/weekly-email.ts";
import { declarationsOf, headlinesOf, warningsOf, weekHeadlines } from "../../src/core/edition/weekly-parts.ts";
import { NO_TOWN_SOURCES } from "../../src/core/sources/town-sources.ts";

// The weekly's parts read back from stored editions' markdown, and the line that says how an edition is made.

const edition = (date: string, body: string) => ({ date, subject: `Ely, ${date}`, markdown: `# Ely Daily\n\nGood morning.\n\n${body}\n` });

describe("what the weekly reads from an edition", () => {
  it("the headlines of the top story and the lists, escaped titles kept, unlinked ones too", () => {
    const md = [
      "## Top story", "", "[Council approves the \\[water\\] tank](https://times.example.org/1) (The Ely Times)", "",
      "## More local headlines", "", "- [Snow plows out early](https://city.example.gov/2) (City of Ely News)", "- Road closed on 5th (Elko Daily, county-wide)", "",
      "## Weather", "", "- [Not a headline](https://x.example) (Nobody)", "",
    ].join("\n");
    expect(headlinesOf(md, "2026-11-28")).toEqual([
      { title: "Council approves the \\[water\\] tank", url: "https://times.example.org/1", outlet: "The Ely Times", date: "2026-11-28" },
      { title: "Snow plows out early", url: "https://city.example.gov/2", outlet: "City of Ely News", date: "2026-11-28" },
      { title: "Road closed on 5th", url: null, outlet: "Elko Daily, county-wide", date: "2026-11-28" },
    ]);
  });

  it("the week's headlines: newest edition first, none twice by link or by words, at most the limit", () => {
    const week = [
      edition("2026-11-26", "## Local headlines\n\n- [Old story](https://a.example/1) (A)\n- [Same words](https://a.example/2) (A)"),
      edition("2026-11-28", "## Local headlines\n\n- [New story](https://a.example/3) (A)\n- [Same Words](https://b.example/9) (B)\n- [Old story again](https://a.example/1) (A)"),
    ];
    expect(weekHeadlines(week, 10).map((h) => h.title)).toEqual(["New story", "Same Words", "Old story again"]);
    expect(weekHeadlines(week, 2).map((h) => h.title)).toEqual(["New story", "Same Words"]);
  });

  it("a warning in force with its end and link, the ones also in effect, and each declaration once", () => {
    const md = [
      "## Winter Storm Warning", "", "**Until 10:00 PM Wed, Nov 25.** Heavy snow.", "",
      "Issued by the National Weather Service (Elko NV). [Read the full winter storm warning](https://alerts.example/1)", "",
      "Also in effect: **Wind Advisory** until 6:00 PM Tue, Nov 24. [Details](https://alerts.example/2)", "",
      "## Hazards today", "", "- **Disaster declaration:** A federal major disaster declaration for White Pine County (severe storms), declared Nov 20.", "",
    ].join("\n");
    expect(warningsOf(md)).toEqual([
      { event: "Winter Storm Warning", line: "**Winter Storm Warning**, until 10:00 PM Wed, Nov 25. [Details](https://alerts.example/1)" },
      { event: "Wind Advisory", line: "**Wind Advisory** until 6:00 PM Tue, Nov 24. [Details](https://alerts.example/2)" },
    ]);
    expect(declarationsOf([{ markdown: md }, { markdown: md }])).toHaveLength(1);
  });
});

describe("the weekly", () => {
  it("says it is the week in its subject: a warning in force first, else the newest headline, then the weather to come", () => {
    expect(weeklySubject("Ely", [{ line: "", event: "Wind Advisory" }], [], [], "snow Tuesday", "Nov 22 to Nov 28")).toBe("Ely this week: Wind Advisory · snow Tuesday");
    expect(weeklySubject("Ely", [], [{ title: "Council approves the water tank", url: null, outlet: "T", date: "2026-11-28" }], [], null, "Nov 22 to Nov 28")).toBe("Ely this week: Council approves the water tank");
    // With no news and no weather, the subject names the week itself, never "the week's editions".
    expect(weeklySubject("Ely", [], [], [], null, "Nov 22 to Nov 28")).toBe("Ely this week: Nov 22 to Nov 28");
  });

  it("opens with only what it has: no count of nothing, no forecast it lacks", () => {
    expect(weeklyOpening(10, 3, true)).toBe("Here is your week: 10 headlines from this week's editions, 3 events in the coming seven days, and the forecast.");
    expect(weeklyOpening(1, 0, true)).toBe("Here is your week: the headline from this week's editions and the forecast.");
    expect(weeklyOpening(0, 1, false)).toBe("Here is your week: one event in the coming seven days.");
    expect(weeklyOpening(0, 0, true)).toBe("A quiet week: no local headlines in this week's editions. Here is the forecast for the days ahead.");
    expect(weeklyOpening(0, 0, false)).toBe("A quiet week: no local headlines in this week's editions.");
  });

  it("a week without headlines, events or forecast says only what is there, lists its editions in the order they came, credits no forecast", () => {
    const w = composeWeekly({
      town: { name: "New York", stateName: "New York", slug: "new-york-new-york" }, date: "2026-11-28", baseUrl: "https://citydaily.example",
      editions: [edition("2026-11-28", ""), edition("2026-11-23", ""), edition("2026-11-25", "")], forecast: [], events: [], directory: [],
    });
    expect(w.subject).toBe("New York this week: Nov 23 to Nov 28");
    expect(w.markdown).toContain("Good morning, New York. A quiet week: no local headlines in this week's editions.\n");
    expect(w.markdown).not.toMatch(/\b0 (headlines|events)|forecast|this morning|Open-Meteo|The week's headlines/i);
    expect(w.markdown).toContain("[Monday](https://citydaily.example/new-york-new-york/2026-11-23) · [Wednesday](https://citydaily.example/new-york-new-york/2026-11-25) · [Saturday](https://citydaily.example/new-york-new-york/2026-11-28).");
    expect(w.markdown.endsWith("no one writes it.\n")).toBe(true);
    // The inbox line beside the subject says the week was quiet, as the opening does, not "This week: Coming up".
    expect(prepareWeekly({ date: "2026-11-28", subject: w.subject, html: w.html }).preheader)
      .toBe("A quiet week in New York: no local headlines in this week's editions, and nothing on the town calendar for the coming seven days yet.");
  });

  it("is made of the week's editions and what is coming, and links each edition", () => {
    const w = composeWeekly({
      town: { name: "Ely", stateName: "Nevada", slug: "ely-nevada" }, date: "2026-11-28", baseUrl: "https://citydaily.example",
      editions: [edition("2026-11-27", "## Local headlines\n\n- [A story](https://a.example/1) (A)"), edition("2026-11-28", "")],
      forecast: [{ date: "2026-11-28", high: 40, low: 20, code: 3, precipitationChance: 0 }, { date: "2026-11-29", high: 35, low: 18, code: 73, precipitationChance: 80 }],
      events: [], directory: [],
    });
    expect(w.subject).toBe("Ely this week: A story · snow Sunday");
    expect(w.editions).toEqual(["2026-11-28", "2026-11-27"]);
    expect(w.markdown).toContain("[Friday](https://citydaily.example/ely-nevada/2026-11-27) · [Saturday](https://citydaily.example/ely-nevada/2026-11-28).");
    expect(w.markdown).toContain("Here is your week: the headline from this week's editions and the forecast.");
    expect(w.markdown).toContain("Forecast: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0).");
    expect(w.markdown).toContain("- [A story](https://a.example/1) (A, Friday)");
    expect(w.markdown).toContain("Nothing on the town calendar for the coming seven days yet.");
    expect(w.html).toContain("<strong>How this is made:</strong> put together automatically from this week's editions");
    // A week with something in it keeps the line of its sections.
    expect(prepareWeekly({ date: "2026-11-28", subject: w.subject, html: w.html }).preheader).toBe("This week: The week's headlines · Coming up · The forecast");
  });

  it("without the headlines for a reader who hid them (the one hideable section it has), one or none", () => {
    const weekOf = (body: string) => composeWeekly({
      town: { name: "Ely", stateName: "Nevada", slug: "ely-nevada" }, date: "2026-11-28", baseUrl: "https://citydaily.example",
      editions: [edition("2026-11-28", body)], forecast: [], events: [], directory: [],
    }).html;
    const withEvents = composeWeekly({
      town: { name: "Ely", stateName: "Nevada", slug: "ely-nevada" }, date: "2026-11-28", baseUrl: "https://citydaily.example",
      editions: [edition("2026-11-28", "## Local headlines\n\n- [A story](https://a.example/1) (A)\n- [B story](https://a.example/2) (A)")],
      forecast: [{ date: "2026-11-28", high: 40, low: 20, code: 3, precipitationChance: 0 }],
      events: [{ id: "e1", title: "Book sale", description: "", startsAt: "2026-11-29T10:00", url: null, featured: false, sponsored: false }], directory: [],
    }).html;
    expect(withEvents).toContain("Here is your week: 2 headlines from this week's editions, one event in the coming seven days, and the forecast.");
    expect(weeklyWithoutSections(withEvents, ["headlines"])).toContain("Here is your week: one event in the coming seven days and the forecast.</p>");
    // A weekly stored before the opening said only what it has loses its count the same way.
    expect(weeklyWithoutSections("<p>Good morning. Here is your week: 10 headlines from this week's editions, 0 events in the coming seven days, and the forecast.</p>", ["headlines"]))
      .toBe("<p>Good morning. Here is your week: 0 events in the coming seven days and the forecast.</p>");
    expect(weeklyWithoutSections(weekOf("## Local headlines\n\n- [A story](https://a.example/1) (A)"), ["headlines"])).toContain("Good morning, Ely, Nevada. Here is your week.</p>");
    for (const html of [weekOf("## Local headlines\n\n- [A story](https://a.example/1) (A)"), weekOf("")]) {
      const cut = weeklyWithoutSections(html, ["headlines", "sun"]);
      expect(cut).not.toContain("The week's headlines");
      expect(cut).not.toMatch(/A story|\d+ headlines|the headline/);
      expect(cut).toContain("<h2>Coming up</h2>");
      if (html.includes("A story")) expect(cut.length).toBeLessThan(html.length);
      // Sections the weekly does not have change nothing.
      expect(weeklyWithoutSections(html, ["sun", "holidays", "did-you-know", "air-quality", "archive"])).toBe(html);
    }
  });
});

describe("how an edition is made", () => {
  it("is said before its sources, naming the operator's note when there is one", () => {
    expect(madeByLine(null)).toBe("**How this edition is made:** put together automatically each morning from the public sources credited below; no one writes it.");
    expect(madeByLine("Jo *Reyes*")).toBe("**How this edition is made:** put together automatically each morning from the public sources credited below, with the note from Jo \\*Reyes\\*; no one writes the rest.");
    const { markdown } = composeEdition({
      place: { name: "Ely", stateName: "Nevada", slug: "ely-nevada" }, date: "2026-11-28", baseUrl: "https://citydaily.example", weather: null,
      sun: { sunrise: "6:52 AM", sunset: "4:38 PM", daylightMinutes: 586, source: "suncalc" }, holidays: { today: [], upcoming: [] },
      censusFact: null, events: [], listings: [], sources: NO_TOWN_SOURCES, note: { markdown: "Snow day tomorrow.", authorName: "Jo Reyes" },
    });
    const lines = markdown.trimEnd().split("\n\n");
    expect(lines.at(-2)).toContain("with the note from Jo Reyes; no one writes the rest.");
    // A morning without a forecast credits none.
    expect(lines.at(-1)).toBe("Census figures: U.S. Census Bureau.");
  });
});

describe("credits for what is there", () => {
  it("the sources line credits the forecast only with one, air quality on its own", () => {
    expect(sourcesLine(false, false, null)).toBe("Forecast: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0). Census figures: U.S. Census Bureau.");
    expect(sourcesLine(false, true, null, [], false)).toBe("Air quality: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0). Census figures: U.S. Census Bureau.");
    expect(sourcesLine(true, false, null, [], false)).toBe("Warnings: National Weather Service. Census figures: U.S. Census Bureau.");
  });

  it("a stored edition of a morning without a forecast shows no forecast credit on the web, in feeds and in email", () => {
    const md = "## Weather\n\nThe forecast was not available this morning.\n\nWarnings: National Weather Service. Forecast and air quality: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0). Census figures: U.S. Census Bureau.\n";
    expect(withoutMissingForecastCredit(md)).toContain("Warnings: National Weather Service. Air quality: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0). Census figures: U.S. Census Bureau.");
    const html = '<h2>Weather</h2>\n<p>The forecast was not available this morning.</p>\n<p>Forecast: <a href="https://c.example/go/ely-nevada/2026-11-28/abc?to=https%3A%2F%2Fopen-meteo.com%2F">Open-Meteo.com</a> (CC BY 4.0). Census figures: U.S. Census Bureau.</p>';
    expect(webHtml(html)).toContain("<p>Census figures: U.S. Census Bureau.</p>");
    expect(prepareEdition({ date: "2026-11-28", subject: "s", markdown: md, html }).html).not.toContain("Open-Meteo");
    // With a forecast, nothing changes.
    const withForecast = html.replace("The forecast was not available this morning.", "<strong>Sunny</strong>, 40°F at publication.");
    expect(webHtml(withForecast)).toBe(withForecast);
    expect(webMarkdown(md.replace("The forecast was not available this morning.", "Sunny."))).toBe(md.replace("The forecast was not available this morning.", "Sunny."));
  });
});
