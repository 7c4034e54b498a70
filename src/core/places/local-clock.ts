import { localDate, localWallTime } from "../../lib/time.ts";
import { timeZoneName } from "./zone-names.ts";

/** A town's clock: today's date, weekday and time there, and its zone (the contract's `LocalClock`). */
export interface LocalClock {
  timezone: string;
  timezoneName: string;
  localDate: string;
  weekday: string;
  localTime: string;
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** The town's clock at `now`: today's date, weekday and time there, so no model counts days from its own clock. */
export function localClock(timezone: string, now: Date): LocalClock {
  const date = localDate(now, timezone);
  return {
    timezone,
    timezoneName: timeZoneName(timezone),
    localDate: date,
    weekday: WEEKDAYS[new Date(`${date}T12:00:00Z`).getUTCDay()]!,
    localTime: localWallTime(now, timezone).slice(11, 16),
  };
}

