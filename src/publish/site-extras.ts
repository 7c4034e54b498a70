import fs from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "../config.ts";
import { buildPlaceIndex } from "../site/place-index.ts";
import type { DB } from "../store/db.ts";

/** Files the place finder (src/components/PlaceFinder.astro) loads from the site root. */
const FINDER_FILES: ReadonlyArray<[string, string]> = [
  ["src/site/place-finder.js", "place-finder.js"],
  ["src/site/place-ranking.js", "place-ranking.js"],
  ["node_modules/minisearch/dist/es/index.js", "minisearch.js"],
];

/**
 * The place finder's index of every U.S. place and its three browser modules, written on full builds
 * (the places do not change from one morning to the next; a morning's generation links them over).
 */
export async function writeSiteExtras(db: DB, generation: string): Promise<{ placeFinder: boolean; files: number }> {
  fs.writeFileSync(path.join(generation, "place-index.json"), buildPlaceIndex(db));
  for (const [from, to] of FINDER_FILES) fs.copyFileSync(path.join(PROJECT_ROOT, from), path.join(generation, to));
  return { placeFinder: true, files: 1 + FINDER_FILES.length };
}
