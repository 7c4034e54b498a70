import { transformSync } from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "../config.ts";
import { buildPlaceIndex } from "../site/place-index.ts";
import type { DB } from "../store/db.ts";

/** Files the place finder (src/components/PlaceFinder.astro) loads from the site root. */
const FINDER_FILES: ReadonlyArray<[string, string]> = [
  ["src/site/place-finder.js", "place-finder.js"],
  ["node_modules/minisearch/dist/es/index.js", "minisearch.js"],
];

/**
 * The place finder's index of every U.S. place and its two browser modules, written on full builds
 * (the places do not change from one morning to the next; a morning's generation links them over).
 */
export async function writeSiteExtras(db: DB, generation: string, compressed?: { add(rel: string, body: string | Uint8Array): void }): Promise<{ placeFinder: boolean; files: number }> {
  const index = buildPlaceIndex(db);
  fs.writeFileSync(path.join(generation, "place-index.json"), index);
  compressed?.add("place-index.json", index);
  for (const [from, to] of FINDER_FILES) {
    // Served minified (esbuild, already Astro's): minisearch's ES build is 60 KB of readable source.
    const body = transformSync(fs.readFileSync(path.join(PROJECT_ROOT, from), "utf8"), { minify: true, format: "esm", target: "es2020" }).code;
    fs.writeFileSync(path.join(generation, to), body);
    compressed?.add(to, body);
  }
  return { placeFinder: true, files: 1 + FINDER_FILES.length };
}
