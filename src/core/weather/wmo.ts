/** A WMO weather interpretation code (WMO 4677 as used by Open-Meteo) in plain English. */
export interface WeatherCondition {
  condition: string;
  emoji: string;
}

/**
 * Every code Open-Meteo documents for `weather_code`. Wording is for a U.S. reader
 * ("Light rain", not "Rain: slight intensity").
 */
export const WMO_CONDITIONS: Readonly<Record<number, WeatherCondition>> = {
  0: { condition: "Clear sky", emoji: "☀️" },
  1: { condition: "Mostly clear", emoji: "🌤️" },
  2: { condition: "Partly cloudy", emoji: "⛅" },
  3: { condition: "Overcast", emoji: "☁️" },
  45: { condition: "Fog", emoji: "🌫️" },
  48: { condition: "Freezing fog", emoji: "🌫️" },
  51: { condition: "Light drizzle", emoji: "🌦️" },
  53: { condition: "Drizzle", emoji: "🌦️" },
  55: { condition: "Heavy drizzle", emoji: "🌧️" },
  56: { condition: "Light freezing drizzle", emoji: "🌧️" },
  57: { condition: "Heavy freezing drizzle", emoji: "🌧️" },
  61: { condition: "Light rain", emoji: "🌦️" },
  63: { condition: "Rain", emoji: "🌧️" },
  65: { condition: "Heavy rain", emoji: "🌧️" },
  66: { condition: "Light freezing rain", emoji: "🌧️" },
  67: { condition: "Heavy freezing rain", emoji: "🌧️" },
  71: { condition: "Light snow", emoji: "🌨️" },
  73: { condition: "Snow", emoji: "🌨️" },
  75: { condition: "Heavy snow", emoji: "❄️" },
  77: { condition: "Snow grains", emoji: "🌨️" },
  80: { condition: "Light rain showers", emoji: "🌦️" },
  81: { condition: "Rain showers", emoji: "🌧️" },
  82: { condition: "Violent rain showers", emoji: "⛈️" },
  85: { condition: "Light snow showers", emoji: "🌨️" },
  86: { condition: "Heavy snow showers", emoji: "❄️" },
  95: { condition: "Thunderstorm", emoji: "⛈️" },
  96: { condition: "Thunderstorm with hail", emoji: "⛈️" },
  99: { condition: "Thunderstorm with heavy hail", emoji: "⛈️" },
};

/** Shown for a code outside the documented set (WMO 4677 has 100 codes; Open-Meteo uses 28). */
export const UNKNOWN_CONDITION: WeatherCondition = { condition: "Unknown conditions", emoji: "🌡️" };

export function describeWeatherCode(code: number): WeatherCondition {
  return Object.hasOwn(WMO_CONDITIONS, code) ? WMO_CONDITIONS[code]! : UNKNOWN_CONDITION;
}
