import { z } from "zod";
import { CACHE, READ_ONLY, type Operation } from "../operation.ts";
import {
  ArchiveResponse, CensusCitiesResponse, CitiesResponse, CityResponse, FactsDataset,
} from "../resources.ts";

const slugParams = z.object({ slug: z.string().meta({ description: "The town's slug `{city}-{state-name}` (the place finder gives any town's)", examples: ["st-louis-missouri"] }) });

export const cityOperations = {
  listCities: {
    operationId: "listCities", method: "GET", path: "/api/cities", tags: ["Cities"],
    summary: "Cities with a newsletter",
    description: "Every city with at least one active subscriber or a published edition, grouped by state. Cached 1 hour at the edge.",
    response: CitiesResponse, errors: [], cache: CACHE.cities,
    mcp: {
      tool: "list_cities", title: "List cities with a newsletter", annotations: READ_ONLY,
      description: "Every town that has a newsletter, grouped by state, each with the `slug` that get_city, get_archive, search_archives, get_events and get_weather take.",
    },
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
    description: "A city with a newsletter, by slug: the dates of its published editions (`archives`, newest first, each with its subject and links to the page and markdown twin), its census figures (ACS 5-year; null where not available yet), its subscriber count, the upcoming events of its calendar and its business directory. A U.S. place without a newsletter yet is `404 city_not_found` (`GET /api/places?q=` tells which places have one); a malformed slug is `400 invalid_slug`.",
    params: slugParams, response: CityResponse,
    errors: ["invalid_slug", "missing_slug", "city_not_found"], cache: CACHE.live,
    mcp: {
      tool: "get_city", title: "Get a city: archive dates, census figures, events, directory", annotations: READ_ONLY, ui: "ui://citydaily/city.html",
      description: "A town with a newsletter by `slug`: its local date and time (`localDate`, `weekday`, `localTime`), the dates of its editions (`archives`, newest first), census figures, subscriber count, upcoming events, business directory and sources.",
    },
  },
  getFacts: {
    operationId: "getFacts", method: "GET", path: "/api/facts/{slug}", tags: ["Cities"],
    summary: "schema.org Dataset of a city's census facts",
    description: "A city's census figures as a schema.org `Dataset` (JSON-LD): each figure a `PropertyValue` with its unit and the ACS table it comes from, the place as `spatialCoverage`, and the Census Bureau as creator, with the licence and citation. The same figures as `census` in `GET /api/city/{slug}`; unknown city: `404 city_not_found`.",
    params: slugParams, response: FactsDataset,
    errors: ["invalid_slug", "missing_slug", "city_not_found"], cache: CACHE.live,
  },
  getArchive: {
    operationId: "getArchive", method: "GET", path: "/api/archive/{slug}/{date}", tags: ["Editions"],
    summary: "One edition: JSON, or markdown when the date ends in `.md`",
    description: "`date` is YYYY-MM-DD in the city's own timezone, optionally followed by `.md` for `text/markdown`. Today's edition is `edition_not_found` until that morning's publication.",
    params: slugParams.extend({
      date: z.string().meta({ description: "YYYY-MM-DD, optionally followed by `.md`", examples: ["2026-11-22"] }),
    }),
    response: ArchiveResponse, markdownVariant: true,
    errors: ["invalid_slug", "missing_slug", "validation_error", "city_not_found", "edition_not_found"], cache: CACHE.archive,
    mcp: {
      tool: "get_archive", title: "Read one edition (markdown): the latest, or of one date", annotations: READ_ONLY, output: "markdown", ui: "ui://citydaily/edition.html",
      input: { optional: ["date"] },
      description: "A town's edition as the newsletter's markdown, the latest one or that of `date` (a date from get_city's `archives`), with its fields as structured content.",
    },
  },
} satisfies Record<string, Operation>;
