import { z } from "zod";
import { CACHE, READ_ONLY, type Operation } from "../operation.ts";
import { PlaceResponse, PlacesQuery, PlacesResponse } from "../places.ts";

export const placeOperations = {
  findPlace: {
    operationId: "findPlace", method: "GET", path: "/api/places", tags: ["Cities"],
    summary: "Find any U.S. place by name",
    description: "Every U.S. place of the dataset (32,000 cities, towns and villages), with a newsletter or not yet, found by name with or without its state (`Ely, Nevada`, `marfa texas`), forgiving typos (`Tuscon` finds Tucson): the ranking of the site's \"find your town\" box (fewest typos first, then the larger place). Each match has its `slug`, state, population, `hasNewsletter` and `sellsListings`. Any place's facts (time zone, local date, sun times, holidays, census figures) are at `GET /api/place/{slug}`; the edition endpoints (`/api/city`, `/api/archive`, `/api/weather`, `/api/search?slug=`) answer only for places with a newsletter (`404 city_not_found` with `reason: no_newsletter` for the others); a town without one can be subscribed to (`POST /api/subscribe` with its slug). No match is an empty `results`, not an error. A `q` shorter than 2 characters is `400 validation_error`.",
    query: PlacesQuery,
    response: PlacesResponse,
    errors: ["validation_error"],
    cache: CACHE.live,
    mcp: {
      tool: "find_place", title: "Find any U.S. place by name", annotations: READ_ONLY,
      description: "Finds any U.S. place by name, with or without its state and forgiving typos, best match first, each with its `slug`, `hasNewsletter` and `sellsListings`.",
    },
  },
  getPlace: {
    operationId: "getPlace", method: "GET", path: "/api/place/{slug}", tags: ["Cities"],
    summary: "Any U.S. place: facts, local date and time, sun times, holidays, census figures",
    description: "What the service knows about any of the 32,000 U.S. places without fetching anything, with a newsletter or not: name, county, coordinates, whether it has a newsletter and sells listings, its time zone with today's local date, weekday and time, today's sunrise and sunset, the holidays today and in the next 7 days, and its census figures (ACS 5-year; null where not available yet). Unknown slug: `404 city_not_found` with `reason: unknown_place` and `suggestions`; malformed: `400 invalid_slug`.",
    params: z.object({ slug: z.string().meta({ description: "The place's slug `{city}-{state-name}` (find_place gives it)", examples: ["marfa-texas"] }) }),
    response: PlaceResponse,
    errors: ["invalid_slug", "missing_slug", "city_not_found"],
    cache: CACHE.live,
    mcp: {
      tool: "get_place", title: "Any U.S. place: local date and time, sun times, holidays, census figures", annotations: READ_ONLY,
      description: "Any U.S. place's facts by `slug`, with a newsletter or not: `hasNewsletter`, `sellsListings`, today's `localDate`, `weekday` and `localTime` there (count \"today\" and \"next Saturday\" from these, not your own clock), sunrise and sunset, holidays and census figures.",
    },
  },
} satisfies Record<string, Operation>;
