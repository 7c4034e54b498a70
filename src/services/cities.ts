import { townSourceList } from "../store/directory-sources.ts";
import type { Census, CensusCitiesResponse, CitiesResponse, CityResponse } from "../contract/resources.ts";
import { censusValues, censusYear } from "../core/census-fields.ts";
import { AppError } from "../core/errors.ts";
import { isWellFormedSlug } from "../core/slug.ts";
import { canonicalStateName } from "../core/states.ts";
import { activeSubscriberCount, isTrackedCity, listTrackedCities } from "../store/cities.ts";
import { cityArchive } from "../store/editions.ts";
import { findPlaceBySlug, placesByPopulation, type PlaceRow } from "../store/places.ts";
import type { AppContext } from "./context.ts";
import { cityListings } from "../site/city-listings.ts";
import { sweepCommerce } from "./listings.ts";

/** The place for a well-formed slug, whether or not it has a newsletter yet. */
export function requirePlace(ctx: AppContext, slug: string | undefined): PlaceRow {
  if (slug === undefined || slug === "") throw new AppError("missing_slug", "The path has no city slug.");
  if (!isWellFormedSlug(slug)) {
    throw new AppError("invalid_slug", `"${slug.slice(0, 130)}" is not a well-formed slug: expected {city}-{state-name} in lowercase, e.g. st-louis-missouri.`);
  }
  const place = findPlaceBySlug(ctx.db, slug);
  if (!place) throw new AppError("city_not_found", `No U.S. place has the slug "${slug}".`);
  return place;
}

/** The place for a slug, which must be a city: it has an active subscriber or a published edition. */
export function requireCity(ctx: AppContext, slug: string | undefined): PlaceRow {
  const place = requirePlace(ctx, slug);
  if (!isTrackedCity(ctx.db, place.geoid)) {
    throw new AppError("city_not_found", `${place.name}, ${place.state_name} has no newsletter yet; subscribing to it starts one.`);
  }
  return place;
}

export function listCities(ctx: AppContext): CitiesResponse {
  const rows = listTrackedCities(ctx.db);
  const states: CitiesResponse["states"] = [];
  for (const r of rows) {
    let group = states.at(-1);
    if (group?.state !== r.state_name) states.push((group = { state: r.state_name, cities: [] }));
    group.cities.push({ city: r.name, slug: r.slug });
  }
  return { states, totalCities: rows.length };
}

export interface CensusCitiesQuery {
  minPopulation: number;
  state?: string;
  hasSubscribers?: boolean;
}

export function listCensusCities(ctx: AppContext, q: CensusCitiesQuery): CensusCitiesResponse {
  let stateName: string | undefined;
  if (q.state !== undefined) {
    stateName = canonicalStateName(q.state);
    if (!stateName) {
      throw new AppError("validation_error", `Unknown state "${q.state}".`, {
        issues: [{ path: "state", message: "must be a full U.S. state name such as \"New York\" (or District of Columbia, Puerto Rico)" }],
      });
    }
  }
  const states: CensusCitiesResponse["states"] = [];
  let total = 0;
  for (const r of placesByPopulation(ctx.db, q.minPopulation, stateName)) {
    const has = r.has_subscribers === 1;
    if (q.hasSubscribers !== undefined && has !== q.hasSubscribers) continue;
    let group = states.at(-1);
    if (group?.state !== r.state_name) states.push((group = { state: r.state_name, cityCount: 0, totalPopulation: 0, cities: [] }));
    group.cities.push({ city: r.name, slug: r.slug, population: r.population, hasSubscribers: has });
    group.cityCount++;
    group.totalPopulation += r.population;
    total++;
  }
  return { states, totalCities: total, minPopulation: q.minPopulation };
}

/** The census object of the contract (fields from the census registry); figures not imported yet are null, never guessed. */
export function censusOf(p: PlaceRow): NonNullable<Census> {
  const year = censusYear(p);
  return { ...censusValues(p), ...(year ? { year } : {}) };
}

export function getCity(ctx: AppContext, slug: string | undefined): CityResponse {
  const place = requireCity(ctx, slug);
  sweepCommerce(ctx);
  const { events, directory } = cityListings(ctx.db, place, ctx.config.now());
  return {
    slug: place.slug,
    city: place.name,
    state: place.state_name,
    subscriberCount: activeSubscriberCount(ctx.db, place.geoid),
    archives: cityArchive(ctx.db, place.geoid),
    census: censusOf(place),
    events,
    directory,
    sources: townSourceList(ctx.db, place.geoid),
  };
}
