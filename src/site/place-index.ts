// One folding for the index, the browser's finder and the server's find_place.
import { fold } from "./place-ranking.js";
import MiniSearch from "minisearch";
import type { DB } from "../store/db.ts";
import { placeFinderRows } from "../store/places/places.ts";

/**
 * The place finder's index: every U.S. place (name, state, county when the name repeats within the
 * state, population), as a serialised minisearch index the browser loads from `/place-index.json`
 * (src/site/place-finder.js), so "find your town" needs no server round trip.
 *
 * Payload: `{ version, options, index }`; the browser calls `MiniSearch.loadJS(index, options)`.
 * Names are indexed ASCII-folded and lowercased (`Cañon` as `canon`); the browser folds the query the
 * same way, so no function has to travel with the JSON.
 */
export const PLACE_INDEX_VERSION = 2;


/**
 * `n` and `s` are the folded name and state that are searched, `c` the name's letters run together
 * when it has several words ("sanfrancisco"), for readers who type it so; the others are shown.
 */
interface PlaceDoc { slug: string; name: string; state: string; county?: string; population: number; n: string; s: string; c?: string }

const OPTIONS = {
  idField: "slug",
  fields: ["n", "s", "c"],
  storeFields: ["name", "state", "county", "population"],
};

/** The index itself: the browser's copy is loaded from its JSON, the server's (find_place) is built here. */
export function createPlaceIndex(db: DB): MiniSearch<PlaceDoc> {
  const index = new MiniSearch<PlaceDoc>(OPTIONS);
  index.addAll(placeFinderRows(db).map((r) => ({
    slug: r.slug, name: r.name, state: r.state, population: r.population ?? 0, n: fold(r.name), s: fold(r.state),
    ...(/[^a-z0-9]/.test(fold(r.name)) ? { c: fold(r.name).replace(/[^a-z0-9]+/g, "") } : {}),
    // The county tells apart places that share a name within a state.
    ...(r.ambiguous > 1 && r.county ? { county: r.county } : {}),
  })));
  return index;
}

export function buildPlaceIndex(db: DB): string {
  return JSON.stringify({ version: PLACE_INDEX_VERSION, options: OPTIONS, index: createPlaceIndex(db) });
}
