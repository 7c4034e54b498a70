// A deadline a person acts on (a sign-in link, a checkout, a reservation), on the town's own clock with
// its zone's abbreviation: "5:15 AM MST on November 22", not a UTC time to convert in their head.

/** "5:15 AM MST on November 22" for an ISO instant in `timeZone` (an IANA zone). */
export function townTimeWords(iso: string, timeZone: string): string {
  // Made per call (no module-level cache): deadlines are words in a few emails and pages, not a hot path.
  const f = new Intl.DateTimeFormat("en-US", { timeZone, month: "long", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short" });
  const p = Object.fromEntries(f.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return `${p.hour}:${p.minute} ${p.dayPeriod} ${p.timeZoneName} on ${p.month} ${p.day}`;
}

/** The same, or the UTC time ("2026-11-22 12:30 UTC") when the zone is unknown (mail queued before it was recorded). */
export function deadlineWords(iso: string, timeZone: string | undefined): string {
  return timeZone ? townTimeWords(iso, timeZone) : `${iso.replace("T", " ").slice(0, 16)} UTC`;
}
