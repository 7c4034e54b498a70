import type { CalendarEvent, DirectoryListing, TownSource } from "../contract/resources.ts";
import { PROBLEMS } from "../contract/problems.ts";
import { holidaysOn, upcomingHolidays } from "../core/calendar/holidays.ts";
import { localClock, type LocalClock } from "../core/places/local-clock.ts";
import { sunTimes } from "../core/weather/sun.ts";
import { censusYear } from "../contract/census-fields.ts";
import { webHtml, webMarkdown } from "../core/edition/web-edition.ts";
import { censusComparison, censusFigures, type CensusFigure, type ComparisonMetric } from "../core/places/census-figures.ts";
import { slugify } from "../contract/slug.ts";
import { statesPhrase } from "../contract/states.ts";
import { readStoredWeather, type DailyForecast, type WeatherSnapshot } from "../core/weather/snapshot.ts";
import { publishedTowns, type PublishedTown } from "../store/places/cities.ts";
import { townSourceList } from "../store/directory/sources.ts";
import type { DB } from "../store/db.ts";
import {
  cityArchive, editionCount, firstEditionKey, latestFeedEditions, latestSiteEditions, nextArchiveEntry, previousArchiveEntry, recentPlacedEditions, siteEdition,
  type ArchiveEntry, type FeedEdition, type PlacedEdition, type SiteEdition,
} from "../store/morning/editions.ts";
import { findPlaceBySlug, placeGrid, placeTotals, type PlaceRow, type PlaceTotals } from "../store/places/places.ts";
import { cityListings } from "./city-listings.ts";
import { editionExcerpt } from "./excerpt.ts";
import { withWeatherIcons } from "./weather-icons.ts";

/**
 * The site's read model: the view of every page, built from the database. The Astro pages get it as
 * `Astro.locals.site` (src/publish/render-pages.ts) and the markdown twins and feeds are written from
 * the same views (src/publish/text-outputs.ts), so a city page, its twin and its feed always say the
 * same thing. Lists shared by many pages of one publish run (the cities with editions, the state
 * totals) are read once per `SiteData`, i.e. once per run.
 */
export interface SiteData {
  baseUrl: string;
  /** Whether the place finder's index is shipped with this build (`/place-index.json`). */
  placeFinder: boolean;
  /** The place finder's module under its content-hashed name (`/_astro/place-finder.{hash}.js`), when known. */
  placeFinderScript?: string;
  home(): HomeView;
  /** The directory: every city with an edition, by state then name, with its latest edition. */
  cities(): CitiesView;
  state(stateSlug: string): StateView | undefined;
  city(slug: string): CityView | undefined;
  /** A city's feed: its newest `CITY_FEED_ITEMS` editions, newest first. */
  cityFeed(slug: string): FeedEntry[];
  edition(slug: string, date: string): EditionView | undefined;
  /** The most recently published editions across all cities, newest first. */
  recent(limit: number): PlacedEdition[];
  developers(): DevelopersView;
}

/** Entries of a city's archive on its page and its twin: about two months (see README, "The site"). */
export const CITY_ARCHIVE_ITEMS = 60;
/** Items in each /{slug}/feed.xml. */
export const CITY_FEED_ITEMS = 10;
/**
 * Cities per state shown on /cities as cards with their latest edition's lead and excerpt (the
 * largest); the others are listed by name, and their state page has the cards. Keeps /cities light
 * however many cities have editions.
 */
export const CITIES_PAGE_CARDS = 6;
/** Cities of a state page whose card carries an excerpt (the largest); the rest show the lead only. */
export const STATE_PAGE_EXCERPTS = 100;

export interface CityLink {
  slug: string; name: string; state: string; county: string | null; population: number | null;
  latestDate: string; latestSubject: string; latestPublishedAt: string;
}
export interface StateLink { name: string; slug: string; cityCount: number }
export interface MapPoint { slug: string; name: string; state: string; latitude: number; longitude: number }
/** A city with its latest edition's lead (`latestSubject`) and opening lines, for cards. */
export interface CityCard extends CityLink { excerpt: string }
export interface HomeView {
  featured: CityCard[]; cityCount: number; stateCount: number; recent: CityCard[];
  /** The states counted as readers count them: "3 states and D.C." (D.C. and Puerto Rico are not states). */
  where: string;
}
export interface CitiesView {
  /** `cities`: every city of the state; `cards`: its `CITIES_PAGE_CARDS` largest, with their excerpts. */
  states: Array<StateLink & { cities: CityLink[]; cards: CityCard[] }>;
  cityCount: number; points: MapPoint[]; backdrop: Array<{ lat: number; lon: number }>;
}
/** A state's cities, largest first; the `STATE_PAGE_EXCERPTS` largest carry an excerpt. */
export interface StateView { name: string; slug: string; cities: CityCard[]; population: number }
export interface PlaceInfo { slug: string; name: string; state: string; stateSlug: string; county: string | null; placeType: string; timezone: string; population: number | null; latitude: number; longitude: number }
export interface EditionBody {
  date: string; subject: string;
  /** The stored HTML without its opening h1 (the page prints the subject itself). */
  html: string;
  markdown: string;
  publishedAt: string;
  today: WeatherSnapshot["today"] | null;
  forecast: DailyForecast[];
}
export interface CityView {
  place: PlaceInfo;
  latest: EditionBody | undefined;
  /** The newest `CITY_ARCHIVE_ITEMS` editions, newest first. */
  archive: ArchiveEntry[];
  archiveTotal: number;
  census: CensusFigure[];
  censusYear: string | null;
  comparison: ComparisonMetric[];
  /** The town's calendar: upcoming events, soonest first. */
  events: CalendarEvent[];
  /** The town's directory: current business listings, featured first. */
  directory: DirectoryListing[];
  /** Where the edition's headlines and events come from: the town's feeds, credited with links. */
  sources?: TownSource[];
  /** A place without editions: its clock, sun and holidays today (what get_place answers), rendered at request time. */
  today?: PlaceToday;
}

export interface PlaceToday extends LocalClock {
  /** `localTime` as people read it, `11:00 PM`. */
  clock: string;
  sunrise: string | null;
  sunset: string | null;
  holidays: Array<{ date: string; name: string; kind: string }>;
}

/** Today in a place, from the dataset and the clock alone (no forecast): the page of a place without a newsletter shows it. */
export function placeToday(p: Pick<PlaceRow, "timezone" | "latitude" | "longitude" | "state_code">, now: Date): PlaceToday {
  const clock = localClock(p.timezone, now);
  const sun = sunTimes({ date: clock.localDate, latitude: p.latitude, longitude: p.longitude, timezone: p.timezone });
  const [h, m] = clock.localTime.split(":").map(Number) as [number, number];
  return { ...clock, clock: `${h % 12 || 12}:${String(m).padStart(2, "0")} ${h < 12 ? "AM" : "PM"}`, sunrise: sun.sunrise, sunset: sun.sunset, holidays: [...holidaysOn(clock.localDate, p.state_code), ...upcomingHolidays(clock.localDate, p.state_code)] };
}
export interface EditionView { place: PlaceInfo; edition: EditionBody; previous: ArchiveEntry | undefined; next: ArchiveEntry | undefined }
export interface DevelopersView {
  problems: Array<{ code: string; status: number; title: string; resolution: string }>;
  /** The developer guide's example edition: the site's first (none before there is one). */
  example: { slug: string; date: string } | undefined;
}
export type { ComparisonMetric, CensusFigure, ArchiveEntry, PlacedEdition };

/** One item of a city's feed: the edition (without its HTML) and its city. */
export interface FeedEntry extends FeedEdition {
  slug: string;
  name: string;
  state_name: string;
}

function placeInfo(p: PlaceRow): PlaceInfo {
  return {
    slug: p.slug, name: p.name, state: p.state_name, stateSlug: slugify(p.state_name), county: p.county_name,
    placeType: p.place_type, timezone: p.timezone, population: p.population, latitude: p.latitude, longitude: p.longitude,
  };
}

function link(c: PublishedTown): CityLink {
  return {
    slug: c.slug, name: c.name, state: c.state_name, county: c.county_name, population: c.population,
    latestDate: c.latest_date, latestSubject: c.latest_subject, latestPublishedAt: c.latest_published_at,
  };
}

/** Largest first; places without a population last, then by name. */
export const byPopulation = (a: CityLink, b: CityLink) => (b.population ?? -1) - (a.population ?? -1) || a.name.localeCompare(b.name);

/** Listing links are the lister's: only http(s) ones reach a page or a twin (no `javascript:`). */

function editionBody(e: SiteEdition): EditionBody {
  // The page prints the subject as its own <h1>; the stored HTML usually opens with the same heading.
  // The email footer (a link to this very page) is not shown on the web.
  // Weather emoji become inline SVG (some systems draw them as empty boxes).
  const html = withWeatherIcons(webHtml(e.html.replace(/^\s*<h1[^>]*>[\s\S]*?<\/h1>\s*/i, "")));
  const weather = readStoredWeather(e.weather_json);
  return {
    date: e.date, subject: e.subject, html, publishedAt: e.published_at, today: weather.today, forecast: weather.daily.slice(0, 7),
    // Only the twins read it (pages show the HTML): made when asked.
    get markdown() {
      return webMarkdown(e.markdown);
    },
  };
}

export interface SiteDataOptions {
  placeFinder?: boolean;
  placeFinderScript?: string;
  now?: () => Date;
}

/**
 * The lists shared by many pages of one publish run, each read when first asked and then kept: the
 * cities with editions, the state totals, the places by slug, the cities' excerpts, the state groups.
 */
function runLists(db: DB) {
  let cities: PublishedTown[] | undefined;
  let totals: Map<string, PlaceTotals> | undefined;
  let groups: CitiesView["states"] | undefined;
  // One run renders many pages of the same city (its page, twin, feed, every edition): read its place once.
  const places = new Map<string, PlaceRow | undefined>();
  const placeOf = (slug: string) => {
    if (!places.has(slug)) places.set(slug, findPlaceBySlug(db, slug));
    return places.get(slug);
  };
  const allCities = () => (cities ??= publishedTowns(db));
  // A city's excerpt is read once per run, whichever page (home, /cities, its state) shows it first.
  const excerpts = new Map<string, string>();
  let bySlug: Map<string, PublishedTown> | undefined;
  const card = (c: CityLink, withExcerpt = true): CityCard => {
    if (!withExcerpt) return { ...c, excerpt: "" };
    let excerpt = excerpts.get(c.slug);
    if (excerpt === undefined) {
      const pc = (bySlug ??= new Map(allCities().map((x) => [x.slug, x]))).get(c.slug);
      const e = pc && siteEdition(db, pc.geoid, pc.latest_date);
      excerpts.set(c.slug, (excerpt = e ? editionExcerpt(webMarkdown(e.markdown)) : ""));
    }
    return { ...c, excerpt };
  };
  const totalsOf = (name: string) => (totals ??= new Map(placeTotals(db).map((t) => [t.state_name, t]))).get(name);

  const stateGroups = () => {
    if (groups) return groups;
    groups = [];
    for (const c of allCities()) {
      let g = groups.at(-1);
      if (g?.name !== c.state_name) groups.push((g = { name: c.state_name, slug: slugify(c.state_name), cityCount: 0, cities: [], cards: [] }));
      g.cities.push(link(c));
      g.cityCount++;
    }
    // At most CITIES_PAGE_CARDS excerpts a state, whatever the number of cities.
    for (const g of groups) g.cards = [...g.cities].sort(byPopulation).slice(0, CITIES_PAGE_CARDS).map((c) => card(c));
    return groups;
  };
  return { placeOf, allCities, card, totalsOf, stateGroups };
}

/**
 * The page of any U.S. place: the publisher renders the ones with editions; the server renders the
 * others on demand (a page that invites the first subscriber).
 */
function cityView(db: DB, place: PlaceRow, totalsOf: (name: string) => PlaceTotals | undefined, now: () => Date): CityView {
  const [latest] = latestSiteEditions(db, place.geoid, 1);
  return {
    place: placeInfo(place),
    latest: latest && editionBody(latest),
    archive: latest ? cityArchive(db, place.geoid, CITY_ARCHIVE_ITEMS) : [],
    archiveTotal: latest ? editionCount(db, place.geoid) : 0,
    census: censusFigures(place),
    censusYear: censusYear(place),
    comparison: censusComparison(place, totalsOf(place.state_name), totalsOf("United States")),
    ...cityListings(db, place, now()),
    sources: townSourceList(db, place.geoid),
    ...(latest ? {} : { today: placeToday(place, now()) }),
  };
}

export function createSiteData(db: DB, baseUrl: string, options: SiteDataOptions = {}): SiteData {
  // The clock decides which events are still upcoming (the app's, so a pinned NOW pins the pages).
  const now = options.now ?? (() => new Date());
  const { placeOf, allCities, card, totalsOf, stateGroups } = runLists(db);
  let directory: CitiesView | undefined;
  // The last city view made: a city's page, twin and feed are made one after the other from it.
  let lastCity: { slug: string; view: CityView | undefined } | undefined;

  return {
    baseUrl,
    placeFinder: options.placeFinder ?? false,
    placeFinderScript: options.placeFinderScript,
    home() {
      const all = allCities();
      const byPop = [...all].sort((a, b) => (b.population ?? 0) - (a.population ?? 0));
      const recent = [...all].sort((a, b) => b.latest_date.localeCompare(a.latest_date) || (b.population ?? 0) - (a.population ?? 0));
      const homeCard = (c: PublishedTown) => card(link(c));
      return { featured: byPop.slice(0, 12).map(homeCard), recent: recent.slice(0, 8).map(homeCard), cityCount: all.length, stateCount: new Set(all.map((c) => c.state_name)).size, where: statesPhrase(all.map((c) => c.state_name)) };
    },
    cities() {
      const all = allCities();
      return (directory ??= {
        states: stateGroups(), cityCount: all.length,
        points: all.map((c) => ({ slug: c.slug, name: c.name, state: c.state_name, latitude: c.latitude, longitude: c.longitude })),
        backdrop: placeGrid(db),
      });
    },
    state(stateSlug) {
      const group = stateGroups().find((g) => g.slug === stateSlug);
      if (!group) return undefined;
      const cities = [...group.cities].sort(byPopulation).map((c, i) => card(c, i < STATE_PAGE_EXCERPTS));
      return { name: group.name, slug: group.slug, cities, population: totalsOf(group.name)?.population ?? 0 };
    },
    city(slug) {
      if (lastCity?.slug === slug) return lastCity.view;
      const place = placeOf(slug);
      if (!place) return undefined;
      const view = cityView(db, place, totalsOf, now);
      lastCity = { slug, view };
      return view;
    },
    cityFeed(slug) {
      const place = placeOf(slug);
      if (!place) return [];
      const city = { slug: place.slug, name: place.name, state_name: place.state_name };
      return latestFeedEditions(db, place.geoid, CITY_FEED_ITEMS).map((e) => ({ ...e, ...city }));
    },
    edition(slug, date) {
      const place = placeOf(slug);
      const row = place && siteEdition(db, place.geoid, date);
      if (!place || !row) return undefined;
      return { place: placeInfo(place), edition: editionBody(row), previous: previousArchiveEntry(db, place.geoid, date), next: nextArchiveEntry(db, place.geoid, date) };
    },
    recent: (limit) => recentPlacedEditions(db, limit),
    developers() {
      return {
        problems: Object.entries(PROBLEMS).map(([code, p]) => ({ code, status: p.status, title: p.title, resolution: p.resolution })),
        example: firstEditionKey(db),
      };
    },
  };
}
