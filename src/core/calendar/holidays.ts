import Holidays from "date-holidays";
import { addDays } from "../../lib/time.ts";

export interface HolidayNote {
  date: string;          // YYYY-MM-DD
  name: string;
  /** `federal`: a U.S. federal holiday; `state`: a public holiday of the city's state; `observance`: widely marked, not a day off. */
  kind: "federal" | "state" | "observance";
}

// date-holidays builds its rule set per country/state; keep one per state and one list per year.
const calendars = new Map<string, Holidays>();
const years = new Map<string, HolidayNote[]>();

function calendar(state?: string): Holidays {
  const key = state ?? "";
  let hd = calendars.get(key);
  if (!hd) {
    hd = state ? new Holidays("US", state, { types: ["public", "bank", "optional", "observance"] }) : new Holidays("US");
    // An unknown subdivision leaves the calendar uninitialised: fall back to the federal one.
    if (state && hd.getHolidays(2026).length === 0) hd = calendar();
    calendars.set(key, hd);
  }
  return hd;
}

function holidaysOfYear(year: number, stateCode?: string): HolidayNote[] {
  const key = `${year}:${stateCode ?? ""}`;
  let list = years.get(key);
  if (list) return list;
  const federal = new Set(calendar().getHolidays(year).filter((h) => h.type === "public").map((h) => `${h.date.slice(0, 10)}|${h.rule}`));
  list = calendar(stateCode).getHolidays(year).map((h) => {
    const date = h.date.slice(0, 10);
    const kind: HolidayNote["kind"] = federal.has(`${date}|${h.rule}`) ? "federal" : h.type === "public" ? "state" : "observance";
    return { date, name: h.name, kind };
  });
  // A state calendar may rename a federal day (Washington's Birthday is Presidents' Day); keep federal days it dropped.
  for (const f of calendar().getHolidays(year)) {
    const date = f.date.slice(0, 10);
    if (f.type === "public" && !list.some((h) => h.date === date && h.kind === "federal")) {
      const same = list.find((h) => h.date === date);
      if (same) same.kind = "federal";
      else list.push({ date, name: f.name, kind: "federal" });
    }
  }
  list.sort((a, b) => a.date.localeCompare(b.date));
  years.set(key, list);
  return list;
}

/** Holidays and observances on `date` (YYYY-MM-DD) for a city in `stateCode` (USPS code, e.g. `HI`). */
export function holidaysOn(date: string, stateCode?: string): HolidayNote[] {
  return holidaysOfYear(Number(date.slice(0, 4)), stateCode).filter((h) => h.date === date);
}

/** Holidays in the `days` days after `date` (not including it), soonest first. */
export function upcomingHolidays(date: string, stateCode: string | undefined, days = 7): HolidayNote[] {
  const end = addDays(date, days);
  const year = Number(date.slice(0, 4));
  const all = [...holidaysOfYear(year, stateCode), ...(end.slice(0, 4) !== date.slice(0, 4) ? holidaysOfYear(year + 1, stateCode) : [])];
  return all.filter((h) => h.date > date && h.date <= end);
}

