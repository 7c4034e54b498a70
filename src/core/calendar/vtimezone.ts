// A VTIMEZONE component (RFC 5545 section 3.6.5) for an IANA zone, from the zone rules the runtime's
// Intl knows: one observance per actual transition in the years asked for, so it is right for zones
// whose rules changed and needs no rule table of its own. Pure; the town calendar (/{slug}/calendar.ics)
// passes it to ical-generator as its time zone generator.

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
const nameFormats = new Map<string, Intl.DateTimeFormat>();

function part(cache: Map<string, Intl.DateTimeFormat>, timeZone: string, option: "longOffset" | "short", t: number): string {
  let f = cache.get(timeZone);
  if (!f) cache.set(timeZone, (f = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: option })));
  return f.formatToParts(new Date(t)).find((p) => p.type === "timeZoneName")?.value ?? "";
}

/** The zone's offset from UTC at instant `t`, in minutes ("GMT-05:00" is -300). */
export function offsetMinutesAt(timeZone: string, t: number): number {
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(part(offsetFormats, timeZone, "longOffset", t));
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

const utcOffset = (minutes: number) => `${minutes < 0 ? "-" : "+"}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, "0")}${String(Math.abs(minutes) % 60).padStart(2, "0")}`;
/** `YYYYMMDDTHHMMSS` of an instant shifted by `offset` minutes (a local time as iCalendar writes it). */
const localStamp = (t: number, offset: number) => new Date(t + offset * 60_000).toISOString().slice(0, 19).replace(/[-:]/g, "");

interface Transition { at: number; from: number; to: number }

/** The instants in [from, to) at which the zone's offset changes, found day by day and then to the minute. */
function transitions(timeZone: string, from: number, to: number): Transition[] {
  const out: Transition[] = [];
  let before = offsetMinutesAt(timeZone, from);
  for (let day = from; day < to; day += 86_400_000) {
    const next = Math.min(day + 86_400_000, to);
    const after = offsetMinutesAt(timeZone, next);
    if (after === before) continue;
    let lo = day;
    let hi = next;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetMinutesAt(timeZone, mid) === before) lo = mid;
      else hi = mid;
    }
    out.push({ at: hi, from: before, to: after });
    before = after;
  }
  return out;
}

/**
 * The VTIMEZONE of `timeZone` for the years `fromYear` to `toYear`: its offset at the start, then
 * each transition (DAYLIGHT when the offset is above the zone's smallest in the span, else STANDARD)
 * with DTSTART in the local time before it, as RFC 5545 has it.
 */
export function vtimezone(timeZone: string, fromYear: number, toYear: number): string {
  const key = `${timeZone} ${fromYear} ${toYear}`;
  let text = made.get(key);
  if (text === undefined) made.set(key, (text = makeVtimezone(timeZone, fromYear, toYear)));
  return text;
}

// Finding the transitions takes ~700 Intl calls a year (about 10 ms); the answer depends only on the
// arguments and the runtime's zone data, so each is made once per process (a few hundred zones at most).
const made = new Map<string, string>();

function makeVtimezone(timeZone: string, fromYear: number, toYear: number): string {
  const start = Date.UTC(fromYear, 0, 1);
  const changes = transitions(timeZone, start, Date.UTC(toYear + 1, 0, 1));
  const initial = offsetMinutesAt(timeZone, start);
  const standard = Math.min(initial, ...changes.map((c) => c.to));
  const name = (t: number) => part(nameFormats, timeZone, "short", t).replace(/[^A-Za-z0-9+-]/g, "");
  const observance = (t: number, from: number, to: number, dtstart = localStamp(t, from)) => {
    const kind = to > standard ? "DAYLIGHT" : "STANDARD";
    return [`BEGIN:${kind}`, `DTSTART:${dtstart}`, `TZOFFSETFROM:${utcOffset(from)}`, `TZOFFSETTO:${utcOffset(to)}`, `TZNAME:${name(t)}`, `END:${kind}`];
  };
  return [
    "BEGIN:VTIMEZONE",
    `TZID:${timeZone}`,
    `X-LIC-LOCATION:${timeZone}`,
    ...observance(start, initial, initial, `${String(fromYear).padStart(4, "0")}0101T000000`),
    ...changes.flatMap((c) => observance(c.at, c.from, c.to)),
    "END:VTIMEZONE",
  ].join("\r\n");
}
