import { z } from "zod";
import { CENSUS_FIELDS, type CensusKey } from "./census-fields.ts";
import { IsoDate, LocalClock, Slug } from "./common.ts";

// Resources of spec section 2. Response bodies are built from these schemas; types are inferred here.

export const CityRef = z.object({ city: z.string(), slug: Slug }).meta({ id: "CityRef" });

export const StateGroup = z.object({ state: z.string(), cities: z.array(CityRef) }).meta({ id: "StateGroup" });

export const CitiesResponse = z.object({
  states: z.array(StateGroup).meta({ description: "Sorted by state name; cities sorted by name" }),
  totalCities: z.int(),
}).meta({ id: "CitiesResponse" });

export const CensusCity = z.object({
  city: z.string(), slug: Slug, population: z.int(), hasSubscribers: z.boolean(),
}).meta({ id: "CensusCity" });

export const CensusStateGroup = z.object({
  state: z.string(), cityCount: z.int(), totalPopulation: z.int(), cities: z.array(CensusCity),
}).meta({ id: "CensusStateGroup" });

export const CensusCitiesResponse = z.object({
  states: z.array(CensusStateGroup).meta({ description: "Sorted by state name; cities by population, largest first (ties by name)" }),
  totalCities: z.int(),
  minPopulation: z.int(),
}).meta({ id: "CensusCitiesResponse" });

// Every figure of the Census object comes from the census registry (src/contract/census-fields.ts).
type CensusFigureSchema = z.ZodOptional<z.ZodNullable<z.ZodNumber>>;
const censusFigures = Object.fromEntries(CENSUS_FIELDS.map((f) => [
  f.key,
  (f.integer ? z.int() : z.number()).nullable().optional().meta({ description: f.description }),
])) as Record<CensusKey, CensusFigureSchema>;

export const Census = z.object({
  ...censusFigures,
  year: z.string().optional().meta({ description: "ACS 5-year vintage, e.g. `2023` for the 2019-2023 estimates. Fields not yet imported are null." }),
}).nullable().meta({ id: "Census", description: "American Community Survey 5-year estimates; null fields are not available yet" });

export const CalendarEvent = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  url: z.url().nullable(),
  startsAt: z.string().meta({ description: "Start date (YYYY-MM-DD) or date-time" }),
  endsAt: z.string().optional().meta({ description: "End date or date-time, when given" }),
  venue: z.string().optional(),
  featured: z.boolean(),
  sponsored: z.boolean().meta({ description: "A paid placement (standard or featured listing): shown labelled Sponsored, its links rel=\"sponsored\"" }),
  source: z.string().optional().meta({ description: "Who publishes the event when it comes from one of the town's public calendars (iCalendar feeds), e.g. `White Pine County Library`; absent for listings" }),
  allDay: z.boolean().optional().meta({ description: "True for an all-day event (`startsAt` is then a date)" }),
  agendaUrl: z.url().optional().meta({ description: "A public meeting's agenda (council meetings from Legistar), when published" }),
}).meta({ id: "CalendarEvent", description: "An event on the town's public calendar: a listing (free, standard or featured) or an event from one of the town's public iCalendar feeds. Times are the town's local wall time." });

export const DirectoryListing = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  url: z.url().nullable(),
  featured: z.boolean(),
  sponsored: z.boolean().meta({ description: "A paid placement (standard or featured listing): shown labelled Sponsored, its links rel=\"sponsored\"" }),
  endsOn: IsoDate.meta({ description: "Last day the listing is shown (30 days from payment)" }),
  address: z.string().optional().meta({ description: "Street address or area of town" }),
  category: z.string().optional(),
}).meta({ id: "DirectoryListing", description: "A business in the town's directory" });

export const TownSource = z.object({
  name: z.string().meta({ description: "The outlet or organisation readers see credited (\"The Ely Times\", \"City of Ely\")" }),
  url: z.url().meta({ description: "Its site (directory sources), else the feed's address" }),
  feedUrl: z.url().meta({ description: "The feed, calendar or API address fetched each morning" }),
  kind: z.enum(["news", "calendar"]).meta({ description: "`news`: headlines (RSS, Atom, JSON Feed); `calendar`: events and meetings (iCalendar, Legistar)" }),
  countyWide: z.boolean().meta({ description: "A county-wide outlet: only its items that name the town are shown" }),
  addedBy: z.enum(["directory", "staff", "operator"]).meta({ description: "`directory`: found and verified from the open datasets of local sources; `staff` or the town's `operator` added it by hand" }),
  status: z.enum(["ok", "failing"]).meta({ description: "`failing` after 3 mornings without a good fetch (a directory source is dropped after failing for a week)" }),
  lastCheckedAt: z.string().nullable().meta({ description: "When it last passed verification (directory sources) or was last fetched good (ISO instant)" }),
}).meta({ id: "TownSource", description: "A public source the town's edition draws headlines or events from" });

export const ArchiveEntry = z.object({ date: IsoDate, subject: z.string() }).meta({ id: "ArchiveEntry" });

export const CityResponse = z.object({
  slug: Slug,
  city: z.string(),
  state: z.string(),
  ...LocalClock.shape,
  subscriberCount: z.int().meta({ description: "Active subscribers" }),
  archives: z.array(ArchiveEntry).meta({ description: "Published editions, newest first" }),
  census: Census.optional(),
  events: z.array(CalendarEvent).meta({ description: "Upcoming events on the town's calendar, soonest first (featured first within a day)" }),
  directory: z.array(DirectoryListing).meta({ description: "Current business directory listings, featured first" }),
  sources: z.array(TownSource).optional().meta({ description: "The town's public sources of headlines and events (news sites, the city's site, council meetings), with their status" }),
}).meta({ id: "CityResponse" });

export const ArchiveResponse = z.object({
  html: z.string().meta({ description: "Rendered edition HTML" }),
  subject: z.string(),
  date: IsoDate,
}).meta({ id: "ArchiveResponse" });

export const FactsDataset = z.looseObject({
  "@context": z.literal("https://schema.org"),
  "@type": z.literal("Dataset"),
  name: z.string(),
  description: z.string(),
  url: z.url(),
  identifier: z.string(),
  variableMeasured: z.array(z.looseObject({ "@type": z.literal("PropertyValue"), name: z.string(), value: z.number() })),
}).meta({
  id: "FactsDataset",
  description: "schema.org Dataset (JSON-LD) for a city: newsletter metadata plus census demographics with units and ACS vintage. Additional properties are allowed.",
});

export type CitiesResponse = z.infer<typeof CitiesResponse>;
export type CensusCitiesResponse = z.infer<typeof CensusCitiesResponse>;
export type Census = z.infer<typeof Census>;
export type CityResponse = z.infer<typeof CityResponse>;
export type ArchiveResponse = z.infer<typeof ArchiveResponse>;
export type FactsDataset = z.infer<typeof FactsDataset>;
export type CalendarEvent = z.infer<typeof CalendarEvent>;
export type DirectoryListing = z.infer<typeof DirectoryListing>;
export type TownSource = z.infer<typeof TownSource>;

export const WeatherAlert = z.object({
  id: z.string().meta({ description: "The alert's NWS identifier (a URN), stable across updates" }),
  event: z.string().meta({ description: "What the alert is, e.g. `Winter Storm Warning`", example: "Winter Storm Warning" }),
  severity: z.enum(["Extreme", "Severe", "Moderate", "Minor", "Unknown"]),
  urgency: z.string().nullable().meta({ description: "`Immediate`, `Expected`, `Future`, `Past` or `Unknown`" }),
  headline: z.string().nullable().meta({ description: "NWS's one-line headline" }),
  description: z.string().meta({ description: "What to expect, as NWS wrote it (may be several paragraphs)" }),
  instruction: z.string().nullable().meta({ description: "What NWS advises people to do, when given" }),
  onset: z.string().nullable().meta({ description: "When the hazard begins (ISO 8601 with offset)" }),
  ends: z.string().nullable().meta({ description: "When the hazard ends (ISO 8601 with offset); the alert's expiry when NWS gives no end" }),
  expires: z.string().meta({ description: "When this alert message expires (ISO 8601 with offset); expired alerts are never listed" }),
  senderName: z.string().meta({ description: "The issuing office, e.g. `NWS Elko NV`" }),
  url: z.url().meta({ description: "A page with the point's current hazards and their full text (forecast.weather.gov)" }),
}).meta({ id: "WeatherAlert", description: "An active National Weather Service alert (warning, watch or advisory) for the city's point." });

export const TideExtreme = z.object({
  time: z.iso.datetime({ offset: true }).meta({ description: "When, to the minute (UTC)" }),
  type: z.enum(["high", "low"]),
  height: z.number().meta({ description: "Predicted height in `units` above `datum`; a low below the datum is negative" }),
}).meta({ id: "TideExtreme" });

export const TodayTides = z.object({
  station: z.object({
    id: z.string().meta({ description: "The tide database's station id, e.g. `noaa/9414131` (NOAA station 9414131)" }),
    name: z.string(),
    distanceKm: z.number().meta({ description: "From the city's point, km" }),
  }),
  datum: z.string().meta({ description: "The chart datum heights are above: `MLLW` (mean lower low water) for NOAA stations" }),
  units: z.enum(["feet", "meters"]),
  extremes: z.array(TideExtreme).meta({ description: "Highs and lows of the city's local day, in order" }),
  attribution: z.string().meta({ description: "The notice the tide database asks to be shown with its data" }),
}).meta({ id: "TodayTides", description: "Astronomical tide predictions (NOAA harmonics, computed with Neaps): not for navigation; storm surge and wind are not in them." });

export const WeatherResponse = z.object({
  high: z.number().meta({ description: "Today's high, °F" }),
  low: z.number().meta({ description: "Today's low, °F" }),
  current: z.number().meta({ description: "Temperature now (or at publication time for a stored snapshot), °F" }),
  code: z.int().meta({ description: "WMO weather interpretation code (0-99) as used by Open-Meteo" }),
  condition: z.string().meta({ description: "Plain-English condition for `code`, e.g. `Light rain`" }),
  emoji: z.string(),
  precipitationChance: z.number().nullable().optional().meta({ description: "Today's maximum probability of precipitation, percent (0-100)" }),
  windSpeed: z.number().nullable().optional().meta({ description: "Wind speed, mph" }),
  latitude: z.number().optional(),
  longitude: z.number().optional(),
  timezone: z.string().optional().meta({ description: "IANA timezone of the city" }),
  asOf: z.iso.datetime({ offset: true }).optional().meta({ description: "When the forecast was fetched" }),
  alerts: z.array(WeatherAlert).optional().meta({ description: "Active National Weather Service alerts for the city's point, most severe first (live, at most 5 minutes old). `[]`: none active. Absent: the NWS could not be asked just now." }),
  uvIndexMax: z.number().nullable().optional().meta({ description: "Today's highest UV index (Open-Meteo `uv_index_max`). EPA scale: 0-2 low, 3-5 moderate, 6-7 high, 8-10 very high, 11+ extreme. Absent when the forecast has none." }),
  tides: TodayTides.optional().meta({ description: "Today's predicted high and low tides (the city's local day) at the nearest NOAA tide station within 15 km. Absent for a city with no station that near (inland)." }),
}).meta({ id: "WeatherResponse", description: "Today's weather. Units: °F, mph, percent." });
export type WeatherResponse = z.infer<typeof WeatherResponse>;
