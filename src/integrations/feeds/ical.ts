import ICAL from "ical.js";
import { compile } from "html-to-text";
import { safeUrl } from "../../lib/safe-url.ts";
import { localWallTime, wallTimeToInstant } from "../../lib/time.ts";
import type { CalendarOccurrence } from "../../core/calendar/calendar-events.ts";
import { SourceError } from "../http-json.ts";

// iCalendar (RFC 5545) feeds with ical.js: recurrences expanded (RRULE, RDATE, EXDATE, moved
// occurrences by RECURRENCE-ID), VTIMEZONE honoured, all-day events kept as dates. A feed is parsed
// once per fetch into occurrences over a window; each town then takes its 7 days in its own zone.

export interface ParsedCalendar {
  /** `X-WR-CALNAME` or `NAME`, when the feed names itself. */
  title: string | null;
  occurrences: CalendarOccurrence[];
}

/** At most this many occurrences are kept per feed, and this many steps taken per recurrence rule (a FREQ=SECONDLY rule cannot hang the morning). */
const MAX_OCCURRENCES = 2000;
const MAX_STEPS = 5000;
const MAX_TEXT = 2000;

// Compiled once: building html-to-text's options costs more than converting a title.
const htmlToText = compile({ wordwrap: false, selectors: [{ selector: "a", options: { ignoreHref: true } }, { selector: "img", format: "skip" }] });

/** Plain text from a property that may carry HTML (some CMSs put markup in SUMMARY and DESCRIPTION). */
export function plainText(value: unknown, max = MAX_TEXT): string {
  if (typeof value !== "string" || !value) return "";
  const text = /<[a-z!/][^>]*>|&[#a-z0-9]+;/i.test(value) ? htmlToText(value) : value;
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** An event's URL, relative ones (CivicPlus writes `URL:/Calendar.aspx?EID=...`) resolved against the feed's address. */
function resolveUrl(raw: string, base: string | undefined): string | null {
  if (!raw.trim()) return null;
  try {
    return safeUrl(new URL(raw.trim(), base).href);
  } catch {
    return null;
  }
}

/** True when the text is an iCalendar object (what "kind detected on add" looks at first). */
export function looksLikeCalendar(text: string): boolean {
  return /^\uFEFF?\s*BEGIN:VCALENDAR/i.test(text);
}

// Whether the runtime knows a zone name: a fact about the runtime, memoised like time.ts's formatters.
const knownZones = new Map<string, boolean>();
const isIanaZone = (zone: string) => {
  let known = knownZones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    if (knownZones.size < 1000) knownZones.set(zone, known);
  }
  return known;
};

/** A stored start/end for an ICAL.Time: date, instant, or floating wall time. */
function stamp(time: ICAL.Time, tzidParam: string | null): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const date = `${time.year}-${pad(time.month)}-${pad(time.day)}`;
  if (time.isDate) return date;
  const wall = `${date}T${pad(time.hour)}:${pad(time.minute)}`;
  const tzid = time.zone?.tzid;
  if (tzid && tzid !== "floating") return time.toJSDate().toISOString().replace(/\.\d{3}Z$/, "Z");
  // A TZID without its VTIMEZONE (allowed in practice, not by the RFC): an IANA name is enough.
  if (tzidParam && isIanaZone(tzidParam)) return wallTimeToInstant(`${wall}:${pad(time.second)}`, tzidParam).toISOString().replace(/\.\d{3}Z$/, "Z");
  return wall;
}

/**
 * Parses an iCalendar text and expands its events over [from, to). Throws SourceError("invalid")
 * for what is not a calendar.
 */
export function parseCalendar(text: string, window: { from: Date; to: Date }, base?: string): ParsedCalendar {
  if (!looksLikeCalendar(text)) throw new SourceError("invalid", "not an iCalendar file (no BEGIN:VCALENDAR)");
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text.replace(/^\uFEFF/, "")) as unknown[]);
  } catch (err) {
    throw new SourceError("invalid", `not a readable iCalendar file: ${(err as Error).message}`);
  }
  const calendar = root.name === "vcalendar" ? root : root.getFirstSubcomponent("vcalendar");
  if (!calendar) throw new SourceError("invalid", "not an iCalendar file (no VCALENDAR)");
  const title = plainText(calendar.getFirstPropertyValue("x-wr-calname") ?? calendar.getFirstPropertyValue("name"), 200) || null;
  // A VTIMEZONE named by an IANA zone is read from the runtime's zone database instead (see stamp):
  // its rules are current, and ical.js would expand the feed's rules from their first year on each parse.
  for (const vtz of calendar.getAllSubcomponents("vtimezone")) {
    const tzid = vtz.getFirstPropertyValue("tzid");
    if (typeof tzid === "string" && isIanaZone(tzid)) calendar.removeSubcomponent(vtz);
  }

  const vevents = calendar.getAllSubcomponents("vevent");
  // Occurrences moved or changed by RECURRENCE-ID belong to their series.
  const exceptions = new Map<string, ICAL.Component[]>();
  const masters: ICAL.Component[] = [];
  for (const v of vevents) {
    const uid = String(v.getFirstPropertyValue("uid") ?? "");
    if (v.hasProperty("recurrence-id")) exceptions.set(uid, [...(exceptions.get(uid) ?? []), v]);
    else masters.push(v);
  }

  const from = ICAL.Time.fromJSDate(window.from, true);
  const to = ICAL.Time.fromJSDate(window.to, true);
  const occurrences: CalendarOccurrence[] = [];
  for (const v of masters) {
    if (occurrences.length >= MAX_OCCURRENCES) break;
    if (String(v.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED") continue;
    let event: ICAL.Event;
    try {
      event = new ICAL.Event(v);
      if (!event.startDate) continue;
      for (const ex of exceptions.get(event.uid) ?? []) event.relateException(ex);
    } catch {
      continue; // one unreadable event does not spoil the calendar
    }
    const tzidParam = (v.getFirstProperty("dtstart")?.getParameter("tzid") as string | undefined) ?? null;
    const push = (start: ICAL.Time, end: ICAL.Time | null, item: ICAL.Event) => {
      if (String(item.component.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED") return;
      const s = stamp(start, tzidParam);
      occurrences.push({
        key: `${event.uid || item.summary}|${s}`,
        title: plainText(item.summary, 300) || "Untitled event",
        description: plainText(item.description),
        url: resolveUrl(String(item.component.getFirstPropertyValue("url") ?? ""), base),
        venue: plainText(item.location, 300) || null,
        allDay: start.isDate,
        start: s,
        end: end ? stamp(end, tzidParam) : null,
      });
    };
    const overlaps = (start: ICAL.Time, end: ICAL.Time | null) => start.compare(to) < 0 && (end ?? start).compare(from) >= 0;
    if (!event.isRecurring()) {
      if (overlaps(event.startDate, event.endDate)) push(event.startDate, event.endDate, event);
      continue;
    }
    const it = event.iterator();
    for (let step = 0, next = it.next(); next && step < MAX_STEPS && occurrences.length < MAX_OCCURRENCES; step++, next = it.next()) {
      if (next.compare(to) >= 0) break;
      let details;
      try {
        details = event.getOccurrenceDetails(next);
      } catch {
        continue;
      }
      if (overlaps(details.startDate, details.endDate)) push(details.startDate, details.endDate, details.item);
    }
  }
  return { title, occurrences };
}
