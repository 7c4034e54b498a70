import { safeUrl } from "../../lib/safe-url.ts";
import type { CalendarOccurrence } from "../../core/calendar/calendar-events.ts";
import { SourceError } from "../http-json.ts";
import { plainText } from "./ical.ts";

// Legistar's public Web API (Granicus; `LEGISTAR_API_URL`, default https://webapi.legistar.com):
// `GET /v1/{client}/events` answers a JSON array of meetings, each with its body's name
// ("City Council"), date and local time ("6:00 PM"), location, agenda file and meeting page. They
// join the town calendar as civic events, with the agenda link. The API gives local wall times with
// no zone: they are stored floating and read in the town's zone.

/** One event as the API sends it (the fields read here; it sends many more). */
interface LegistarEvent {
  EventId: number;
  EventBodyName?: string | null;
  EventDate?: string | null;
  EventTime?: string | null;
  EventLocation?: string | null;
  EventAgendaFile?: string | null;
  EventInSiteURL?: string | null;
  EventAgendaStatusName?: string | null;
  EventMinutesStatusName?: string | null;
  EventComment?: string | null;
}

/**
 * The events address stored for a Legistar client: the latest 100 meetings, newest first, so the
 * same address serves every morning (no date in it) and includes the coming weeks' agendas.
 */
export function legistarEventsUrl(apiUrl: string, client: string): string {
  const url = new URL(`/v1/${encodeURIComponent(client)}/events`, `${apiUrl.replace(/\/+$/, "")}/`);
  url.search = "$orderby=EventDate desc&$top=100";
  return url.href.replace(/\$/g, "%24").replace(/ /g, "+");
}

/** True when the text is Legistar's events answer (a JSON array of objects with EventId). */
export function looksLikeLegistarEvents(text: string): boolean {
  const t = text.trimStart();
  if (!t.startsWith("[")) return false;
  return t.replace(/\s+/g, "") === "[]" || /^\[\s*\{[^]*?"EventId"\s*:/.test(t.slice(0, 2000));
}

/** "6:00 PM" → "18:00"; null for what is not a time. */
export function legistarTime(raw: string | null | undefined): string | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*([AP])\.?\s*M\.?\s*$/i.exec(raw ?? "");
  if (!m) return null;
  let h = Number(m[1]) % 12;
  if (m[3]!.toUpperCase() === "P") h += 12;
  return `${String(h).padStart(2, "0")}:${m[2]}`;
}

/** "City Council" → "City Council meeting"; names that already say what they are stay as they are. */
export function meetingTitle(body: string): string {
  return /\b(meeting|session|hearing|workshop|retreat)\b/i.test(body) ? body : `${body} meeting`;
}

/** Legistar's events as calendar occurrences within [from, to) (wall dates compared as dates). */
export function parseLegistarEvents(text: string, window: { from: Date; to: Date }): CalendarOccurrence[] {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (err) {
    throw new SourceError("invalid", `not Legistar's events JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(rows)) throw new SourceError("invalid", "not Legistar's events JSON (not an array)");
  // A day either side: the wall date is local to the town, the window is in UTC.
  const fromDate = new Date(window.from.getTime() - 86_400_000).toISOString().slice(0, 10);
  const toDate = new Date(window.to.getTime() + 86_400_000).toISOString().slice(0, 10);
  const out: CalendarOccurrence[] = [];
  for (const e of rows as LegistarEvent[]) {
    if (!e || typeof e.EventId !== "number" || !e.EventBodyName || !e.EventDate) continue;
    const date = /^(\d{4}-\d{2}-\d{2})/.exec(e.EventDate)?.[1];
    if (!date || date < fromDate || date >= toDate) continue;
    const comment = plainText(e.EventComment ?? "", 300);
    if (/cancel/i.test(`${comment} ${e.EventAgendaStatusName ?? ""}`)) continue;
    const time = legistarTime(e.EventTime);
    out.push({
      key: `legistar:${e.EventId}`,
      title: meetingTitle(plainText(e.EventBodyName, 200)),
      description: comment,
      url: safeUrl(e.EventInSiteURL),
      agendaUrl: safeUrl(e.EventAgendaFile),
      venue: plainText(e.EventLocation ?? "", 300) || null,
      allDay: time === null,
      start: time ? `${date}T${time}` : date,
      end: null,
    });
  }
  return out.sort((a, b) => a.start.localeCompare(b.start));
}
