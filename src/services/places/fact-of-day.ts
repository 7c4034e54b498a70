import type { TownFactContext } from "../../core/edition/did-you-know.ts";
import { FactPlaces } from "../../core/edition/fact-places.ts";
import { timeZoneName } from "../../core/places/zone-names.ts";
import { factPlaceRows, stateDensities } from "../../store/morning/fact-places.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { censusOf } from "./cities.ts";

// What "Did you know?" can tell of a town: the places dataset read once per morning run into memory
// (src/core/edition/fact-places.ts); the fact of the day is chosen when the edition is composed.

/** The places facts index for a run (two queries). */
export function factPlaces(ctx: AppContext): FactPlaces {
  return new FactPlaces(factPlaceRows(ctx.db), stateDensities(ctx.db));
}

/** Everything the dataset says about a town that a fact can be made of. */
export function townFactContext(places: FactPlaces, place: PlaceRow): TownFactContext {
  return {
    name: place.name,
    stateName: place.state_name,
    countyName: place.county_name,
    timeZoneName: timeZoneName(place.timezone),
    latitude: place.latitude,
    figures: censusOf(place),
    stateRank: places.rank(place, "state"),
    countyRank: places.rank(place, "county"),
    stateDensity: places.stateDensity(place.state_name),
    nearestLarger: places.nearestLarger(place),
    capital: places.capital(place),
  };
}
