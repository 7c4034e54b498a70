// How much of the country the town directory covers: the importer's report. Pure.
import type { NewCandidate } from "./candidate.ts";
import type { PlaceIndex } from "./place-lookup.ts";

export interface DirectoryCounts {
  places: number;
  placesWithAny: number;
  places5000: number;
  places5000WithAny: number;
  /** Places with a source of their own (scope town), not only county-wide ones. */
  placesWithTown: number;
  places5000WithTown: number;
  /** Places with at least one candidate of each kind and scope ("news/town", "news/county", ...). */
  placesBy: Record<string, number>;
  /** Candidates (rows) of each kind and scope. */
  rowsBy: Record<string, number>;
  /** Places with a news outlet (town or county) that has a recorded feed. */
  placesWithNewsFeed: number;
  rows: number;
}

export function directoryCounts(index: PlaceIndex, candidates: readonly NewCandidate[]): DirectoryCounts {
  const placesBy = new Map<string, Set<string>>();
  const rowsBy: Record<string, number> = {};
  const any = new Set<string>();
  const own = new Set<string>();
  const newsFeed = new Set<string>();
  for (const c of candidates) {
    const k = `${c.kind}/${c.scope}`;
    rowsBy[k] = (rowsBy[k] ?? 0) + 1;
    if (!placesBy.has(k)) placesBy.set(k, new Set());
    placesBy.get(k)!.add(c.placeGeoid);
    any.add(c.placeGeoid);
    if (c.scope === "town") own.add(c.placeGeoid);
    if (c.kind === "news" && c.feedUrls.length > 0) newsFeed.add(c.placeGeoid);
  }
  const big = [...index.byGeoid.values()].filter((p) => (p.population ?? 0) >= 5000);
  return {
    places: index.byGeoid.size,
    placesWithAny: any.size,
    places5000: big.length,
    places5000WithAny: big.filter((p) => any.has(p.geoid)).length,
    placesWithTown: own.size,
    places5000WithTown: big.filter((p) => own.has(p.geoid)).length,
    placesBy: Object.fromEntries([...placesBy].sort(([a], [b]) => a.localeCompare(b)).map(([k, s]) => [k, s.size])),
    rowsBy: Object.fromEntries(Object.entries(rowsBy).sort(([a], [b]) => a.localeCompare(b))),
    placesWithNewsFeed: newsFeed.size,
    rows: candidates.length,
  };
}
