// Formatters shared by the pages. Intl objects are costly to create, so each is made once per process.
const longDate = new Intl.DateTimeFormat("en-US", { weekday: "long", month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });
const mediumDate = new Intl.DateTimeFormat("en-US", { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });
const weekday = new Intl.DateTimeFormat("en-US", { weekday: "short", timeZone: "UTC" });
const monthYear = new Intl.DateTimeFormat("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
const int = new Intl.NumberFormat("en-US");
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const dec1 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

const noon = (iso: string) => new Date(`${iso}T12:00:00Z`);

/** "Saturday, November 21, 2026" for a YYYY-MM-DD date. */
export const formatLongDate = (iso: string) => longDate.format(noon(iso));
/** "November 21, 2026". */
export const formatDate = (iso: string) => mediumDate.format(noon(iso));
/** "Sat". */
export const formatWeekday = (iso: string) => weekday.format(noon(iso));
/** "November 2026" for a YYYY-MM month. */
export const formatMonth = (yyyyMm: string) => monthYear.format(noon(`${yyyyMm}-15`));
/** "December 22, 2026 at 12:00 UTC" for an ISO instant (the operator desk speaks UTC). */
export const formatInstantUtc = (iso: string) => {
  const at = new Date(iso);
  return `${mediumDate.format(at)} at ${at.toISOString().slice(11, 16)} UTC`;
};
export const formatInt = (n: number) => int.format(Math.round(n));
export const formatUsd = (n: number) => usd.format(n);
export const formatDec1 = (n: number) => dec1.format(n);

/** Readers' name for an IANA zone ("Eastern Time", "Atlantic Time"): src/core/places/zone-names.ts. */
