import { z } from "zod";
import { WeatherResponse } from "../../contract/resources.ts";

/*
 * The weather snapshot: what a weather provider answers (src/integrations/weather/), what the morning
 * pipeline stores with an edition (`editions.weather_json`), what /api/weather serves from it (today)
 * and what the site charts (the week). One schema validates it wherever stored JSON is read back.
 */

export const DailyForecast = z.object({
  /** YYYY-MM-DD, local to the city. */
  date: z.string(),
  /** °F */
  high: z.number(),
  low: z.number(),
  /** WMO weather interpretation code. */
  code: z.int(),
  /** Percent; null when the provider has none. */
  precipitationChance: z.number().nullable().default(null),
  /** Local ISO times, e.g. 2026-11-22T06:41. */
  sunrise: z.string().optional(),
  sunset: z.string().optional(),
  /** The day's highest UV index (Open-Meteo `uv_index_max`); absent in snapshots stored before it was asked for. */
  uvIndexMax: z.number().nullable().optional(),
});

export const WeatherSnapshot = z.object({
  today: WeatherResponse,
  /** Today first, then the coming days (up to 7). */
  daily: z.array(DailyForecast),
});

export type DailyForecast = z.infer<typeof DailyForecast>;
export type WeatherSnapshot = z.infer<typeof WeatherSnapshot>;

/** A stored snapshot read back part by part: a bad day or a bad `today` costs only itself. */
export interface StoredWeather {
  today: WeatherSnapshot["today"] | null;
  daily: DailyForecast[];
}

/**
 * Reads `editions.weather_json` with the snapshot's schema. Unreadable JSON, or a part that does not
 * match, reads as missing (older or hand-made rows must not break a page or the API).
 */
export function readStoredWeather(json: string | null | undefined): StoredWeather {
  if (!json) return { today: null, daily: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { today: null, daily: [] };
  }
  // One parse of the whole snapshot is the common case (a full rebuild reads every edition's); only a
  // snapshot that fails it is read part by part.
  const whole = WeatherSnapshot.safeParse(raw);
  if (whole.success) return whole.data;
  const w = (raw ?? {}) as { today?: unknown; daily?: unknown };
  const today = WeatherSnapshot.shape.today.safeParse(w.today);
  const daily = Array.isArray(w.daily) ? w.daily.flatMap((d) => {
    const day = DailyForecast.safeParse(d);
    return day.success ? [day.data] : [];
  }) : [];
  return { today: today.success ? today.data : null, daily };
}
