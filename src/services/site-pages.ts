import { PROBLEMS } from "../contract/problems.ts";
import { slugify } from "../core/slug.ts";
import type { DailyForecast, WeatherSnapshot } from "../integrations/weather/types.ts";
import type { PlaceRow } from "../store/places.ts";
import {
  archiveIndex, citiesWithEditions, editionCountOf, latestSiteEdition, placeBySlug, placeGrid, placeTotals, previousEditionDate, siteEdition,
  type CityWithEditions, type SiteEditionRow, type StateTotals,
} from "../store/site-pages.ts";
import type { DB } from "../store/db.ts";
import { censusFigures, type CensusFigure } from "../core/census-figures.ts";

/**
 * The data behind every HTML page. The publisher hands one `SiteData` to the Astro renderer as
 * `Astro.locals.site`; pages call it and stay free of SQL and of the database handle. Lists shared by
 * many pages of one publish run (the cities with editions, the state totals) are read once per run.
 */
export interface SiteData {
  baseUrl: string;
  /** Whether the place finder's index is shipped with this build (`/place-index.json`). */
  placeFinder: boolean;
  home(): HomeView;
  cities(): CitiesView;
  state(stateSlug: string): StateView | undefined;
  city(slug: string): CityView | undefined;
  edition(slug: string, date: string): EditionView | undefined;
  developers(): DevelopersView;
}

export interface CityLink { slug: string; name: string; state: string; population: number | null; latestDate: string; latestSubject: string }
export interface StateLink { name: string; slug: string; cityCount: number }
export interface MapPoint { slug: string; name: string; state: string; latitude: number; longitude: number }
export interface HomeView { featured: CityLink[]; cityCount: number; stateCount: number; recent: CityLink[] }
export interface CitiesView { states: Array<StateLink & { cities: CityLink[] }>; cityCount: number; points: MapPoint[]; backdrop: Array<{ lat: number; lon: number }> }
export interface StateView { name: string; slug: string; cities: CityLink[]; population: number }
export interface PlaceInfo { slug: string; name: string; state: string; stateSlug: string; county: string | null; placeType: string; timezone: string; population: number | null; latitude: number; longitude: number }
export interface ComparisonMetric { label: string; unit: string; city: number; state: number; nation: number; format: "int" | "usd" | "dec1" }
export interface EditionBody { date: string; subject: string; html: string; publishedAt: string; today: WeatherSnapshot["today"] | null; forecast: DailyForecast[] }
export interface CityView { place: PlaceInfo; latest: EditionBody | undefined; archive: Array<{ date: string; subject: string }>; archiveTotal: number; census: CensusFigure[]; censusYear: string | null; comparison: ComparisonMetric[] }
export interface EditionView { place: PlaceInfo; edition: EditionBody; previous: { date: string; subject: string } | undefined }
export interface DevelopersView { problems: Array<{ code: string; status: number; title: string; resolution: string }> }

/** A city page lists its newest year of editions; each edition page links to the one before it. */
export const CITY_ARCHIVE_ITEMS = 366;

function placeInfo(p: PlaceRow): PlaceInfo {
  return {
    slug: p.slug, name: p.name, state: p.state_name, stateSlug: slugify(p.state_name), county: p.county_name,
    placeType: p.place_type, timezone: p.timezone, population: p.population, latitude: p.latitude, longitude: p.longitude,
  };
}

function link(c: CityWithEditions): CityLink {
  return { slug: c.slug, name: c.name, state: c.state_name, population: c.population, latestDate: c.latest_date, latestSubject: c.latest_subject };
}

/** The stored weather snapshot, when the edition has one of the expected shape. */
function weatherOf(json: string | null): Pick<EditionBody, "today" | "forecast"> {
  if (!json) return { today: null, forecast: [] };
  try {
    const w = JSON.parse(json) as Partial<WeatherSnapshot>;
    const forecast = Array.isArray(w.daily) ? w.daily.filter((d) => typeof d?.high === "number" && typeof d?.low === "number" && typeof d?.date === "string") : [];
    return { today: w.today && typeof w.today.high === "number" ? w.today : null, forecast: forecast.slice(0, 7) };
  } catch {
    return { today: null, forecast: [] };
  }
}

function editionBody(e: SiteEditionRow): EditionBody {
  // The page prints the subject as its own <h1>; the stored HTML usually opens with the same heading.
  const html = e.html.replace(/^\s*<h1[^>]*>[\s\S]*?<\/h1>\s*/i, "");
  return { date: e.date, subject: e.subject, html, publishedAt: e.published_at, ...weatherOf(e.weather_json) };
}


/** City against its state and the nation, for the figures all three have. */
function comparison(p: PlaceRow, state: StateTotals | undefined, nation: StateTotals | undefined): ComparisonMetric[] {
  if (!state || !nation) return [];
  const out: ComparisonMetric[] = [];
  const add = (label: string, unit: string, format: ComparisonMetric["format"], city: number | null, s: number | null, us: number | null) => {
    if (city === null || s === null || us === null || !Number.isFinite(city) || !Number.isFinite(s) || !Number.isFinite(us)) return;
    out.push({ label, unit, format, city, state: s, nation: us });
  };
  const density = (pop: number | null, area: number | null) => (pop !== null && area ? pop / area : null);
  add("People per square mile", "people/sq mi", "int", density(p.population, p.land_area_sq_mi), density(state.population, state.land_area_sq_mi), density(nation.population, nation.land_area_sq_mi));
  const perHome = (pop: number | null, homes: number | null) => (pop !== null && homes ? pop / homes : null);
  add("People per housing unit", "people", "dec1", perHome(p.population, p.housing_units), perHome(state.population, state.housing_units), perHome(nation.population, nation.housing_units));
  add("Median household income", "USD", "usd", p.median_income, state.median_income, nation.median_income);
  add("Median home value", "USD", "usd", p.median_home_value, state.median_home_value, nation.median_home_value);
  add("Median gross rent", "USD/month", "usd", p.median_rent, state.median_rent, nation.median_rent);
  add("Median age", "years", "dec1", p.median_age, state.median_age, nation.median_age);
  add("Bachelor's degree or higher", "%", "dec1", p.college_degree_percent, state.college_degree_percent, nation.college_degree_percent);
  add("Mean commute", "minutes", "dec1", p.avg_commute_minutes, state.avg_commute_minutes, nation.avg_commute_minutes);
  return out;
}

export function createSiteData(db: DB, baseUrl: string, options: { placeFinder?: boolean } = {}): SiteData {
  let cities: CityWithEditions[] | undefined;
  let totals: Map<string, StateTotals> | undefined;
  const allCities = () => (cities ??= citiesWithEditions(db));
  const totalsOf = (name: string) => (totals ??= new Map(placeTotals(db).map((t) => [t.state_name, t]))).get(name);

  const stateGroups = () => {
    const groups: CitiesView["states"] = [];
    for (const c of allCities()) {
      let g = groups.at(-1);
      if (g?.name !== c.state_name) groups.push((g = { name: c.state_name, slug: slugify(c.state_name), cityCount: 0, cities: [] }));
      g.cities.push(link(c));
      g.cityCount++;
    }
    return groups;
  };

  return {
    baseUrl,
    placeFinder: options.placeFinder ?? false,
    home() {
      const all = allCities();
      const byPop = [...all].sort((a, b) => (b.population ?? 0) - (a.population ?? 0));
      const recent = [...all].sort((a, b) => b.latest_date.localeCompare(a.latest_date) || (b.population ?? 0) - (a.population ?? 0));
      return { featured: byPop.slice(0, 12).map(link), recent: recent.slice(0, 8).map(link), cityCount: all.length, stateCount: new Set(all.map((c) => c.state_name)).size };
    },
    cities() {
      const all = allCities();
      return {
        states: stateGroups(), cityCount: all.length,
        points: all.map((c) => ({ slug: c.slug, name: c.name, state: c.state_name, latitude: c.latitude, longitude: c.longitude })),
        backdrop: placeGrid(db),
      };
    },
    state(stateSlug) {
      const group = stateGroups().find((g) => g.slug === stateSlug);
      if (!group) return undefined;
      const sorted = [...group.cities].sort((a, b) => (b.population ?? 0) - (a.population ?? 0) || a.name.localeCompare(b.name));
      return { name: group.name, slug: group.slug, cities: sorted, population: totalsOf(group.name)?.population ?? 0 };
    },
    city(slug) {
      // Any U.S. place: the publisher renders the ones with editions; the server renders the others
      // on demand (a page that invites the first subscriber).
      const place = placeBySlug(db, slug);
      if (!place) return undefined;
      const latest = latestSiteEdition(db, place.geoid);
      return {
        place: placeInfo(place),
        latest: latest && editionBody(latest),
        archive: archiveIndex(db, place.geoid, CITY_ARCHIVE_ITEMS),
        archiveTotal: latest ? editionCountOf(db, place.geoid) : 0,
        census: censusFigures(place),
        censusYear: place.acs_detail_year ?? place.acs_year,
        comparison: comparison(place, totalsOf(place.state_name), totalsOf("United States")),
      };
    },
    edition(slug, date) {
      const place = placeBySlug(db, slug);
      const row = place && siteEdition(db, place.geoid, date);
      if (!place || !row) return undefined;
      return { place: placeInfo(place), edition: editionBody(row), previous: previousEditionDate(db, place.geoid, date) };
    },
    developers() {
      return { problems: Object.entries(PROBLEMS).map(([code, p]) => ({ code, status: p.status, title: p.title, resolution: p.resolution })) };
    },
  };
}
