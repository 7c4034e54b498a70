import { feedEventToCalendar } from "../calendar/event-time.ts";
import { activeAlerts, airQualityLine } from "../hazards/alert-section.ts";
import { archiveNotes } from "./archive-notes.ts";
import { chooseLead } from "./lead.ts";
import { noteSection } from "./note.ts";
import type { ComposedEdition, EditionInputs } from "./edition-inputs.ts";
import { dateParts, escapeMarkdown, TITLE_MAX } from "./escape.ts";
import {
  archiveSection, calendarOf, calendarSection, creditsUsed, directorySection, hazardsSection, headlinesSection, holidaySection, leadSection, madeByLine,
  sourcesLine, sunSection, warningSection, weatherSection,
} from "./sections.ts";
import { subjectOf } from "./subject.ts";

// One edition from its inputs: the sections (sections.ts) in order, the subject (subject.ts); the
// HTML is rendered apart (render-html.ts).

/** Words a reader reads (tables are glanced at, not read): "a 2-minute read" at 230 words a minute. */
export function readingMinutes(markdown: string): number {
  const prose = markdown.split("\n").filter((l) => !l.startsWith("|")).join(" ")
    .replace(/\]\([^)]*\)/g, "]").replace(/[#*_\\[\]>|-]/g, " ");
  const words = prose.split(/\s+/).filter((w) => /\w/.test(w)).length;
  return Math.max(1, Math.round(words / 230));
}

/** "Good morning, Boise, Idaho"; a town named like its state is named once ("Good morning, New York"). */
export function greetingName(name: string, stateName: string): string {
  return name.toLowerCase() === stateName.toLowerCase() ? escapeMarkdown(name, TITLE_MAX) : `${escapeMarkdown(name, TITLE_MAX)}, ${escapeMarkdown(stateName)}`;
}

const READ_TIME_MARK = "\u0000read-time\u0000";

/** Composes one edition. Pure: the same inputs always give the same subject and markdown. */
export function composeEdition(i: EditionInputs): ComposedEdition {
  const { place } = i;
  const tz = place.timezone ?? "UTC";
  const at = i.at ?? `${i.date}T12:00:00.000Z`;
  const alerts = activeAlerts(i.sources.alerts, at);
  const all = [...i.events, ...i.sources.events.map(feedEventToCalendar)];
  const cal = calendarOf(all, i.date);
  const history = i.history ?? [];
  const today = i.weather ? { high: i.weather.today.high, low: i.weather.today.low, code: i.weather.daily[0]?.code ?? i.weather.today.code } : null;
  const lead = chooseLead({ alerts, todayEvents: cal.today, headlines: i.sources.headlines, hazards: i.sources.hazards, today, date: i.date, history });
  const pageUrl = `${i.baseUrl}/${place.slug}`;
  const town = escapeMarkdown(place.name, TITLE_MAX);
  const weather = weatherSection(i.weather);
  if (i.sources.airQuality) weather.push(escapeMarkdown(airQualityLine(i.sources.airQuality), 600), "");
  const lines: string[] = [
    `# ${town} Daily: ${dateParts(i.date).long}`,
    "",
    `Good morning, ${greetingName(place.name, place.stateName)}. Here is your day, ${READ_TIME_MARK}.`,
    "",
    ...(i.note ? noteSection(i.note) : []),
    ...warningSection(alerts, tz),
    ...hazardsSection(i.sources.hazards, i.weather?.daily.find((d) => d.date === i.date)?.uvIndexMax, tz, i.date),
    ...leadSection(lead),
    ...weather,
    ...calendarSection(cal, pageUrl, lead?.kind === "event" ? lead.event.id : null),
    ...headlinesSection(i.sources.headlines, lead?.kind === "headline" ? lead.headline.key : null),
    ...directorySection(i.listings, i.date, pageUrl),
    ...archiveSection(archiveNotes(today, i.date, history), pageUrl),
  ];
  if (i.censusFact) lines.push("## Did you know?", "", escapeMarkdown(i.censusFact.text), "");
  lines.push(...sunSection(i.sun), ...holidaySection(i.holidays));
  lines.push(madeByLine(i.note?.authorName), "");
  lines.push(sourcesLine(alerts.length > 0, i.sources.airQuality !== null, i.sources.hazards ?? null, creditsUsed(i.sources.credits ?? [], i.sources.headlines, [...cal.today, ...cal.coming]), i.weather !== null), "");
  const draft = lines.join("\n");
  const minutes = readingMinutes(draft);
  const markdown = draft.replace(READ_TIME_MARK, `a ${minutes}-minute read`);
  return { subject: subjectOf(i, cal, lead), markdown, factKey: i.censusFact?.key ?? null, lead: lead?.kind ?? null };
}
