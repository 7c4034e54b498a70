import { CACHE, READ_ONLY, type Operation } from "../operation.ts";
import { PlacesQuery, PlacesResponse } from "../places.ts";

export const placeOperations = {
  findPlace: {
    operationId: "findPlace", method: "GET", path: "/api/places", tags: ["Cities"],
    summary: "Find any U.S. place by name",
    description: "Every U.S. place of the dataset (32,000 cities, towns and villages), with a newsletter or not yet, found by name with or without its state (`Ely, Nevada`, `marfa texas`), forgiving typos (`Tuscon` finds Tucson): the ranking of the site's \"find your town\" box (fewest typos first, then the larger place). Each match has its `slug`, state, population and `hasNewsletter`; a town without a newsletter can be subscribed to (`POST /api/subscribe` with its slug). No match is an empty `results`, not an error. A `q` shorter than 2 characters is `400 validation_error`.",
    query: PlacesQuery,
    response: PlacesResponse,
    errors: ["validation_error"],
    cache: CACHE.live,
    mcp: {
      tool: "find_place", title: "Find any U.S. place by name", annotations: READ_ONLY,
      description: "Finds any U.S. place (32,000 cities, towns and villages) by name, with or without its state (`Ely, Nevada`, `marfa texas`), forgiving typos (`Tuscon` finds Tucson). Each match has its `slug` (what get_city, get_weather and subscribe_city take), `state`, `population` and `hasNewsletter`: a town without a newsletter yet has no editions to read, but subscribe_city with its slug starts one. Best match first; no match is an empty `results`.",
    },
  },
} satisfies Record<string, Operation>;
