import { z } from "zod";
import { READ_ONLY, type Operation } from "../operation.ts";
import { WeatherResponse } from "../resources.ts";

/**
 * A snapshot is fixed for the day it was published, so it may be held longer; a live forecast is
 * cached 15 minutes in the server, so the edge holds it no longer than that.
 */
export const WEATHER_CACHE = {
  snapshot: "public, max-age=1800, s-maxage=3600",
  live: "public, max-age=300, s-maxage=900",
} as const;

export const weatherOperations = {
  getWeather: {
    operationId: "getWeather", method: "GET", path: "/api/weather/{slug}", tags: ["Weather"],
    summary: "Today's weather in a city (°F, mph, percent), with active weather alerts",
    description: [
      "Today's weather for a city, in U.S. units: `high`, `low` and `current` in degrees Fahrenheit (°F), `windSpeed` in miles per hour (mph), `precipitationChance` in percent (0-100, today's maximum).",
      "`code` is the WMO weather interpretation code used by Open-Meteo; `condition` and `emoji` describe it. `latitude`, `longitude` and `timezone` are the city's; `asOf` is when the forecast was fetched.",
      "Source: once today's edition (today in the city's own timezone) is published, the forecast snapshot stored with it, so the API and the newsletter agree all day. Before that, a live Open-Meteo forecast for the city's coordinates, reused for 15 minutes.",
      "`alerts`: the National Weather Service's active warnings, watches and advisories for the city's point, most severe first, asked live (reused for at most 5 minutes); expired alerts are never listed. `[]` means none is active; the field is absent when the NWS could not be asked just now (the forecast is still answered).",
      "`uvIndexMax`: today's highest UV index, when the forecast has one (EPA scale: 6-7 high, 8-10 very high, 11+ extreme). `tides`: for a coastal city, today's predicted highs and lows (its local day) at the nearest NOAA tide station within 15 km, computed from NOAA's harmonic constants with Neaps (no upstream request; heights above the station's datum, MLLW, not for navigation); absent inland. Earthquakes and disaster declarations are not weather: they are in the edition (`/api/archive`).",
      `Caching: a snapshot answers with \`Cache-Control: ${WEATHER_CACHE.snapshot}\`, a live forecast, and any answer that lists alerts, with \`${WEATHER_CACHE.live}\`.`,
      "With no snapshot, an Open-Meteo failure or timeout (5 s by default) is 404 `weather_unavailable`; retry later. Weather data by Open-Meteo.com (CC BY 4.0); alerts from the National Weather Service (api.weather.gov, public domain).",
    ].join("\n\n"),
    params: z.object({ slug: z.string().meta({ description: "City slug `{city}-{state-name}`", examples: ["st-louis-missouri"] }) }),
    response: WeatherResponse,
    errors: ["invalid_slug", "missing_slug", "city_not_found", "weather_unavailable"],
    cache: WEATHER_CACHE.live,
    // Open world: without today's stored snapshot it asks Open-Meteo.
    mcp: {
      tool: "get_weather", title: "Today's weather in a city", annotations: { ...READ_ONLY, openWorldHint: true },
      description: "Today's weather in a town with a newsletter by `slug`, in °F and mph: high, low, now, the chance of rain, wind, the UV index, active alerts and, on the coast, the tides.",
    },
  },
} satisfies Record<string, Operation>;
