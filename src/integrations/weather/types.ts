import type { WeatherResponse } from "../../contract/resources.ts";

export interface DailyForecast {
  date: string;            // YYYY-MM-DD, local to the city
  high: number;            // °F
  low: number;             // °F
  code: number;            // WMO code
  precipitationChance: number | null; // percent
  sunrise?: string;        // local ISO time, e.g. 2026-11-22T06:41
  sunset?: string;
}

/** What the morning pipeline stores with an edition (`editions.weather_json`) and /api/weather serves. */
export interface WeatherSnapshot {
  today: WeatherResponse;
  /** Today first, then the coming days (up to 7). */
  daily: DailyForecast[];
}

export interface WeatherLocation {
  latitude: number;
  longitude: number;
  timezone: string;
}

/** The weather provider (Open-Meteo in production, a recorded-response server in tests). */
export interface WeatherProvider {
  /** Rejects on upstream error or timeout; never hangs past its own timeout. */
  forecast(location: WeatherLocation): Promise<WeatherSnapshot>;
}
