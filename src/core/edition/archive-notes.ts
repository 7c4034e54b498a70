// What the town's own archive can say about today's weather: a notable change (the lead's last
// resort), "a year ago today" and the records the stored editions support. Pure: the stored days
// come in as src/store/morning/town-reads.ts weatherHistoriesOf reads them.
import { addDays } from "../../lib/time.ts";
import { describeWeatherCode } from "../weather/wmo.ts";

export interface DayWeather { date: string; high: number; low: number; code: number }

const SNOW_CODES = new Set([71, 73, 75, 77, 85, 86]);
const MONTH_DAY = new Intl.DateTimeFormat("en-US", { month: "long", day: "numeric", timeZone: "UTC" });
const f = (n: number) => `${Math.round(n)}°F`;

/** Freeze and snow "seasons" start on July 1: the first freeze of autumn is the one that counts. */
function seasonStart(date: string): string {
  const y = Number(date.slice(0, 4));
  return date.slice(5) >= "07-01" ? `${y}-07-01` : `${y - 1}-07-01`;
}

/** The archive covers the season well enough to call something its "first": 14 or more stored days of it. */
function seasonCovered(history: DayWeather[], date: string): DayWeather[] | null {
  const start = seasonStart(date);
  const season = history.filter((d) => d.date >= start && d.date < date);
  return season.length >= 14 ? season : null;
}

export interface WeatherChange { key: "first-freeze" | "first-snow" | "warmer" | "colder"; subject: string; sentence: string }

/** A change in the weather worth leading with, or null: first freeze, first snow, 20°F warmer or colder than yesterday. */
export function weatherChange(today: { high: number; low: number; code: number }, date: string, history: DayWeather[]): WeatherChange | null {
  const season = seasonCovered(history, date);
  if (season && today.low <= 32 && season.every((d) => d.low > 32)) {
    return { key: "first-freeze", subject: `First freeze of the season, low ${f(today.low)}`, sentence: `The first freeze of the season: a low of ${f(today.low)} is forecast, the first at or below freezing since July in our records. Cover tender plants and let faucets drip if pipes are exposed.` };
  }
  if (season && SNOW_CODES.has(today.code) && season.every((d) => !SNOW_CODES.has(d.code))) {
    return { key: "first-snow", subject: "First snow of the season", sentence: `The first snow of the season is in the forecast (${describeWeatherCode(today.code).condition.toLowerCase()}), with a high of ${f(today.high)}.` };
  }
  const yesterday = history.find((d) => d.date === addDays(date, -1));
  if (yesterday) {
    const diff = Math.round(today.high) - Math.round(yesterday.high);
    if (diff >= 20) return { key: "warmer", subject: `${diff}°F warmer than yesterday, high ${f(today.high)}`, sentence: `A high of ${f(today.high)} today, ${diff}°F warmer than yesterday's ${f(yesterday.high)}.` };
    if (diff <= -20) return { key: "colder", subject: `${-diff}°F colder than yesterday, high ${f(today.high)}`, sentence: `A high of only ${f(today.high)} today, ${-diff}°F colder than yesterday's ${f(yesterday.high)}.` };
  }
  return null;
}

/** Same day a year earlier (Feb 29 has none). */
export function yearAgo(date: string): string | null {
  const y = Number(date.slice(0, 4)) - 1;
  const d = `${y}${date.slice(4)}`;
  return addDays(d, 0) === d ? d : null;
}

/**
 * "From the archive": a year ago today (when there is an edition that date) and today's forecast
 * against every stored edition of the same calendar day ("warmest November 24 in our records").
 * Each item is one sentence; `link` is the dated edition it cites, if any.
 */
export function archiveNotes(today: { high: number; low: number } | null, date: string, history: DayWeather[]): Array<{ text: string; link: string | null }> {
  const out: Array<{ text: string; link: string | null }> = [];
  const ago = yearAgo(date);
  const then = ago ? history.find((d) => d.date === ago) : undefined;
  if (then) {
    const cond = describeWeatherCode(then.code).condition.toLowerCase();
    const compare = today ? ` (today: ${f(today.high)})` : "";
    out.push({ text: `A year ago today: ${cond}, a high of ${f(then.high)}${compare} and a low of ${f(then.low)}.`, link: then.date });
  }
  const sameDay = history.filter((d) => d.date.slice(5) === date.slice(5) && d.date < date);
  // One earlier year is a comparison, not a record: records need two or more.
  if (today && new Set(sameDay.map((d) => d.date.slice(0, 4))).size >= 2) {
    const day = MONTH_DAY.format(new Date(`${date}T12:00:00Z`));
    const since = sameDay[0]!.date.slice(0, 4);
    if (today.high > Math.max(...sameDay.map((d) => d.high))) out.push({ text: `A forecast high of ${f(today.high)} would make this the warmest ${day} in our records (since ${since}).`, link: null });
    else if (today.high < Math.min(...sameDay.map((d) => d.high))) out.push({ text: `A forecast high of ${f(today.high)} would make this the coldest ${day} in our records (since ${since}).`, link: null });
    if (today.low < Math.min(...sameDay.map((d) => d.low))) out.push({ text: `The forecast low of ${f(today.low)} would be the lowest on a ${day} in our records (since ${since}).`, link: null });
  }
  return out;
}
