import type { CalendarEvent, DirectoryListing } from "../../contract/resources.ts";
import { addDays } from "../../lib/time.ts";
import type { DailyForecast } from "../weather/snapshot.ts";
import { describeWeatherCode } from "../weather/wmo.ts";
import { greetingName } from "./compose.ts";
import { dateParts, escapeMarkdown, subjectText, TITLE_MAX } from "./escape.ts";
import { renderEditionHtml } from "./render-html.ts";
import { calendarOf, directoryLine, eventLine } from "./sections.ts";
import { declarationsOf, markdownWords, warningsOf, weekHeadlines, type InForce, type WeekHeadline } from "./weekly-parts.ts";

// The weekly email of a town (for readers who chose "once a week"): the week from its stored
// editions and what is coming. Composed once per town and day, for all of that day's weekly readers;
// pure, like the edition (no database, no clock).

/** At most this many headlines: the week's best, not its every line. */
const WEEKLY_HEADLINES = 10;
/** The days ahead the weekly's calendar covers: today and the six after it. */
const WEEKLY_DAYS = 7;
const EVENTS_MAX = 15;

export interface WeeklyInputs {
  town: { name: string; stateName: string; slug: string };
  /** The readers' day (the town's local date): the last of the week, the first of what is coming. */
  date: string;
  baseUrl: string;
  /** The town's editions of the seven days up to `date` (any order); the one of `date` says what is in force. */
  editions: Array<{ date: string; subject: string; markdown: string }>;
  /** The forecast stored with the edition of `date`, today first. */
  forecast: DailyForecast[];
  /** The town's calendar: featured event listings and the events of its public feeds. */
  events: CalendarEvent[];
  /** The town's directory: its featured businesses are the week's sponsored mentions. */
  directory: DirectoryListing[];
}

export interface ComposedWeekly {
  subject: string;
  markdown: string;
  html: string;
  /** The dates of the daily editions it draws on, newest first. */
  editions: string[];
}

/** "Saturday" for a YYYY-MM-DD date. */
function weekday(date: string): string {
  return dateParts(date).long.split(",")[0]!;
}

const editionUrl = (i: WeeklyInputs, date: string) => `${i.baseUrl}/${i.town.slug}/${date}`;

/** Precipitation worth a subject: drizzle, rain, snow, showers, storms (WMO 51 and up). */
const wet = (d: DailyForecast) => d.code >= 51;

/** "snow Tuesday", or the week's range of highs when it stays dry. */
function weatherWords(forecast: DailyForecast[], date: string): string | null {
  const ahead = forecast.filter((d) => d.date > date);
  const first = ahead.find(wet);
  if (first) return `${describeWeatherCode(first.code).condition.toLowerCase()} ${weekday(first.date)}`;
  if (ahead.length === 0) return null;
  const highs = ahead.map((d) => Math.round(d.high));
  const [lo, hi] = [Math.min(...highs), Math.max(...highs)];
  return lo === hi ? `highs near ${hi}°F` : `highs ${lo} to ${hi}°F`;
}

/**
 * "Ely this week: Winter Storm Warning · snow Tuesday"; led by a warning in force, else the newest
 * headline, else the next event. A week with none of these and no forecast is named by its dates
 * (`span`, "Nov 22 to Nov 28"): the subject promises nothing the email does not have.
 */
export function weeklySubject(town: string, inForce: InForce[], headlines: WeekHeadline[], coming: CalendarEvent[], weather: string | null, span: string): string {
  const lead = inForce.find((x) => x.event)?.event ?? (headlines[0] ? markdownWords(headlines[0].title) : undefined)
    ?? (coming[0] ? `${coming[0].title}, ${weekday(coming[0].startsAt.slice(0, 10))}` : undefined);
  const parts = [lead ? subjectText(lead, 70) : "", weather ?? ""].filter(Boolean);
  return `${town} this week: ${parts.length ? parts.join(" · ") : span}`;
}

/** "a", "a and b", "a, b, and c". */
export function listWords(items: readonly string[]): string {
  if (items.length < 3) return items.join(" and ");
  return `${items.slice(0, -1).join(", ")}, and ${items.at(-1)}`;
}

/** The opening's parts, each a phrase of its own (weekly-email.ts takes the headlines' out for a reader who hid them). */
export const OPENING_PART = /(?:the headline|\d+ headlines) from this week's editions|(?:one event|\d+ events) in the coming seven days|the forecast/g;
export const HEADLINES_PART = /^(?:the headline|\d+ headlines) from this week's editions$/;

/** What a quiet week lacks, said by its opening and its preheader. */
const QUIET = "no local headlines in this week's editions";
/** The opening of a quiet week without a forecast (weekly-email.ts finds it in the weekly's HTML). */
export const QUIET_OPENING = `A quiet week: ${QUIET}.`;

/**
 * The preheader of a quiet week without a forecast (weekly-email.ts): its one section, "Coming up",
 * has nothing in it, so the inbox line says what the opening does rather than "This week: Coming up".
 */
export const quietWeekPreheader = (town: string) => `A quiet week in ${town}: ${QUIET}, and nothing on the town calendar for the coming seven days yet.`;

/**
 * The opening's sentence after the greeting: only what the weekly has (no count of nothing, no
 * forecast it lacks). A week with neither headlines nor events says it was quiet (its "Coming up"
 * says the calendar is empty and how to fill it).
 */
export function weeklyOpening(headlines: number, events: number, forecast: boolean): string {
  if (headlines === 0 && events === 0) return `A quiet week: ${QUIET}${forecast ? ". Here is the forecast for the days ahead" : ""}.`;
  const parts = [
    headlines === 0 ? "" : headlines === 1 ? "the headline from this week's editions" : `${headlines} headlines from this week's editions`,
    events === 0 ? "" : events === 1 ? "one event in the coming seven days" : `${events} events in the coming seven days`,
    forecast ? "the forecast" : "",
  ].filter(Boolean);
  return `Here is your week: ${listWords(parts)}.`;
}

function forecastTable(days: DailyForecast[]): string[] {
  return [
    "| Day | Conditions | High (°F) | Low (°F) | Precipitation (%) |", "|---|---|---:|---:|---:|",
    ...days.map((d) => `| ${dateParts(d.date).short} | ${escapeMarkdown(describeWeatherCode(d.code).condition)} | ${Math.round(d.high)} | ${Math.round(d.low)} | ${d.precipitationChance == null ? "–" : Math.round(d.precipitationChance)} |`),
    "",
  ];
}

/** A headline with its outlet and the day of the edition that carried it (the editions are linked below). */
function headlineLine(h: WeekHeadline): string {
  return `- ${h.url ? `[${h.title}](${h.url})` : h.title} (${h.outlet}, ${weekday(h.date)})`;
}

/** The events of the coming seven days, soonest first, featured ones never cut. */
function comingEvents(events: CalendarEvent[], date: string): CalendarEvent[] {
  const cal = calendarOf(events, date);
  const last = addDays(date, WEEKLY_DAYS - 1);
  const all = [...cal.today, ...cal.coming].filter((e) => e.startsAt.slice(0, 10) <= last);
  const paid = all.filter((e) => e.featured);
  const kept = new Set([...paid, ...all.filter((e) => !e.featured).slice(0, Math.max(0, EVENTS_MAX - paid.length))]);
  return all.filter((e) => kept.has(e));
}

/** The heading of the week's headlines: the one section a reader may hide that the weekly has (weekly-email.ts). */
export const WEEKLY_HEADLINES_HEADING = "The week's headlines";

/** How the weekly is made, said where its sources are credited. */
const WEEKLY_MADE_BY = "**How this is made:** put together automatically from this week's editions, which are made each morning from the public sources they credit; no one writes it.";

export function composeWeekly(i: WeeklyInputs): ComposedWeekly {
  const town = escapeMarkdown(i.town.name, TITLE_MAX);
  const editions = [...i.editions].sort((a, b) => b.date.localeCompare(a.date));
  const latest = editions.find((e) => e.date === i.date);
  const inForce = [...(latest ? warningsOf(latest.markdown) : []), ...declarationsOf(editions)];
  const headlines = weekHeadlines(editions, WEEKLY_HEADLINES);
  const coming = comingEvents(i.events, i.date);
  const featured = i.directory.filter((l) => l.featured && l.endsOn >= i.date).sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  const first = editions.at(-1)?.date ?? i.date;
  const span = first === i.date ? dateParts(i.date).monthDay : `${dateParts(first).monthDay} to ${dateParts(i.date).monthDay}`;
  const forecast = i.forecast.filter((d) => d.date >= i.date);
  const lines = [
    `# ${town} this week: ${span}`, "",
    `Good morning, ${greetingName(i.town.name, i.town.stateName)}. ${weeklyOpening(headlines.length, coming.length, forecast.length > 0)}`, "",
  ];
  if (inForce.length > 0) lines.push("## Still in force", "", ...inForce.map((x) => `- ${x.line}`), "");
  // A section only for what the week has: the opening already said there were no headlines.
  if (headlines.length > 0) lines.push(`## ${WEEKLY_HEADLINES_HEADING}`, "", ...headlines.map(headlineLine), "");
  lines.push("## Coming up", "");
  if (coming.length > 0) lines.push(...coming.map((e) => eventLine(e, true)), "");
  else lines.push(`Nothing on the town calendar for the coming seven days yet. Events can be listed free on the [town page](${i.baseUrl}/${i.town.slug}).`, "");
  if (forecast.length > 0) lines.push("## The forecast", "", ...forecastTable(forecast));
  if (featured.length > 0) lines.push("## From the directory", "", ...featured.map(directoryLine), "");
  // The daily editions it draws on, each a link, in the order they came (their subjects are in the archive; the email stays short).
  lines.push("## This week's editions", "", `${[...editions].reverse().map((e) => `[${weekday(e.date)}](${editionUrl(i, e.date)})`).join(" · ")}.`, "");
  const sources = weeklySources(headlines, inForce, forecast.length > 0);
  lines.push(WEEKLY_MADE_BY, "", ...(sources ? [sources, ""] : []));
  const markdown = lines.join("\n");
  const subject = weeklySubject(i.town.name, inForce, headlines, coming, weatherWords(i.forecast, i.date), span);
  return { subject, markdown, html: renderEditionHtml(markdown), editions: editions.map((e) => e.date) };
}

/** The sources of what the weekly has, and only those (the editions it draws on credit their own). */
function weeklySources(headlines: WeekHeadline[], inForce: InForce[], forecast: boolean): string {
  const outlets = [...new Set(headlines.map((h) => h.outlet.replace(/, county-wide$/, "")))];
  return [
    outlets.length ? `Local news: ${outlets.join(", ")}.` : "",
    inForce.some((x) => x.event) ? "Warnings: National Weather Service." : "",
    forecast ? "Forecast: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0)." : "",
  ].filter(Boolean).join(" ");
}
