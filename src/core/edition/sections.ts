import type { CalendarEvent, DirectoryListing } from "../../contract/resources.ts";
import type { WeatherSnapshot } from "../weather/snapshot.ts";
import { dayNumber, stableHash } from "../places/census-facts.ts";
import type { HolidayNote } from "../calendar/holidays.ts";
import { addDays } from "../../lib/time.ts";
import type { SunTimes } from "../weather/sun.ts";
import { safeUrl } from "../../lib/safe-url.ts";
import type { Headline, SourceCredit } from "../sources/town-sources.ts";
import type { WeatherAlert } from "../hazards/weather-alert.ts";
import { alertInstruction, alertSummary, alertUntil } from "../hazards/alert-section.ts";
import { eventWhenWords } from "../calendar/event-time.ts";
import type { Lead } from "./lead.ts";
import { describeWeatherCode } from "../weather/wmo.ts";
import { declarationLine, femaDisasterUrl, quakeLine, tideLine, uvCategory, UV_SHOWN_FROM, type TownHazards } from "../hazards/town-hazards.ts";
import { capitalise, dateParts, escapeMarkdown, plainText, temperature, TITLE_MAX } from "./escape.ts";

// The sections of an edition, each a list of markdown lines (src/core/edition/compose.ts puts them in order).

/** How far ahead the calendar section looks. */
export const CALENDAR_DAYS = 7;

const KIND_LABEL: Record<HolidayNote["kind"], string> = {
  federal: "federal holiday",
  state: "state holiday",
  observance: "observance",
};

/** The day's condition: the forecast's row for today when there is one, else the condition now. */
export function dayCondition(w: WeatherSnapshot): { condition: string } {
  const first = w.daily[0];
  return { condition: first ? describeWeatherCode(first.code).condition : w.today.condition };
}

export function weatherSection(w: WeatherSnapshot | null): string[] {
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

export function sunSection(sun: SunTimes): string[] {
  let line: string;
  if (sun.sunrise && sun.sunset) {
    const length = sun.daylightMinutes == null ? "" : `: ${Math.floor(sun.daylightMinutes / 60)} h ${sun.daylightMinutes % 60} min of daylight`;
    line = `Sunrise ${sun.sunrise}, sunset ${sun.sunset}${length}.`;
  } else if (sun.sunrise) line = `Sunrise ${sun.sunrise}; the sun does not set today.`;
  else if (sun.sunset) line = `Sunset ${sun.sunset}; the sun rose before midnight.`;
  else line = "The sun neither rises nor sets today.";
  return ["## Sun", "", line, ""];
}

export function linkSuffix(url: string | null | undefined, label: string, sponsored = false): string {
  const safe = safeUrl(url);
  // A paid placement's link carries the title "Sponsored": renderEditionHtml turns it into rel="sponsored".
  return safe ? ` [${label}](${safe}${sponsored ? ` "${SPONSORED}"` : ""})` : "";
}

/** The label of every paid placement (FTC endorsement guides): in the email, on the web, in the twins. */
export const SPONSORED = "Sponsored";


/** "7:00 PM at White Pine County Library" (with the day: "Wed, Nov 25, 7:00 PM at ..."). */
export function whenWords(e: CalendarEvent, withDay: boolean): string {
  return eventWhenWords({ startsAt: e.startsAt, endsAt: e.endsAt, allDay: e.allDay, venue: e.venue ? plainText(e.venue, TITLE_MAX) : null }, { withDay });
}

/** One event as the email's calendar lists it (the buying page's preview shows this very line). */
export function eventLine(e: CalendarEvent, withDay: boolean): string {
  const label = e.sponsored ? `${SPONSORED}: ` : "";
  const when = whenWords(e, withDay);
  const desc = e.description.trim() ? ` ${escapeMarkdown(sentenceOf(e.description), 240)}` : "";
  const from = sourceNote(e);
  return `- ${label}**${escapeMarkdown(e.title, TITLE_MAX)}**${when ? `, ${escapeMarkdown(when, 200)}` : ""}.${desc}${from}${linkSuffix(e.url, "Details", e.sponsored)}${linkSuffix(e.agendaUrl, "Agenda")}`;
}

/** "From City of Ely." for an event of a public calendar, unless its venue already names the source. */
export function sourceNote(e: CalendarEvent): string {
  if (!e.source) return "";
  if (e.venue && plainText(e.venue).toLowerCase().includes(plainText(e.source).toLowerCase())) return "";
  return ` From ${escapeMarkdown(e.source, TITLE_MAX)}.`;
}

/** A description as one sentence-ended run of text. */
export function sentenceOf(s: string): string {
  const t = plainText(s, 240);
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

/** Events from today to `CALENDAR_DAYS` ahead; within a day featured ones first, then by start. */
export function calendarOf(events: CalendarEvent[], date: string): { today: CalendarEvent[]; coming: CalendarEvent[] } {
  const last = addDays(date, CALENDAR_DAYS);
  const inRange = events.filter((e) => /^\d{4}-\d{2}-\d{2}/.test(e.startsAt) && e.startsAt.slice(0, 10) >= date && e.startsAt.slice(0, 10) <= last);
  const order = (a: CalendarEvent, b: CalendarEvent) =>
    a.startsAt.slice(0, 10).localeCompare(b.startsAt.slice(0, 10)) || Number(b.featured) - Number(a.featured) || Number(Boolean(b.allDay)) - Number(Boolean(a.allDay)) || a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id);
  const sorted = inRange.sort(order);
  return { today: sorted.filter((e) => e.startsAt.slice(0, 10) === date), coming: sorted.filter((e) => e.startsAt.slice(0, 10) > date) };
}

/** At most this many events a section, so a busy library feed cannot swamp the email. */
const TODAY_MAX = 8;
const COMING_MAX = 12;

export function calendarSection(cal: { today: CalendarEvent[]; coming: CalendarEvent[] }, pageUrl: string, leadId: string | null): string[] {
  const out = ["## On the calendar", ""];
  const today = cal.today.filter((e) => e.id !== leadId);
  if (today.length === 0 && cal.coming.length === 0) {
    if (leadId) return [];
    out.push(`Nothing on the town calendar for the coming week yet. Know of something? Events can be listed free on the [town page](${pageUrl}).`, "");
    return out;
  }
  // Featured (paid) events are never cut: the buyer was promised the email on their days.
  const keep = (list: CalendarEvent[], max: number) => {
    const paid = list.filter((e) => e.featured);
    return [...paid, ...list.filter((e) => !e.featured).slice(0, Math.max(0, max - paid.length))].sort((a, b) => list.indexOf(a) - list.indexOf(b));
  };
  const shownToday = keep(today, TODAY_MAX);
  const shownComing = keep(cal.coming, COMING_MAX);
  if (shownToday.length > 0) out.push(`**${leadId ? "Also today" : "Today"}**`, "", ...shownToday.map((e) => eventLine(e, false)), "");
  if (shownComing.length > 0) out.push("**This week**", "", ...shownComing.map((e) => eventLine(e, true)), "");
  const more = today.length + cal.coming.length - shownToday.length - shownComing.length;
  if (more > 0) out.push(`${more} more ${more === 1 ? "event is" : "events are"} on the [town calendar](${pageUrl}).`, "");
  return out;
}

/** Featured listings current on `date`, each mentioned once a week on its own weekday. */
export function featuredThisDay(listings: DirectoryListing[], date: string): DirectoryListing[] {
  const day = dayNumber(date);
  return listings
    .filter((l) => l.featured && l.endsOn >= date && (day + stableHash(l.id)) % 7 === 0)
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** A featured business as the email mentions it (the buying page's preview shows this very line). */
export function directoryLine(l: DirectoryListing): string {
  const about = [l.category, l.address].filter((x): x is string => Boolean(x && x.trim())).map((x) => escapeMarkdown(x, TITLE_MAX));
  const desc = l.description.trim() ? ` ${escapeMarkdown(sentenceOf(l.description), 240)}` : "";
  return `- ${l.sponsored === false ? "" : `${SPONSORED}: `}**${escapeMarkdown(l.title, TITLE_MAX)}**${about.length ? ` (${about.join(", ")})` : ""}.${desc}${linkSuffix(l.url, "Website", l.sponsored !== false)}`;
}

export function directorySection(listings: DirectoryListing[], date: string, pageUrl: string): string[] {
  const current = listings.filter((l) => l.endsOn >= date);
  if (current.length === 0) return [];
  const out = ["## From the directory", ""];
  for (const l of featuredThisDay(current, date)) out.push(directoryLine(l));
  if (out.length > 2) out.push("");
  out.push(`${current.length} ${current.length === 1 ? "business is" : "businesses are"} listed in the [town directory](${pageUrl}).`, "");
  return out;
}

export function holidaySection(h: { today: HolidayNote[]; upcoming: HolidayNote[] }): string[] {
  if (h.today.length === 0 && h.upcoming.length === 0) return [];
  const out = ["## Holidays and observances", ""];
  for (const x of h.today) out.push(`- **Today: ${escapeMarkdown(x.name)}** (${KIND_LABEL[x.kind]})`);
  for (const x of h.upcoming) out.push(`- ${dateParts(x.date).short}: ${escapeMarkdown(x.name)} (${KIND_LABEL[x.kind]})`);
  out.push("");
  return out;
}

/** The warning section: the event, what to expect, until when (local time), what to do, a link. */
export function warningSection(alerts: WeatherAlert[], timeZone: string): string[] {
  const out: string[] = [];
  const [first, ...rest] = alerts;
  if (!first) return out;
  out.push(`## ${escapeMarkdown(first.event, TITLE_MAX)}`, "");
  const until = alertUntil(first, timeZone);
  const summary = alertSummary(first.description) || (first.headline ? plainText(first.headline, 320) : "");
  out.push(`${until ? `**${capitalise(until)}.** ` : ""}${escapeMarkdown(summary, 400)}`, "");
  const todo = alertInstruction(first);
  if (todo) out.push(`**What to do:** ${escapeMarkdown(todo, 400)}`, "");
  const link = safeUrl(first.url);
  out.push(`Issued by the National Weather Service${first.senderName ? ` (${escapeMarkdown(first.senderName.replace(/^NWS\s+/, ""), TITLE_MAX)})` : ""}.${link ? ` [Read the full ${escapeMarkdown(first.event.toLowerCase(), TITLE_MAX)}](${link})` : ""}`, "");
  for (const a of rest.slice(0, 3)) {
    const u = alertUntil(a, timeZone);
    const l = safeUrl(a.url);
    out.push(`Also in effect: **${escapeMarkdown(a.event, TITLE_MAX)}**${u ? ` ${u}` : ""}.${l ? ` [Details](${l})` : ""}`, "");
  }
  return out;
}

/** "Neaps tide database (https://...)" as a link; any other notice as plain text. */
function noticeText(notice: string): string {
  const m = /^([^()]+?) \((https:\/\/[^\s()]+)\)\.?$/.exec(notice.trim());
  const url = m ? safeUrl(m[2]) : null;
  return m && url ? `[${escapeMarkdown(m[1]!, TITLE_MAX)}](${url})` : escapeMarkdown(notice, 600);
}

/**
 * The block next to the warnings: only what is true today in town, each line with its source. Tides
 * of a coastal town, a quake felt here, a high UV index, a new federal disaster declaration for the
 * county. Nothing at all on a quiet day inland.
 */
export function hazardsSection(h: TownHazards | null | undefined, uvIndexMax: number | null | undefined, timeZone: string, date: string): string[] {
  const lines: string[] = [];
  for (const q of h?.quakes ?? []) {
    lines.push(`- **Earthquake:** ${escapeMarkdown(quakeLine(q, timeZone, date), 600)}${linkSuffix(q.quake.url, "USGS event page")}`);
  }
  for (const d of h?.declarations ?? []) {
    lines.push(`- **Disaster declaration:** ${escapeMarkdown(declarationLine(d), 600)}${linkSuffix(femaDisasterUrl(d), "FEMA's page")}`);
  }
  const uv = uvIndexMax != null && Number.isFinite(uvIndexMax) ? Math.round(uvIndexMax) : null;
  if (uv !== null && uv >= UV_SHOWN_FROM) {
    const c = uvCategory(uv);
    lines.push(`- **UV index ${uv}, ${c.name}:** ${escapeMarkdown(c.advice ?? "", 600)} (EPA advice)`);
  }
  // "4:59 AM (10.8 ft)" never breaks between a number and its unit on a narrow screen.
  const tides = h?.tides && h.tides.extremes.length > 0 ? escapeMarkdown(tideLine(h.tides, timeZone), 600).replace(/(\d) (AM|PM|ft\)|m\))/g, "$1\u00a0$2") : null;
  // A quiet day on the coast: the tides alone, as a sentence under their heading (no list of one).
  if (lines.length === 0) return tides ? ["## Tides today", "", tides, ""] : [];
  if (tides) lines.push(`- **Tides:** ${tides}`);
  return [`## ${tides ? "Hazards and tides today" : "Hazards today"}`, "", ...lines, ""];
}

function headlineLine(h: Headline): string {
  const url = safeUrl(h.url);
  const title = escapeMarkdown(h.title, 200);
  // A county-wide outlet's item is here because it names the town: the reader is told whose it is.
  return `${url ? `[${title}](${url})` : title} (${escapeMarkdown(h.outlet, TITLE_MAX)}${h.countyWide ? ", county-wide" : ""})`;
}

/** The lead when it is not a warning or a hazard (their own blocks lead then, at the top). */
export function leadSection(lead: Lead | null): string[] {
  if (!lead || lead.kind === "alert" || lead.kind === "quake" || lead.kind === "declaration") return [];
  if (lead.kind === "event") {
    const e = lead.event;
    const when = whenWords(e, false);
    const desc = e.description.trim() ? ` ${escapeMarkdown(sentenceOf(e.description), 400)}` : "";
    return [
      `## Today: ${escapeMarkdown(e.title, TITLE_MAX)}`, "",
      `${e.sponsored ? `${SPONSORED}. ` : ""}${when ? `**${escapeMarkdown(capitalise(when), 200)}.**` : ""}${desc}${sourceNote(e)}${linkSuffix(e.url, "Details", e.sponsored)}${linkSuffix(e.agendaUrl, "Agenda")}`, "",
    ];
  }
  if (lead.kind === "headline") return ["## Top story", "", headlineLine(lead.headline), ""];
  return [`## ${capitalise(lead.change.subject.replace(/, (low|high) .*$/, ""))}`, "", lead.change.sentence, ""];
}

export function headlinesSection(headlines: Headline[], leadKey: string | null): string[] {
  const rest = headlines.filter((h) => h.key !== leadKey).slice(0, 5);
  if (rest.length === 0) return [];
  return [leadKey ? "## More local headlines" : "## Local headlines", "", ...rest.map((h) => `- ${headlineLine(h)}`), ""];
}

export function archiveSection(notes: Array<{ text: string; link: string | null }>, pageUrl: string): string[] {
  if (notes.length === 0) return [];
  return ["## From the archive", "", ...notes.map((n) => `- ${n.text}${n.link ? ` [Read that edition](${pageUrl}/${n.link})` : ""}`), ""];
}
/** The town's public sources this edition drew on (a headline or an event of its week), each once. */
export function creditsUsed(credits: SourceCredit[], headlines: Headline[], events: CalendarEvent[]): SourceCredit[] {
  const used = new Set([...headlines.map((h) => h.outlet), ...events.map((e) => e.source).filter(Boolean)]);
  const seen = new Set<string>();
  return credits.filter((c) => used.has(c.name) && !seen.has(c.name) && (seen.add(c.name), true));
}

/**
 * How the edition is made, said just before its sources: readers of an automated newsletter rightly
 * ask who wrote it. With the operator's note, the note is theirs and no one writes the rest.
 */
export function madeByLine(noteAuthor: string | null | undefined): string {
  const how = "**How this edition is made:** put together automatically each morning from the public sources credited below";
  return noteAuthor ? `${how}, with the note from ${escapeMarkdown(noteAuthor, TITLE_MAX)}; no one writes the rest.` : `${how}; no one writes it.`;
}

/**
 * Who the edition's figures come from (Open-Meteo's CC BY 4.0 and the tide database ask for the
 * credit), and the local outlets it drew on. Only what the edition has is credited: a morning
 * without a forecast credits none.
 */
export function sourcesLine(warnings: boolean, airQuality: boolean, hazards: TownHazards | null, local: SourceCredit[] = [], forecast = true): string {
  const outlets = local.map((c) => `${safeUrl(c.url) ? `[${escapeMarkdown(c.name, TITLE_MAX)}](${safeUrl(c.url)})` : escapeMarkdown(c.name, TITLE_MAX)}${c.countyWide ? " (county-wide)" : ""}`);
  const tides = hazards?.tides && hazards.tides.extremes.length > 0 ? hazards.tides : null;
  return [
    outlets.length ? `Local news and meetings: ${outlets.join(", ")}.` : "",
    warnings ? "Warnings: National Weather Service." : "",
    hazards?.quakes.length ? "Earthquakes: [U.S. Geological Survey](https://earthquake.usgs.gov/)." : "",
    hazards?.declarations.length ? "Disaster declarations: [FEMA](https://www.fema.gov/about/openfema) (OpenFEMA)." : "",
    tides ? `Tides: NOAA harmonics, predicted with [Neaps](https://github.com/openwatersio/neaps); ${noticeText(tides.attribution)}.` : "",
    forecast || airQuality ? `${forecast ? `Forecast${airQuality ? " and air quality" : ""}` : "Air quality"}: [Open-Meteo.com](https://open-meteo.com/) (CC BY 4.0).` : "",
    "Census figures: U.S. Census Bureau.",
  ].filter(Boolean).join(" ");
}
