import { describe, expect, it } from "vitest";
import type { CalendarEvent, DirectoryListing } from "../../src/contract/resources.ts";
import { availableFacts, censusFactOfDay } from "../../src/core/places/census-facts.ts";
import { composeEdition } from "../../src/core/edition/compose.ts";
import { escapeMarkdown } from "../../src/core/edition/escape.ts";
import { featuredThisDay } from "../../src/core/edition/sections.ts";
import { renderEditionHtml } from "../../src/core/edition/render-html.ts";
import { safeUrl } from "../../src/lib/safe-url.ts";
import type { EditionInputs } from "../../src/core/edition/edition-inputs.ts";
import { webHtml, webMarkdown, withoutLegacyFooter, withoutWeatherEmoji } from "../../src/core/edition/web-edition.ts";
import { WMO_CONDITIONS } from "../../src/core/weather/wmo.ts";
import { addDays } from "../../src/lib/time.ts";
import { holidaysOn, upcomingHolidays } from "../../src/core/calendar/holidays.ts";
import { sunTimes } from "../../src/core/weather/sun.ts";
import type { WeatherSnapshot } from "../../src/core/weather/snapshot.ts";
import { NO_TOWN_SOURCES } from "../../src/core/sources/town-sources.ts";

const DATE = "2026-11-22";

const weather: WeatherSnapshot = {
  today: { high: 54.4, low: 38.2, current: 41, code: 61, condition: "Light rain", emoji: "🌦️", precipitationChance: 70, windSpeed: 9.6 },
  daily: Array.from({ length: 7 }, (_, i) => ({
    date: addDays(DATE, i), high: 54 + i, low: 38 + i, code: i === 0 ? 61 : 2, precipitationChance: i === 0 ? 70 : 10,
  })),
};

function inputs(over: Partial<EditionInputs> = {}): EditionInputs {
  return {
    place: { name: "Springfield", stateName: "Illinois", slug: "springfield-illinois" },
    date: DATE,
    baseUrl: "https://citydaily.example",
    weather,
    sun: { sunrise: "6:52 AM", sunset: "4:31 PM", daylightMinutes: 579, source: "suncalc" },
    holidays: { today: [], upcoming: [] },
    censusFact: { key: "population", text: "Springfield is home to about 114,394 people." },
    events: [],
    listings: [],
    sources: NO_TOWN_SOURCES,
    ...over,
  };
}

const event = (over: Partial<CalendarEvent>): CalendarEvent => ({
  id: "ev1", title: "Farmers market", description: "Local produce.", url: null, startsAt: DATE, featured: false, sponsored: false, ...over,
});

/** A featured listing id whose weekly mention falls on DATE. */
function featuredIdFor(date: string): string {
  for (let i = 0; ; i++) {
    const l: DirectoryListing = { id: `bl${i}`, title: "x", description: "", url: null, featured: true, sponsored: true, endsOn: "2099-01-01" };
    if (featuredThisDay([l], date).length === 1) return l.id;
  }
}

const HOSTILE = [
  "<script>alert('x')</script>",
  "<img src=x onerror=alert(1)>",
  "[Click here](javascript:alert(1))",
  "![pixel](https://tracker.example/p.gif)",
  "Visit https://phish.example/login or www.phish.example, mail boss@phish.example",
  "<https://autolink.example>",
  "&lt;b&gt;entity&lt;/b&gt; &#60;i&#62;",
  "**loud** _tilt_ `code` ~~gone~~ | col | col |",
  "line one\n\n# Fake heading\n\n- fake item\n<iframe src=//evil.example>",
  "[ref]: https://evil.example",
];

describe("composeEdition", () => {
  it("writes every section from its inputs, weather table included", () => {
    const { subject, markdown } = composeEdition(inputs({
      holidays: { today: [], upcoming: [{ date: "2026-11-26", name: "Thanksgiving Day", kind: "federal" }] },
    }));
    expect(subject).toBe("Springfield, Nov 22: Light rain, high 54°F");
    expect(markdown).toContain("# Springfield Daily: Sunday, November 22, 2026");
    // Words, never emoji (some systems draw them as empty boxes): the line opens with the condition.
    expect(markdown).toMatch(/^\*\*Light rain\*\*, 41°F at publication: high 54°F, low 38°F, 70% chance of precipitation, wind 10 mph\.$/m);
    expect(markdown).toContain("| Day | Conditions | High (°F) | Low (°F) | Precipitation (%) |");
    expect(markdown).toContain("| Sun, Nov 22 | Light rain | 54 | 38 | 70 |");
    expect(markdown).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(markdown.match(/^\| (Sun|Mon|Tue|Wed|Thu|Fri|Sat), /gm)).toHaveLength(7);
    expect(markdown).toContain("Sunrise 6:52 AM, sunset 4:31 PM: 9 h 39 min of daylight.");
    expect(markdown).toContain("- Thu, Nov 26: Thanksgiving Day (federal holiday)");
    expect(markdown).toContain("Springfield is home to about 114,394 people.");
    expect(markdown).toContain("Nothing on the town calendar for the coming week yet.");
    // "Read on the web" is the email's, once (src/core/edition/email-render.ts); the edition ends with its sources.
    expect(markdown).not.toContain("Read this edition online");
    expect(markdown).toMatch(/^Good morning, Springfield, Illinois\. Here is your day, a 1-minute read\.$/m);
    expect(markdown.trimEnd()).toMatch(/Forecast: \[Open-Meteo\.com\]\(https:\/\/open-meteo\.com\/\) \(CC BY 4\.0\)\. Census figures: U\.S\. Census Bureau\.$/);
    const html = renderEditionHtml(markdown);
    expect(html).toContain("<table>");
    expect(html).toContain("<h2>Weather</h2>");
  });

  it("is pure: the same inputs give the same edition", () => {
    expect(composeEdition(inputs())).toEqual(composeEdition(inputs()));
  });

  it("goes out without a forecast, saying so, when the weather is missing", () => {
    const { subject, markdown } = composeEdition(inputs({ weather: null }));
    expect(markdown).toContain("The forecast was not available this morning.");
    expect(markdown).not.toContain("| Day |");
    expect(subject).toBe("Springfield, Nov 22: sunrise 6:52 AM, sunset 4:31 PM");
  });

  it("leads the subject with the day's featured event, then the holiday", () => {
    const { subject } = composeEdition(inputs({
      date: "2026-11-26",
      holidays: { today: [{ date: "2026-11-26", name: "Thanksgiving Day", kind: "federal" }], upcoming: [] },
      events: [event({ id: "a", title: "Turkey Trot 5K", startsAt: "2026-11-26T08:00", featured: true })],
    }));
    expect(subject).toBe("Springfield, Nov 26: Turkey Trot 5K at 8:00 AM · Thanksgiving Day");
    // Without a lead, the holiday and then the weather.
    expect(composeEdition(inputs({ date: "2026-11-26", holidays: { today: [{ date: "2026-11-26", name: "Thanksgiving Day", kind: "federal" }], upcoming: [] } })).subject)
      .toBe("Springfield, Nov 26: Thanksgiving Day · Light rain, high 54°F");
  });

  it("lists today's events featured first, then the coming week, and drops past or far-off ones", () => {
    const { markdown } = composeEdition(inputs({
      events: [
        event({ id: "plain", title: "Library hour", startsAt: `${DATE}T09:00` }),
        event({ id: "feat", title: "Tree lighting", startsAt: `${DATE}T18:00`, featured: true }),
        event({ id: "soon", title: "Choir concert", startsAt: "2026-11-25" }),
        event({ id: "past", title: "Old news", startsAt: "2026-11-21" }),
        event({ id: "far", title: "Spring fair", startsAt: "2027-04-01" }),
      ],
    }));
    const today = markdown.indexOf("**Today**");
    expect(markdown.indexOf("Tree lighting")).toBeGreaterThan(today);
    expect(markdown.indexOf("Tree lighting")).toBeLessThan(markdown.indexOf("Library hour"));
    expect(markdown).toContain("- **Choir concert**, Wed, Nov 25, all day.");
    expect(markdown).not.toContain("Old news");
    expect(markdown).not.toContain("Spring fair");
  });

  it("mentions each featured listing once a week", () => {
    const listing: DirectoryListing = { id: "bl-weekly", title: "Corner Bakery", description: "Bread.", url: "https://bakery.example/", featured: true, sponsored: true, endsOn: "2027-01-01" };
    const days = Array.from({ length: 14 }, (_, i) => addDays(DATE, i));
    const mentioned = days.filter((d) => composeEdition(inputs({ date: d, listings: [listing] })).markdown.includes("Corner Bakery"));
    expect(mentioned).toHaveLength(2);
    expect(dayGap(mentioned[0]!, mentioned[1]!)).toBe(7);
  });
});

function dayGap(a: string, b: string): number {
  return (Date.parse(b) - Date.parse(a)) / 86_400_000;
}

describe("hostile listing text", () => {
  for (const text of HOSTILE) {
    it(`is inert in markdown and HTML: ${JSON.stringify(text).slice(0, 60)}`, () => {
      const featuredId = featuredIdFor(DATE);
      const { subject, markdown } = composeEdition(inputs({
        events: [event({ id: "e", title: text, description: text, startsAt: DATE, featured: true, url: "javascript:alert(1)" })],
        listings: [{ id: featuredId, title: text, description: text, url: "https://shop.example/a(b)<c>", featured: true, sponsored: true, endsOn: "2099-01-01", address: text, category: text }],
        // What public feeds send is as untrusted as what listers type.
        sources: {
          alerts: [{ id: "a1", event: text, severity: "Severe", urgency: null, headline: text, description: text, instruction: text, onset: null, ends: null, expires: "2099-01-01T00:00:00Z", senderName: text, url: "javascript:alert(1)" }],
          airQuality: null,
          events: [{ id: "f1", title: text, description: text, url: "javascript:alert(1)", startsAt: `${DATE}T10:00`, endsAt: null, allDay: false, venue: text, source: text }],
          headlines: [{ key: "h1", title: text, url: "javascript:alert(1)", outlet: text, publishedAt: null }],
        },
      }));
      const html = renderEditionHtml(markdown);
      // No element, attribute or link comes from the user's text: only our own tags and links exist.
      const tags = html.match(/<[^>]+>/g) ?? [];
      expect(tags.filter((t) => /^<\/?(script|img|iframe|div)\b/i.test(t))).toEqual([]);
      expect(tags.filter((t) => /\son\w+=|javascript:/i.test(t))).toEqual([]);
      const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      expect(hrefs).toEqual([
        "https://shop.example/a%28b%29%3Cc%3E",
        "https://citydaily.example/springfield-illinois",
        "https://open-meteo.com/",
      ]);
      expect(html).not.toMatch(/<(em|code|del|h3)>/);
      expect((html.match(/<h1>/g) ?? []).length).toBe(1);
      // The reader sees exactly the characters typed (one line, whitespace collapsed).
      const typed = text.replace(/\s+/g, " ").trim();
      const visible = html.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&amp;/g, "&");
      expect(visible).toContain(typed);
      // Markdown: the raw text never appears unescaped, so no markdown renderer can act on it.
      if (/[<[*`&]/.test(text)) expect(markdown).not.toContain(typed);
      expect(subject).not.toMatch(/[<>[\]`*]/);
      expect(subject).not.toContain("\n");
    });
  }

  it("keeps only http(s) links", () => {
    expect(safeUrl("javascript:alert(1)")).toBeNull();
    expect(safeUrl("data:text/html,<script>")).toBeNull();
    expect(safeUrl("not a url")).toBeNull();
    expect(safeUrl("https://ok.example/x y")).toBe("https://ok.example/x%20y");
  });
});

describe("census facts", () => {
  const figures = { population: 346323, housingUnits: 156251, landAreaSqMi: 60.622, medianIncome: null, medianAge: null, year: "2023" };

  it("says nothing about figures that are null", () => {
    const facts = availableFacts("Honolulu", figures);
    expect(facts.map((f) => f.key)).toEqual(["population", "housingUnits", "peoplePerHome", "density", "landArea"]);
    expect(facts.map((f) => f.text).join(" ")).not.toMatch(/income|age|null|NaN|undefined/i);
    expect(censusFactOfDay("Nowhere", "x", { population: null }, DATE)).toBeNull();
    expect(censusFactOfDay("Nowhere", "x", null, DATE)).toBeNull();
  });

  it("changes from one day to the next and repeats deterministically", () => {
    const week = Array.from({ length: 5 }, (_, i) => censusFactOfDay("Honolulu", "1571550", figures, addDays(DATE, i))!.key);
    expect(new Set(week).size).toBe(5);
    expect(censusFactOfDay("Honolulu", "1571550", figures, DATE)).toEqual(censusFactOfDay("Honolulu", "1571550", figures, DATE));
  });
});

describe("holidays and sun", () => {
  it("names federal holidays, state holidays and observances", () => {
    expect(holidaysOn("2026-11-26", "NY")).toEqual([{ date: "2026-11-26", name: "Thanksgiving Day", kind: "federal" }]);
    expect(holidaysOn("2026-06-11", "HI")).toContainEqual({ date: "2026-06-11", name: "Kamehameha Day", kind: "state" });
    expect(holidaysOn("2026-06-11", "NY")).toEqual([]);
    expect(holidaysOn("2026-10-31", "IL")).toContainEqual({ date: "2026-10-31", name: "Halloween", kind: "observance" });
    expect(upcomingHolidays("2026-12-28", "NY", 7).map((h) => h.date)).toEqual(["2026-12-31", "2027-01-01"]);
  });

  it("gives sunrise and sunset on the city's own clock, preferring the forecast's", () => {
    const honolulu = sunTimes({ date: DATE, latitude: 21.32, longitude: -157.85, timezone: "Pacific/Honolulu" });
    expect(honolulu.sunrise).toMatch(/^6:4\d AM$/);
    expect(honolulu.sunset).toMatch(/^5:4\d PM$/);
    const fromForecast = sunTimes({ date: DATE, latitude: 21.32, longitude: -157.85, timezone: "Pacific/Honolulu", forecast: { sunrise: `${DATE}T06:45`, sunset: `${DATE}T17:47` } });
    expect(fromForecast).toEqual({ sunrise: "6:45 AM", sunset: "5:47 PM", daylightMinutes: 662, source: "open-meteo" });
    const polarNight = sunTimes({ date: "2026-12-21", latitude: 71.29, longitude: -156.78, timezone: "America/Anchorage" });
    expect(polarNight.sunrise).toBeNull();
    expect(composeEdition(inputs({ sun: polarNight })).markdown).toContain("The sun neither rises nor sets today.");
  });
});

describe("the edition says one thing everywhere (its heading and its table once disagreed)", () => {
  it("heads the weather with the day's condition, the one the table's first row shows", () => {
    // At publication the sky is clear, but the day's forecast (the table's first row) is light rain.
    const w: WeatherSnapshot = { ...weather, today: { ...weather.today, code: 0, condition: "Clear sky", emoji: "☀️" } };
    const { markdown, subject } = composeEdition(inputs({ weather: w }));
    const headline = markdown.split("\n").find((l) => l.includes("at publication"))!;
    const firstRow = markdown.split("\n").find((l) => l.startsWith("| Sun, Nov 22 |"))!;
    expect(firstRow).toContain("Light rain");
    expect(headline).toMatch(/\*\*Light rain\*\* today; clear sky and 41°F at publication/);
    expect(subject).toContain("Light rain, high 54°F");
    expect(subject).not.toContain("Clear sky");
  });

  it("greets the town as every page names it: name, state", () => {
    const { markdown } = composeEdition(inputs());
    expect(markdown).toContain("Good morning, Springfield, Illinois.");
  });

  it("keeps the email footer of an older stored edition out of the web's markdown and HTML, and out of the email", () => {
    // Editions composed before the footer left the stored markdown ended with "---" and links to the page itself.
    const legacy = `${composeEdition(inputs()).markdown.trimEnd()}\n\n---\n\n[Read this edition online](https://citydaily.example/springfield-illinois/2026-11-22) · [All Springfield editions](https://citydaily.example/springfield-illinois) · Census figures: U.S. Census Bureau. Forecast: Open-Meteo.\n`;
    const html = renderEditionHtml(legacy);
    expect(html).toContain("Read this edition online");
    const web = webHtml(html);
    expect(web).not.toContain("Read this edition online");
    expect(web).not.toContain("<hr");
    expect(web).toContain("Forecast: Open-Meteo.");
    expect(web).toContain("<h2>Weather</h2>");
    const md = webMarkdown(legacy);
    expect(md).not.toContain("Read this edition online");
    expect(md).toContain("## Weather");
    expect(md.trimEnd().endsWith("Forecast: Open-Meteo.")).toBe(true);
    expect(withoutLegacyFooter(html)).not.toContain("Read this edition online");
    // A new edition has no email footer to take out.
    const fresh = composeEdition(inputs()).markdown;
    expect(webMarkdown(fresh)).toBe(fresh);
  });

  it("renders tables without obsolete align attributes and void elements without a slash", () => {
    const html = renderEditionHtml(composeEdition(inputs()).markdown);
    expect(html).not.toMatch(/\salign=/);
    expect(html).toMatch(/<td class="num">54<\/td>/);
    expect(html).not.toMatch(/<(hr|br) \/>/);
  });
});

describe("no weather emoji in an edition's text", () => {
  it("names every condition in words, in the headline and in the table", () => {
    for (const code of Object.keys(WMO_CONDITIONS).map(Number)) {
      const daily = weather.daily.map((d) => ({ ...d, code }));
      const { markdown, subject } = composeEdition(inputs({ weather: { ...weather, daily } }));
      const condition = WMO_CONDITIONS[code]!.condition;
      expect(markdown).not.toMatch(/\p{Extended_Pictographic}/u);
      expect(subject).not.toMatch(/\p{Extended_Pictographic}/u);
      expect(markdown).toContain(`**${condition}**`);
      expect(markdown).toContain(`| Sun, Nov 22 | ${condition} |`);
    }
  });

  // An edition stored before the change, as the composer wrote it then.
  const legacy = [
    "# Springfield Daily: Sunday, November 22, 2026", "",
    "## Weather", "", "🌦️ **Light rain**, 41°F at publication: high 54°F.", "",
    "| Day | Conditions | High (°F) |", "|---|---|---:|", "| Sun, Nov 22 | 🌦️ Light rain | 54 |", "| Mon, Nov 23 | ⛅ Partly cloudy | 50 |", "| Tue, Nov 24 | ☁️ Overcast | 48 |", "",
    "## On the calendar", "", "- **🎃 Pumpkin walk ☀️ Sunny side** — bring a lantern 🏮", "",
  ].join("\n");

  it("takes the weather emoji out of an old stored edition, words kept, a lister's own emoji untouched", () => {
    for (const text of [withoutWeatherEmoji(legacy), webMarkdown(legacy)]) {
      expect(text).toContain("**Light rain**, 41°F at publication");
      expect(text).toContain("| Sun, Nov 22 | Light rain | 54 |");
      expect(text).toContain("| Mon, Nov 23 | Partly cloudy | 50 |");
      expect(text).toContain("| Tue, Nov 24 | Overcast | 48 |");
      expect(text).toContain("- **🎃 Pumpkin walk ☀️ Sunny side** — bring a lantern 🏮");
    }
    const html = webHtml(renderEditionHtml(legacy));
    expect(html).toContain("<p><strong>Light rain</strong>, 41°F");
    expect(html).toContain("<td>Partly cloudy</td>");
    expect(html).not.toMatch(/🌦|⛅|☁/u);
  });
});

describe("escapeMarkdown", () => {
  // A leading space always takes the full path (which trims it), so the two calls compare the shortcut
  // for plain text with the seven rules it skips.
  const full = (s: string) => escapeMarkdown(` ${s}`);
  it("answers plain text as is, and agrees with the full rules on every string", () => {
    expect(escapeMarkdown("New York, Nov 24: Snow showers, high 31; 40% chance (after 2 PM)")).toBe("New York, Nov 24: Snow showers, high 31; 40% chance (after 2 PM)");
    for (const s of ["1. first", "# heading", "- item", "see http://x.example", "www.example.com", "a  b", "a_b*c", "x <b>", "a: //b", "Tom & Jerry", "café"]) {
      expect(escapeMarkdown(s)).toBe(full(s));
    }
    const alphabet = "aZ09 ,.;:'\"?!%$()/+=#-\\`*_[]<>|~&@\twW.é";
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    for (let n = 0; n < 20_000; n++) {
      const s = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
      expect(escapeMarkdown(s), JSON.stringify(s)).toBe(full(s));
    }
  });

  it("cuts long text to its limit either way", () => {
    const long = "word ".repeat(30).trim();
    expect(escapeMarkdown(long, 20)).toBe(escapeMarkdown(` ${long}`, 20));
    expect(escapeMarkdown(long, 20)).toBe("word word word word…");
  });
});
