import { DEFAULT_PREFERENCES, DELIVERY_MINUTES, minuteToTime, SECTION_KEYS, WEEKDAYS, type ReaderPreferences, type ReaderPreferencesUpdate, type SectionKey } from "../../contract/preferences.ts";
import { wallTimeToInstant } from "../../lib/time.ts";

// A reader's choices as the subscription stores them (subscribers.frequency, weekly_day,
// delivery_minute, hidden_sections) and as the contract speaks them. Pure.

export interface StoredPreferences {
  frequency: "daily" | "weekly";
  /** 0 = Sunday. */
  weekly_day: number;
  /** Minutes after the town's local midnight. */
  delivery_minute: number;
  /** Comma-separated section keys, in SECTION_KEYS order (see hiddenText). */
  hidden_sections: string;
}

/** "06:30" -> 390, or undefined when it is not one of the offered times. */
export function timeToMinute(time: string): number | undefined {
  const m = /^(\d{2}):(\d{2})$/.exec(time);
  if (!m) return undefined;
  const minute = Number(m[1]) * 60 + Number(m[2]);
  const { first, last, step } = DELIVERY_MINUTES;
  return minute >= first && minute <= last && (minute - first) % step === 0 ? minute : undefined;
}

/** "Saturday" for each of the contract's WEEKDAYS (0 = Sunday), as pages and emails say it. */
export const WEEKDAY_NAMES: readonly string[] = WEEKDAYS.map((d) => d[0]!.toUpperCase() + d.slice(1));

/**
 * How often a reader gets a town, as every page and email says it: "every morning", or "once a week,
 * on Saturdays" (`weeklyDay` 0 = Sunday).
 */
export function cadenceWords(frequency: "daily" | "weekly", weeklyDay: number): string {
  return frequency === "weekly" ? `once a week, on ${WEEKDAY_NAMES[weeklyDay] ?? "Saturday"}s` : "every morning";
}

/** "6:30 AM", as pages say it. */
export function timeLabel(minute: number): string {
  const h = Math.floor(minute / 60);
  return `${h % 12 === 0 ? 12 : h % 12}:${String(minute % 60).padStart(2, "0")} ${h < 12 ? "AM" : "PM"}`;
}

/** The stored list of hidden sections, known keys only, in one order: equal sets give equal text. */
export function hiddenText(keys: readonly string[]): string {
  const set = new Set(keys);
  return SECTION_KEYS.filter((k) => set.has(k)).join(",");
}

export function hiddenKeys(text: string): SectionKey[] {
  if (!text) return [];
  const set = new Set(text.split(","));
  return SECTION_KEYS.filter((k) => set.has(k));
}

export function fromStored(s: StoredPreferences): ReaderPreferences {
  return {
    frequency: s.frequency,
    weeklyDay: WEEKDAYS[s.weekly_day] ?? DEFAULT_PREFERENCES.weeklyDay,
    deliveryTime: minuteToTime(s.delivery_minute),
    hiddenSections: hiddenKeys(s.hidden_sections),
  };
}

/** The stored columns after `update` (fields it leaves out keep their value). */
export function applyUpdate(current: StoredPreferences, update: ReaderPreferencesUpdate): StoredPreferences {
  return {
    frequency: update.frequency ?? current.frequency,
    weekly_day: update.weeklyDay ? WEEKDAYS.indexOf(update.weeklyDay) : current.weekly_day,
    delivery_minute: update.deliveryTime ? timeToMinute(update.deliveryTime) ?? current.delivery_minute : current.delivery_minute,
    hidden_sections: update.hiddenSections ? hiddenText(update.hiddenSections) : current.hidden_sections,
  };
}

/**
 * The instant (epoch ms) the town's clocks read `minute` after midnight on `date`. The one offset of
 * 05:00 serves every time to 09:00: no U.S. zone changes its clocks between 5 and 9 in the morning
 * (they change at 2:00), so the outbox can take `fiveAm + (minute - 300) min` in one statement.
 */
export function deliveryInstant(date: string, timezone: string, minute: number): number {
  return fiveAmInstant(date, timezone) + (minute - DELIVERY_MINUTES.first) * 60_000;
}

export function fiveAmInstant(date: string, timezone: string): number {
  return wallTimeToInstant(`${date}T05:00`, timezone).getTime();
}

