import { townSourceList } from "../../store/directory/sources.ts";
import type { Census, CensusCitiesResponse, CitiesResponse, CityResponse } from "../../contract/resources.ts";
import { censusValues, censusYear } from "../../contract/census-fields.ts";
import { AppError } from "../../core/errors.ts";
import { isWellFormedSlug } from "../../contract/slug.ts";
import { canonicalStateName } from "../../contract/states.ts";
import { activeSubscriberCount, townHasNewsletter, listNewsletterTowns } from "../../store/places/cities.ts";
import { cityArchive } from "../../store/morning/editions.ts";
import { findPlaceBySlug, placesByPopulation, type PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import type { ProblemExtra } from "../../contract/problems.ts";
import { findPlaces } from "../../site/place-ranking.js";
import { activeLeaseOf } from "../../store/commerce/leases.ts";
import { localClock } from "../../core/places/local-clock.ts";
import { placeIndex } from "./places.ts";
import { cityListings } from "../../site/city-listings.ts";

/** The slugs a mistyped one probably meant (the place finder's matches for its words), best first. */
function slugSuggestions(ctx: AppContext, slug: string): string[] {
  const words = slug.replace(/[^a-zA-Z0-9]+/g, " ").trim();
  return words.length < 2 ? [] : findPlaces(placeIndex(ctx), words, 3).map((p) => p.slug);
}

const meant = (suggestions: string[]) => (suggestions.length ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?` : "");

/**
 * The place for a well-formed slug, whether or not it has a newsletter yet. A malformed slug
 * (`St-Louis-Missouri`: URLs are canonical, so HTTP does not fold case; MCP tools do, in
 * src/mcp/tools.ts) and one that names no place (`city_not_found` with `reason: unknown_place`)
 * come with the slugs they probably meant.
 */
export function requireTown(ctx: AppContext, slug: string | undefined): PlaceRow {
  if (slug === undefined || slug === "") throw new AppError("missing_slug", "The path has no city slug.", { mcpDetail: "No `slug` was given." });
  const asked = slug;
  if (!isWellFormedSlug(asked)) {
    const suggestions = slugSuggestions(ctx, asked);
    const detail = `"${slug.slice(0, 130)}" is not a well-formed slug: expected {city}-{state-name} in lowercase, e.g. st-louis-missouri.${meant(suggestions)}`;
    throw new AppError("invalid_slug", detail, { extra: { suggestions } });
  }
  const place = findPlaceBySlug(ctx.db, asked);
  if (!place) {
    const suggestions = slugSuggestions(ctx, asked);
    throw new AppError("city_not_found", `No U.S. place has the slug "${asked}".${meant(suggestions)}`, {
      extra: { reason: "unknown_place", suggestions },
      mcpDetail: `No U.S. place has the slug "${asked}".${meant(suggestions)} find_place finds any U.S. place by name.`,
    });
  }
  return place;
}

/** What starts a town's newsletter, and its listings (the `howToStart` problem member, transport-neutral). */
export const HOW_A_NEWSLETTER_STARTS = "Its first subscriber starts the town's newsletter: a reader subscribes their own address, and the first edition is published the next morning.";
export const HOW_SELLING_STARTS = "A town sells listings once it has a newsletter (its first subscriber: a reader subscribes their own address) or an operator (someone leases the town).";

/** Whether the town has an operator now (a lease active as of now: one cancelled past its paid period is not). */
const leasedNow = (ctx: AppContext, geoid: string) => activeLeaseOf(ctx.db, geoid, ctx.config.now().toISOString()) !== undefined;

/**
 * The one rule of which towns take listings (docs/commerce.md, "Towns without a newsletter"): any U.S.
 * place can be quoted and leased; a town's newsletter starts with its first subscriber; a town takes
 * listings once it has a newsletter (a subscriber or an edition) or an operator (an active lease),
 * and a leased town's listings run from its first edition. The listing quote, both listing checkouts,
 * the town's calendar and problems naming a place ask this, so they cannot disagree.
 */
export function sellsListings(ctx: AppContext, place: Pick<PlaceRow, "geoid">): boolean {
  return townHasNewsletter(ctx.db, place.geoid) || leasedNow(ctx, place.geoid);
}

/** A real place as a problem names it: whether it has a newsletter and whether it sells listings. */
export function problemPlace(ctx: AppContext, place: PlaceRow): NonNullable<ProblemExtra["place"]> {
  const hasNewsletter = townHasNewsletter(ctx.db, place.geoid);
  return {
    slug: place.slug, name: place.name, state: place.state_name, hasNewsletter,
    sellsListings: hasNewsletter || leasedNow(ctx, place.geoid),
    url: `${ctx.config.baseUrl}/${place.slug}`,
  };
}

/**
 * The place for a slug, which must be a city: it has an active subscriber or a published edition. A
 * real place without one is `city_not_found` with `reason: no_newsletter`: it has no edition data
 * (the seed's rule), and the answer says so and what starts its newsletter.
 */
export function requireNewsletterTown(ctx: AppContext, slug: string | undefined): PlaceRow {
  const place = requireTown(ctx, slug);
  if (!townHasNewsletter(ctx.db, place.geoid)) {
    const where = `${place.name}, ${place.state_name}`;
    throw new AppError("city_not_found", `${where} has no newsletter yet; subscribing to it starts one (POST /api/subscribe with the slug ${place.slug}). It is a real U.S. place: its facts are at /api/place/${place.slug}.`, {
      extra: { reason: "no_newsletter", place: problemPlace(ctx, place), howToStart: HOW_A_NEWSLETTER_STARTS },
      mcpDetail: `${where} is a real U.S. place, but it has no newsletter yet, so it has no editions, archive or stored weather. subscribe_city with slug "${place.slug}" starts its newsletter, but only for the address of a reader who asked to subscribe themselves (never invent or guess one). get_place with slug "${place.slug}" answers its facts now: time zone, local date, sunrise and sunset, holidays, census figures.`,
    });
  }
  return place;
}

export function listCities(ctx: AppContext): CitiesResponse {
  const rows = listNewsletterTowns(ctx.db);
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
  const place = requireNewsletterTown(ctx, slug);
  // Listings whose run is over are left out as of now (cityListings), before the sweep marks them ended.
  const now = ctx.config.now();
  const { events, directory } = cityListings(ctx.db, place, now);
  return {
    slug: place.slug,
    city: place.name,
    state: place.state_name,
    ...localClock(place.timezone, now),
    subscriberCount: activeSubscriberCount(ctx.db, place.geoid),
    archives: cityArchive(ctx.db, place.geoid),
    census: censusOf(place),
    events,
    directory,
    sources: townSourceList(ctx.db, place.geoid),
  };
}
