// Intl.DateTimeFormat construction is costly (tens of microseconds); a morning run asks for
// thousands of local dates in a few hundred zones, so the formatters are kept per zone.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const hourFormats = new Map<string, Intl.DateTimeFormat>();

function formatter(cache: Map<string, Intl.DateTimeFormat>, timeZone: string, options: Intl.DateTimeFormatOptions, locale: string) {
  let f = cache.get(timeZone);
  if (!f) cache.set(timeZone, (f = new Intl.DateTimeFormat(locale, { timeZone, ...options })));
  return f;
}

/** Calendar date (YYYY-MM-DD) at `instant` in an IANA timezone. */
export function localDate(instant: Date, timeZone: string): string {
  // en-CA formats as YYYY-MM-DD.
  return formatter(dateFormats, timeZone, { year: "numeric", month: "2-digit", day: "2-digit" }, "en-CA").format(instant);
}

/** Hour of day (0-23) at `instant` in an IANA timezone. */
export function localHour(instant: Date, timeZone: string): number {
  return Number(formatter(hourFormats, timeZone, { hour: "numeric", hourCycle: "h23" }, "en-US").format(instant));
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** Local wall time `YYYY-MM-DDTHH:mm` at `instant` in an IANA timezone (how events are given to the composer). */
export function localWallTime(instant: Date, timeZone: string): string {
  // sv-SE formats as "YYYY-MM-DD HH:mm".
  return formatter(wallFormats, timeZone, { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, "sv-SE").format(instant).replace(" ", "T");
}

/**
 * The instant at which an IANA zone's clocks read `wall` (`YYYY-MM-DDTHH:mm[:ss]`). In a gap (spring
 * forward) it is the later offset's reading; in an overlap, the earlier instant.
 */
export function wallTimeToInstant(wall: string, timeZone: string): Date {
  const [y, mo, d, h = 0, mi = 0, s = 0] = wall.split(/[-T:]/).map(Number) as number[];
  const target = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const offsetAt = (t: number) => Date.parse(`${localWallTime(new Date(t), timeZone)}:00Z`) - Math.floor(t / 60_000) * 60_000;
  const first = target - offsetAt(target);
  const second = target - offsetAt(first);
  const reads = (t: number) => localWallTime(new Date(t), timeZone) === wall.slice(0, 16);
  if (reads(second)) return new Date(second);
  if (reads(first)) return new Date(first);
  return new Date(Math.max(first, second)); // in a gap: the later offset's reading

}

/** `date` plus `n` calendar days (dates are timezone-free here). */
export function addDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
