import type { CalendarEvent } from "../../contract/resources.ts";
import { alertUntil, endsToday } from "../hazards/alert-section.ts";
import { clockWords } from "../calendar/event-time.ts";
import { declarationSubject, quakeSubject } from "../hazards/town-hazards.ts";
import type { Lead } from "./lead.ts";
import type { EditionInputs } from "./edition-inputs.ts";
import { dayCondition } from "./sections.ts";
import { dateParts, subjectText, temperature } from "./escape.ts";

// The edition's subject line: plain text (an email header), led by what leads the edition.

const SUBJECT_LEAD_MAX = 70;

/** The subject follows the lead; without one: a holiday, the day's featured event, the weather; else the sun. */
export function subjectOf(i: EditionInputs, cal: { today: CalendarEvent[] }, lead: Lead | null = null): string {
  const parts: string[] = [];
  const tz = i.place.timezone ?? "UTC";
  if (lead?.kind === "alert") {
    const a = lead.alert;
    const until = endsToday(a, tz, i.date) ? alertUntil(a, tz).replace(/ [A-Z][a-z]{2}, [A-Z][a-z]{2} \d+$/, " today") : alertUntil(a, tz).replace(/, [A-Z][a-z]{2} \d+$/, "");
    parts.push(subjectText(`${a.event}${until ? ` ${until}` : ""}`, SUBJECT_LEAD_MAX));
  } else if (lead?.kind === "quake") {
    parts.push(subjectText(quakeSubject(lead.quake), SUBJECT_LEAD_MAX));
  } else if (lead?.kind === "declaration") {
    parts.push(subjectText(declarationSubject(lead.declaration), SUBJECT_LEAD_MAX));
  } else if (lead?.kind === "event") {
    const when = lead.event.allDay || !/T\d{2}:\d{2}/.test(lead.event.startsAt) ? "" : ` at ${clockWords(lead.event.startsAt.slice(11, 16))}`;
    parts.push(subjectText(`${lead.event.title}${when}`, SUBJECT_LEAD_MAX));
  } else if (lead?.kind === "headline") {
    parts.push(subjectText(lead.headline.title, SUBJECT_LEAD_MAX));
  } else if (lead?.kind === "weather") {
    parts.push(lead.change.subject);
  }
  const holiday = i.holidays.today.find((h) => h.kind !== "observance") ?? i.holidays.today[0];
  if (holiday) parts.push(subjectText(holiday.name, 60));
  if (!lead) {
    const featured = cal.today.find((e) => e.featured);
    if (featured) parts.push(subjectText(featured.title, 60));
  }
  if (i.weather && lead?.kind !== "weather" && parts.length < 2) parts.push(`${dayCondition(i.weather).condition}, high ${temperature(i.weather.today.high)}`);
  if (parts.length === 0 && i.sun.sunrise && i.sun.sunset) parts.push(`sunrise ${i.sun.sunrise}, sunset ${i.sun.sunset}`);
  if (parts.length === 0) parts.push("your daily town briefing");
  return `${i.place.name}, ${dateParts(i.date).monthDay}: ${parts.join(" · ")}`;
}
