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
