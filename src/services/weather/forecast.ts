import { WeatherUpstreamError } from "../../integrations/weather/open-meteo.ts";
import { WEATHER_CACHE } from "../../contract/operations/weather.ts";
import type { WeatherResponse } from "../../contract/resources.ts";
import { AppError } from "../../core/errors.ts";
import { localDate } from "../../lib/time.ts";
import { readStoredWeather } from "../../core/weather/snapshot.ts";
import { findEdition } from "../../store/morning/editions.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import { requireNewsletterTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";
import { reply, type Reply } from "../platform/reply.ts";

/** A live forecast is reused this long, so a burst of readers makes one upstream call. */
export const LIVE_WEATHER_TTL_MS = 15 * 60 * 1000;

export interface CityWeather {
  weather: WeatherResponse;
  /** `snapshot`: stored with today's edition; `live`: fetched from the provider (possibly cached). */
  source: "snapshot" | "live";
}

/** Today's stored snapshot, if today's edition has a readable one. */
function todaysSnapshot(ctx: AppContext, place: PlaceRow): WeatherResponse | undefined {
  const today = localDate(ctx.config.now(), place.timezone);
  const json = findEdition(ctx.db, place.geoid, today)?.weather_json;
  if (!json) return undefined;
  const stored = readStoredWeather(json).today;
  if (stored) return stored;
  ctx.log.warn({ geoid: place.geoid, date: today }, "edition weather snapshot unreadable; serving live weather");
  return undefined;
}

/**
 * Today's weather for a city: the snapshot stored with today's edition (so the API agrees with the
 * newsletter), otherwise a live forecast, cached per city for 15 minutes.
 */
export async function getCityWeather(ctx: AppContext, place: PlaceRow): Promise<CityWeather> {
  const snapshot = todaysSnapshot(ctx, place);
  if (snapshot) return { weather: snapshot, source: "snapshot" };
  try {
    const live = await ctx.weatherCache.get(place.geoid, () =>
      ctx.weather.forecast({ latitude: place.latitude, longitude: place.longitude, timezone: place.timezone }));
    return { weather: live.today, source: "live" };
  } catch (err) {
    // An outage (no network, a timeout, an error status) is expected: one line with the reason, once
    // a minute at most; anything else is a bug and keeps its stack.
    if (err instanceof WeatherUpstreamError) {
      const failures = ctx.weatherCache.failureToReport();
      if (failures !== undefined) ctx.log.warn({ kind: err.kind, reason: err.message, slug: place.slug, failures }, "live weather unavailable (logged at most once a minute)");
    } else {
      ctx.log.error({ err, slug: place.slug }, "live weather failed");
    }
    throw new AppError("weather_unavailable", `No weather for ${place.name}, ${place.state_name} right now: today's edition has no forecast yet and the live forecast could not be fetched.`);
  }
}

/**
 * GET /api/weather: the weather with the NWS alerts active now (live, asked alongside the forecast),
 * held by caches as long as its source stays right: an answer with alerts no longer than a live one.
 */
export async function getWeather(ctx: AppContext, slug: string): Promise<Reply<WeatherResponse>> {
  const place = requireNewsletterTown(ctx, slug);
  const [{ weather, source }, alerts, tides] = await Promise.all([
    getCityWeather(ctx, place),
    ctx.sources.alertsCache.get(place.geoid, { latitude: place.latitude, longitude: place.longitude }),
    todaysTides(ctx, place),
  ]);
  const answer = tides ? { ...weather, tides } : weather;
  if (alerts === null) return reply(answer, { cacheControl: WEATHER_CACHE[source] });
  return reply({ ...answer, alerts }, { cacheControl: WEATHER_CACHE.live });
}

/** How long an answer waits for its tides: only the tide worker's first load (a second or two) takes longer. */
const TIDES_WAIT_MS = 2000;

/** Today's tides for a coastal city, computed locally (no request); undefined inland, if the prediction fails, or while the predictor is still loading. */
async function todaysTides(ctx: AppContext, place: PlaceRow): Promise<WeatherResponse["tides"]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const t = await Promise.race([
      ctx.hazards.tides.day(place, localDate(ctx.config.now(), place.timezone)),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), TIDES_WAIT_MS))),
    ]);
    if (!t) return undefined;
    return { ...t, extremes: t.extremes.map((e) => ({ ...e, time: new Date(Math.round(Date.parse(e.time) / 60_000) * 60_000).toISOString() })) };
  } catch (err) {
    ctx.log.warn({ reason: (err as Error).message, slug: place.slug }, "tide prediction failed; /api/weather answers without tides");
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
