import { z } from "zod";
import { CACHE, READ_ONLY, type Operation } from "../operation.ts";
import {
  ArchiveResponse, CensusCitiesResponse, CitiesResponse, CityResponse, FactsDataset,
} from "../resources.ts";

const slugParams = z.object({ slug: z.string().meta({ description: "City slug `{city}-{state-name}`", example: "st-louis-missouri" }) });

export const cityOperations = {
  listCities: {
    operationId: "listCities", method: "GET", path: "/api/cities", tags: ["Cities"],
    summary: "Cities with a newsletter",
    description: "Every city with at least one active subscriber or a published edition, grouped by state. Cached 1 hour at the edge.",
    response: CitiesResponse, errors: [], cache: CACHE.cities,
    mcp: { tool: "list_cities", title: "List cities with a newsletter", annotations: READ_ONLY },
  },
  listCensusCities: {
    operationId: "listCensusCities", method: "GET", path: "/api/cities-census", tags: ["Cities"],
    summary: "U.S. places by population, with subscriber status",
    description: "Every U.S. place with at least `minPopulation` people (ACS 5-year), grouped by state (alphabetical), cities largest first. Any of them can be subscribed to.",
    query: z.object({
      minPopulation: z.coerce.number().int().min(1000).default(5000).meta({ description: "Smallest population to include (at least 1000)" }),
      state: z.string().max(60).optional().meta({ description: "Full state name, e.g. `New York` (case-insensitive)" }),
      hasSubscribers: z.stringbool().optional().meta({ description: "`true`: only places with active subscribers; `false`: only places without" }),
    }),
    response: CensusCitiesResponse, errors: ["validation_error"], cache: CACHE.live,
  },
  getCity: {
    operationId: "getCity", method: "GET", path: "/api/city/{slug}", tags: ["Cities"],
    summary: "One city: archive index, census figures, events and directory",
    params: slugParams, response: CityResponse,
    errors: ["invalid_slug", "missing_slug", "city_not_found"], cache: CACHE.live,
    mcp: { tool: "get_city", title: "Get a city: archive dates, census figures, events, directory", annotations: READ_ONLY },
  },
  getFacts: {
    operationId: "getFacts", method: "GET", path: "/api/facts/{slug}", tags: ["Cities"],
    summary: "schema.org Dataset of a city's census facts",
    params: slugParams, response: FactsDataset,
    errors: ["invalid_slug", "missing_slug", "city_not_found"], cache: CACHE.live,
  },
  getArchive: {
    operationId: "getArchive", method: "GET", path: "/api/archive/{slug}/{date}", tags: ["Editions"],
    summary: "One edition: JSON, or markdown when the date ends in `.md`",
    description: "`date` is YYYY-MM-DD in the city's own timezone, optionally followed by `.md` for `text/markdown`. Today's edition is `edition_not_found` until that morning's publication.",
    params: slugParams.extend({
      date: z.string().meta({ description: "YYYY-MM-DD, optionally followed by `.md`", example: "2026-11-22" }),
    }),
    response: ArchiveResponse, markdownVariant: true,
    errors: ["invalid_slug", "missing_slug", "validation_error", "city_not_found", "edition_not_found"], cache: CACHE.archive,
    mcp: {
      tool: "get_archive", title: "Read one dated edition (markdown)", annotations: READ_ONLY, output: "markdown",
      description: "One city's edition of one date (YYYY-MM-DD in the city's own timezone), as the newsletter's markdown; the JSON fields come as structured content. Dates that exist are listed by get_city (`archives`).",
    },
  },
} satisfies Record<string, Operation>;
