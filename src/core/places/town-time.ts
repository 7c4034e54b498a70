// A deadline a person acts on (a sign-in link, a checkout, a reservation), on the town's own clock with
// its zone's abbreviation: "5:15 AM MST on November 22", not a UTC time to convert in their head.

const formats = new Map<string, Intl.DateTimeFormat>();

/** "5:15 AM MST on November 22" for an ISO instant in `timeZone` (an IANA zone). */
export function townTimeWords(iso: string, timeZone: string): string {
  let f = formats.get(timeZone);
  if (!f) formats.set(timeZone, (f = new Intl.DateTimeFormat("en-US", { timeZone, month: "long", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short" })));
  const p = Object.fromEntries(f.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return `${p.hour}:${p.minute} ${p.dayPeriod} ${p.timeZoneName} on ${p.month} ${p.day}`;
}
