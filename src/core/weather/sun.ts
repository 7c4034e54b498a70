import { getTimes } from "suncalc";

export interface SunTimes {
  /** Local clock time, e.g. `6:41 AM`; null when the sun does not rise (or set) that day. */
  sunrise: string | null;
  sunset: string | null;
  /** Length of daylight in minutes, when both are known. */
  daylightMinutes: number | null;
  source: "open-meteo" | "suncalc";
}

export interface SunInput {
  date: string;        // YYYY-MM-DD, local to the city
  latitude: number;
  longitude: number;
  timezone: string;
  /** Open-Meteo's daily sunrise/sunset (local ISO, e.g. `2026-11-22T06:41`), preferred when present. */
  forecast?: { sunrise?: string; sunset?: string };
}

const LOCAL_ISO = /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})/;

function clock(hours: number, minutes: number): string {
  const h12 = hours % 12 === 0 ? 12 : hours % 12;
  return `${h12}:${String(minutes).padStart(2, "0")} ${hours < 12 ? "AM" : "PM"}`;
}

const clocks = new Map<string, Intl.DateTimeFormat>();

function localParts(instant: Date, timeZone: string): { h: number; m: number } {
  let f = clocks.get(timeZone);
  if (!f) clocks.set(timeZone, (f = new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", minute: "numeric", hourCycle: "h23" })));
  const parts = f.formatToParts(instant);
  return { h: Number(parts.find((p) => p.type === "hour")!.value), m: Number(parts.find((p) => p.type === "minute")!.value) };
}

/** Sunrise and sunset in the city's own clock: the forecast's figures if it has them, else computed with suncalc. */
export function sunTimes(input: SunInput): SunTimes {
  const rise = input.forecast?.sunrise?.match(LOCAL_ISO);
  const set = input.forecast?.sunset?.match(LOCAL_ISO);
  if (rise && set) {
    const r = { h: Number(rise[1]), m: Number(rise[2]) };
    const s = { h: Number(set[1]), m: Number(set[2]) };
    const minutes = s.h * 60 + s.m - (r.h * 60 + r.m);
    return { sunrise: clock(r.h, r.m), sunset: clock(s.h, s.m), daylightMinutes: minutes > 0 ? minutes : null, source: "open-meteo" };
  }
  // Approximate local solar noon of that date: suncalc picks the events of the day around the instant given.
  const [y, mo, d] = input.date.split("-").map(Number);
  const noon = new Date(Date.UTC(y!, mo! - 1, d!, 12) - (input.longitude / 15) * 3_600_000);
  const t = getTimes(noon, input.latitude, input.longitude);
  const ok = (x: Date | null): x is Date => x instanceof Date && !Number.isNaN(x.getTime());
  const sunrise = ok(t.sunrise) ? localParts(t.sunrise, input.timezone) : null;
  const sunset = ok(t.sunset) ? localParts(t.sunset, input.timezone) : null;
  return {
    sunrise: sunrise && clock(sunrise.h, sunrise.m),
    sunset: sunset && clock(sunset.h, sunset.m),
    daylightMinutes: ok(t.sunrise) && ok(t.sunset) ? Math.round((t.sunset.getTime() - t.sunrise.getTime()) / 60_000) : null,
    source: "suncalc",
  };
}
