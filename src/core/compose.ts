import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";
import type { CalendarEvent, DirectoryListing } from "../contract/resources.ts";
import type { WeatherSnapshot } from "./weather.ts";
import type { CensusFact } from "./census-facts.ts";
import { dayNumber, stableHash } from "./census-facts.ts";
import type { HolidayNote } from "./holidays.ts";
import { addDays } from "./holidays.ts";
import type { SunTimes } from "./sun.ts";
import { safeUrl } from "./safe-url.ts";
import { noteSection } from "./note.ts";
import type { TownSources } from "./town-sources.ts";
import { describeWeatherCode, UNKNOWN_CONDITION, WMO_CONDITIONS } from "./wmo.ts";

export { safeUrl };

/** Everything one edition is made of; the pipeline gathers it, this module only writes. */
export interface EditionInputs {
  place: { name: string; stateName: string; slug: string };
  date: string; // YYYY-MM-DD in the city's timezone
  baseUrl: string;
  /** null when the forecast could not be fetched: the edition goes out without it. */
  weather: WeatherSnapshot | null;
  sun: SunTimes;
  holidays: { today: HolidayNote[]; upcoming: HolidayNote[] };
  censusFact: CensusFact | null;
  /** The town's calendar (today and the coming days); user-supplied text. */
  events: CalendarEvent[];
  /** The town's directory; user-supplied text. */
  listings: DirectoryListing[];
  /** What public sources add: warnings, air quality, feed events, headlines. */
  sources: TownSources;
  /** The operator's note for the date (canonical markdown from src/core/note.ts), or null. */
  note?: { markdown: string; authorName: string } | null;
}

export interface ComposedEdition {
  subject: string;
  markdown: string;
}

/** How far ahead the calendar section looks. */
export const CALENDAR_DAYS = 7;

const TITLE_MAX = 120;
const DESCRIPTION_MAX = 400;

// ---------- escaping: user text is data, never markup ----------

/** One line of plain text: control characters and line breaks become spaces, length is capped. */
export function plainText(s: string, max = DESCRIPTION_MAX): string {
  const flat = s.normalize("NFC").replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/**
 * Text made inert for markdown: every character CommonMark could read as syntax (emphasis, links,
 * images, raw HTML, entities, tables, code) is backslash-escaped, and GFM's bare-URL and email
 * autolinks are broken up, so user text renders as exactly the characters typed and links nowhere.
 */
export function escapeMarkdown(s: string, max = DESCRIPTION_MAX): string {
  return plainText(s, max)
    // Parentheses and "!" only act after "]", so escaping the brackets disarms links and images.
    .replace(/[\\`*_[\]<>|~&@]/g, "\\$&")
    .replace(/:(?=\/\/)/g, "\\:")            // scheme://
    .replace(/\b(www)\./gi, "$1\\.")          // www.example.com
    .replace(/^(\d+)([.)])/, "$1\\$2")        // "1." or "1)" would start a list
    .replace(/^[-+=#]/, "\\$&");              // a list, a setext underline or a heading
}

/** Subject lines are plain text (an email header): user text keeps only harmless characters. */
function subjectText(s: string, max: number): string {
  return plainText(s.replace(/[<>[\]{}`*_|\\]/g, ""), max);
}

// ---------- dates ----------

// Formatters are costly to build and reused for every edition of a run.
const fmt = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat("en-US", { timeZone: "UTC", ...o });
const LONG = fmt({ weekday: "long", month: "long", day: "numeric", year: "numeric" }); // Sunday, November 22, 2026
const SHORT = fmt({ weekday: "short", month: "short", day: "numeric" });               // Sun, Nov 22
const MONTH_DAY = fmt({ month: "short", day: "numeric" });                             // Nov 22

function dateParts(date: string) {
  const d = new Date(`${date}T12:00:00Z`);
  return { long: LONG.format(d), short: SHORT.format(d), monthDay: MONTH_DAY.format(d) };
}

const KIND_LABEL: Record<HolidayNote["kind"], string> = {
  federal: "federal holiday",
  state: "state holiday",
  observance: "observance",
};

// ---------- sections ----------

function temperature(n: number): string {
  return `${Math.round(n)}°F`;
}

/** The day's condition: the forecast's row for today when there is one, else the condition now. */
export function dayCondition(w: WeatherSnapshot): { condition: string } {
  const first = w.daily[0];
  return { condition: first ? describeWeatherCode(first.code).condition : w.today.condition };
}

function weatherSection(w: WeatherSnapshot | null): string[] {
  const out = ["## Weather", ""];
  if (!w) {
    out.push("The forecast was not available this morning.", "");
    return out;
  }
  const t = w.today;
  const details = [`high ${temperature(t.high)}`, `low ${temperature(t.low)}`];
  if (t.precipitationChance != null) details.push(`${Math.round(t.precipitationChance)}% chance of precipitation`);
  if (t.windSpeed != null) details.push(`wind ${Math.round(t.windSpeed)} mph`);
  // The headline gives the day's condition, the one the table's first row shows; the sky at
  // publication is named apart when it differs, so the two never contradict each other.
  const day = dayCondition(w);
  const now = t.condition === day.condition ? "" : ` today; ${escapeMarkdown(t.condition.toLowerCase())} and`;
  // Words only, no weather emoji: some systems draw them as empty boxes, and the text is what the
  // email, the feeds and the markdown twin carry (the web pages add drawn icons, src/site/weather-icons.ts).
  out.push(`**${escapeMarkdown(day.condition)}**${now || ","} ${temperature(t.current)} at publication: ${details.join(", ")}.`, "");
  if (w.daily.length > 0) {
    // One row per day with plain numbers, so the table doubles as the data for a chart.
    out.push("| Day | Conditions | High (°F) | Low (°F) | Precipitation (%) |", "|---|---|---:|---:|---:|");
    for (const d of w.daily) {
      const c = describeWeatherCode(d.code);
      out.push(`| ${dateParts(d.date).short} | ${escapeMarkdown(c.condition)} | ${Math.round(d.high)} | ${Math.round(d.low)} | ${d.precipitationChance == null ? "–" : Math.round(d.precipitationChance)} |`);
    }
    out.push("");
  }
  return out;
}

function sunSection(sun: SunTimes): string[] {
  let line: string;
  if (sun.sunrise && sun.sunset) {
    const length = sun.daylightMinutes == null ? "" : `: ${Math.floor(sun.daylightMinutes / 60)} h ${sun.daylightMinutes % 60} min of daylight`;
    line = `Sunrise ${sun.sunrise}, sunset ${sun.sunset}${length}.`;
  } else if (sun.sunrise) line = `Sunrise ${sun.sunrise}; the sun does not set today.`;
  else if (sun.sunset) line = `Sunset ${sun.sunset}; the sun rose before midnight.`;
  else line = "The sun neither rises nor sets today.";
  return ["## Sun", "", line, ""];
}

function linkSuffix(url: string | null, label: string): string {
  const safe = safeUrl(url);
  return safe ? ` [${label}](${safe})` : "";
}

function eventLine(e: CalendarEvent, withDay: boolean): string {
  const day = withDay ? `${dateParts(e.startsAt.slice(0, 10)).short}: ` : "";
  const desc = e.description.trim() ? ` — ${escapeMarkdown(e.description)}` : "";
  return `- ${day}**${escapeMarkdown(e.title, TITLE_MAX)}**${e.featured ? " (featured)" : ""}${desc}${linkSuffix(e.url, "Details")}`;
}

/** Events from today to `CALENDAR_DAYS` ahead; within a day featured ones first, then by start. */
export function calendarOf(events: CalendarEvent[], date: string): { today: CalendarEvent[]; coming: CalendarEvent[] } {
  const last = addDays(date, CALENDAR_DAYS);
  const inRange = events.filter((e) => /^\d{4}-\d{2}-\d{2}/.test(e.startsAt) && e.startsAt.slice(0, 10) >= date && e.startsAt.slice(0, 10) <= last);
  const order = (a: CalendarEvent, b: CalendarEvent) =>
    a.startsAt.slice(0, 10).localeCompare(b.startsAt.slice(0, 10)) || Number(b.featured) - Number(a.featured) || a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id);
  const sorted = inRange.sort(order);
  return { today: sorted.filter((e) => e.startsAt.slice(0, 10) === date), coming: sorted.filter((e) => e.startsAt.slice(0, 10) > date) };
}

function calendarSection(cal: { today: CalendarEvent[]; coming: CalendarEvent[] }): string[] {
  const out = ["## On the calendar", ""];
  if (cal.today.length === 0 && cal.coming.length === 0) {
    out.push("Nothing on the town calendar for the coming week yet.", "");
    return out;
  }
  if (cal.today.length > 0) out.push("**Today**", "", ...cal.today.map((e) => eventLine(e, false)), "");
  if (cal.coming.length > 0) out.push("**Coming up**", "", ...cal.coming.map((e) => eventLine(e, true)), "");
  return out;
}

/** Featured listings current on `date`, each mentioned once a week on its own weekday. */
export function featuredThisDay(listings: DirectoryListing[], date: string): DirectoryListing[] {
  const day = dayNumber(date);
  return listings
    .filter((l) => l.featured && l.endsOn >= date && (day + stableHash(l.id)) % 7 === 0)
    .sort((a, b) => a.id.localeCompare(b.id));
}

function directorySection(listings: DirectoryListing[], date: string, pageUrl: string): string[] {
  const current = listings.filter((l) => l.endsOn >= date);
  if (current.length === 0) return [];
  const out = ["## From the directory", ""];
  for (const l of featuredThisDay(current, date)) {
    const desc = l.description.trim() ? ` — ${escapeMarkdown(l.description)}` : "";
    out.push(`- **${escapeMarkdown(l.title, TITLE_MAX)}** (featured)${desc}${linkSuffix(l.url, "Website")}`);
  }
  if (out.length > 2) out.push("");
  out.push(`${current.length} ${current.length === 1 ? "business is" : "businesses are"} listed in the [town directory](${pageUrl}).`, "");
  return out;
}

function holidaySection(h: EditionInputs["holidays"]): string[] {
  if (h.today.length === 0 && h.upcoming.length === 0) return [];
  const out = ["## Holidays and observances", ""];
  for (const x of h.today) out.push(`- **Today: ${escapeMarkdown(x.name)}** (${KIND_LABEL[x.kind]})`);
  for (const x of h.upcoming) out.push(`- ${dateParts(x.date).short}: ${escapeMarkdown(x.name)} (${KIND_LABEL[x.kind]})`);
  out.push("");
  return out;
}

// ---------- the edition ----------

/** The subject tells the day's news: a holiday, the day's featured event, the weather; else the sun. */
export function subjectOf(i: EditionInputs, cal: { today: CalendarEvent[] }): string {
  const parts: string[] = [];
  const holiday = i.holidays.today.find((h) => h.kind !== "observance") ?? i.holidays.today[0];
  if (holiday) parts.push(subjectText(holiday.name, 60));
  const featured = cal.today.find((e) => e.featured);
  if (featured) parts.push(subjectText(featured.title, 60));
  if (i.weather) parts.push(`${dayCondition(i.weather).condition}, high ${temperature(i.weather.today.high)}`);
  if (parts.length === 0 && i.sun.sunrise && i.sun.sunset) parts.push(`sunrise ${i.sun.sunrise}, sunset ${i.sun.sunset}`);
  if (parts.length === 0) parts.push("your daily town briefing");
  return `${i.place.name}, ${dateParts(i.date).monthDay}: ${parts.join(" · ")}`;
}

/** Composes one edition. Pure: the same inputs always give the same subject and markdown. */
export function composeEdition(i: EditionInputs): ComposedEdition {
  const { place } = i;
  const cal = calendarOf([...i.events], i.date);
  const pageUrl = `${i.baseUrl}/${place.slug}`;
  const town = escapeMarkdown(place.name, TITLE_MAX);
  const lines: string[] = [
    `# ${town} Daily: ${dateParts(i.date).long}`,
    "",
    // The town is named as everywhere else on the site and in its emails: "Boise, Idaho".
    `Good morning, ${town}, ${escapeMarkdown(place.stateName)}. Here is your day.`,
    "",
    ...(i.note ? noteSection(i.note) : []),
    ...weatherSection(i.weather),
    ...sunSection(i.sun),
    ...holidaySection(i.holidays),
    ...calendarSection(cal),
    ...directorySection(i.listings, i.date, pageUrl),
  ];
  if (i.censusFact) lines.push("## Did you know?", "", escapeMarkdown(i.censusFact.text), "");
  lines.push(
    EMAIL_FOOTER_RULE,
    "",
    `[Read this edition online](${pageUrl}/${i.date}) · [All ${town} editions](${pageUrl}) · ${SOURCES_LINE}`,
    "",
  );
  return { subject: subjectOf(i, cal), markdown: lines.join("\n") };
}

/** The rule that opens the email footer; it is the only thematic break an edition has. */
const EMAIL_FOOTER_RULE = "---";

/**
 * The edition as the web shows it: without the email footer ("Read this edition online", a link
 * to the page itself, and the archive link the page already has). The sources line stays.
 */
export function webMarkdown(stored: string): string {
  const markdown = withoutWeatherEmoji(stored);
  const at = markdown.lastIndexOf(`\n${EMAIL_FOOTER_RULE}\n`);
  if (at < 0 || !markdown.slice(at).includes("Read this edition online")) return markdown;
  return `${markdown.slice(0, at).trimEnd()}\n\n${SOURCES_LINE}\n`;
}

/** The same for the stored HTML (rendered from that markdown by `renderEditionHtml`). */
export function webHtml(html: string): string {
  const html5 = withoutWeatherEmoji(html).replace(/<(hr|br)\s*\/>/g, "<$1>") // HTML void elements, without XML's slash
    // On a narrow screen a wide table scrolls inside its own box, never the page.
    .replace(/<table>/g, '<div class="table-scroll"><table>').replace(/<\/table>/g, "</table></div>");
  const at = html5.lastIndexOf("<hr>");
  if (at < 0 || !html5.slice(at).includes("Read this edition online")) return html5;
  return `${html5.slice(0, at).trimEnd()}\n<p class="sources">${SOURCES_LINE}</p>\n`;
}

const SOURCES_LINE = "Census figures: U.S. Census Bureau. Forecast: Open-Meteo.";

// Editions composed before the text went emoji-free put a weather emoji before each condition
// ("🌦️ **Light rain**", "| ☁️ Overcast |"). Stored editions are never rewritten, so every path that
// shows one (site, twins, feeds, emails) takes them out on the way: only an emoji of src/core/wmo.ts
// directly before a condition name, so emoji a lister typed stay as typed.
const WEATHER_EMOJI = [...new Set([...Object.values(WMO_CONDITIONS), UNKNOWN_CONDITION].map((c) => c.emoji.replace(/\uFE0F/g, "")))];
const CONDITION_NAMES = [...new Set([...Object.values(WMO_CONDITIONS), UNKNOWN_CONDITION].map((c) => c.condition))]
  .sort((a, b) => b.length - a.length);
const LEGACY_EMOJI = new RegExp(`(?:${WEATHER_EMOJI.join("|")})\uFE0F? (?=(?:\\*\\*|<strong>)?(?:${CONDITION_NAMES.join("|")})\\b)`, "gu");

/** Text (markdown or HTML) of a stored edition without the weather emoji older editions carry. */
export function withoutWeatherEmoji(text: string): string {
  return text.replace(LEGACY_EMOJI, "");
}

// ---------- HTML ----------

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** Tags our markdown produces; anything else (from any source) is dropped. */
const ALLOWED_TAGS = ["h1", "h2", "h3", "p", "strong", "em", "a", "ul", "ol", "li", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "code", "del"];

function alignToClass(tagName: string, attribs: Record<string, string>): { tagName: string; attribs: Record<string, string> } {
  const cls = attribs.align === "right" ? "num" : attribs.align === "center" ? "center" : undefined;
  return { tagName, attribs: cls ? { class: cls } : {} };
}

/** The edition's HTML, rendered once from its markdown and sanitised as a second line of defence. */
export function renderEditionHtml(markdown: string): string {
  const html = marked.parse(markdown) as string;
  const clean = sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    // Markdown table alignment arrives as the obsolete `align` attribute; it becomes a class.
    allowedAttributes: { a: ["href"], th: ["class"], td: ["class"] },
    allowedClasses: { th: ["num", "center"], td: ["num", "center"] },
    transformTags: { th: alignToClass, td: alignToClass },
    allowedSchemes: ["http", "https", "mailto"],
    allowProtocolRelative: false,
    disallowedTagsMode: "escape",
  });
  return clean.replace(/<(hr|br)\s*\/>/g, "<$1>");
}
