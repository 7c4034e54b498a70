import type { CensusFact } from "../../core/places/census-facts.ts";
import { distanceAndBearing, factOfDay, STATE_CAPITALS, townFacts, type NearbyPlace, type TownFactContext } from "../../core/edition/did-you-know.ts";
import { addDays } from "../../core/calendar/holidays.ts";
import { timeZoneName } from "../../core/places/zone-names.ts";
import { recentFactKeys } from "../../store/morning/editions.ts";
import { findPlaceByName, largerPlacesNear, populationRank, stateDensity, type PlaceRow } from "../../store/places/places.ts";
import { censusOf } from "./cities.ts";
import type { AppContext } from "../platform/context.ts";
import { FACT_WINDOW_DAYS } from "../../core/edition/did-you-know.ts";

/** The nearest place with more people, searching ever wider boxes (most towns find one within 1°). */
function nearestLarger(ctx: AppContext, place: PlaceRow): NearbyPlace | null {
  if (!place.population) return null;
  const here = { lat: place.latitude, lon: place.longitude };
  for (const degrees of [0.75, 2, 5, 15]) {
    const rows = largerPlacesNear(ctx.db, place.latitude, place.longitude, place.population, degrees);
    let best: NearbyPlace | null = null;
    for (const r of rows) {
      const d = distanceAndBearing(here, { lat: r.latitude, lon: r.longitude });
      // Only within the box's inscribed radius is "nearest" certain; farther ones wait for a wider box.
      if (d.miles > degrees * 69 || (best && d.miles >= best.miles)) continue;
      best = { name: r.name, stateName: r.state_name, population: r.population, ...d };
    }
    if (best) return best;
  }
  return null;
}

function capitalOf(ctx: AppContext, place: PlaceRow): NearbyPlace | null {
  const name = STATE_CAPITALS[place.state_name];
  if (!name || name === place.name) return null;
  const cap = findPlaceByName(ctx.db, name, place.state_name);
  if (!cap) return null;
  return { name: cap.name, stateName: cap.state_name, population: cap.population ?? 0, ...distanceAndBearing({ lat: place.latitude, lon: place.longitude }, { lat: cap.latitude, lon: cap.longitude }) };
}

/** Everything the dataset says about a town that a fact can be made of. */
export function townFactContext(ctx: AppContext, place: PlaceRow): TownFactContext {
  return {
    name: place.name,
    stateName: place.state_name,
    countyName: place.county_name,
    timeZoneName: timeZoneName(place.timezone),
    latitude: place.latitude,
    figures: censusOf(place),
    stateRank: populationRank(ctx.db, place, "state"),
    countyRank: populationRank(ctx.db, place, "county"),
    stateDensity: stateDensity(ctx.db, place.state_name),
    nearestLarger: nearestLarger(ctx, place),
    capital: capitalOf(ctx, place),
  };
}

/** The fact the town's edition of `date` tells, or null (see factOfDay: none repeats within 30 mornings). */
export function townFactOfDay(ctx: AppContext, place: PlaceRow, date: string): CensusFact | null {
  const facts = townFacts(townFactContext(ctx, place));
  return factOfDay(facts, place.geoid, date, recentFactKeys(ctx.db, place.geoid, addDays(date, -FACT_WINDOW_DAYS), date));
}
