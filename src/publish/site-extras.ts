import { transformSync } from "esbuild";
import crypto from "node:crypto";
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

/** Served minified (esbuild, already Astro's): minisearch's ES build is 78 KB of readable source, 18 KB minified. */
const minified = (file: string) => transformSync(fs.readFileSync(path.join(PROJECT_ROOT, file), "utf8"), { minify: true, format: "esm", target: "es2020" }).code;
const hashed = (name: string, body: string) => `${name}.${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 10)}.js`;

/**
 * The place finder's index of every U.S. place and its three browser modules, written on full builds
 * (the places do not change from one morning to the next; a morning's generation links them over).
 * The modules also go to the archive's `_astro/` under content-hashed names, served `immutable`: the
 * pages load those (`placeFinderScript`); the unhashed copies stay for pages cached before.
 */
export async function writeSiteExtras(db: DB, generation: string, archive: string, compressed?: { add(rel: string, body: string | Uint8Array): void }): Promise<{ placeFinder: boolean; placeFinderScript: string; files: number }> {
  const index = buildPlaceIndex(db);
  fs.writeFileSync(path.join(generation, "place-index.json"), index);
  compressed?.add("place-index.json", index);
  const minisearch = minified(FINDER_FILES[1][0]);
  const finder = minified(FINDER_FILES[0][0]);
  const minisearchName = hashed("minisearch", minisearch);
  // The finder imports "./minisearch.js": the hashed copy imports the hashed minisearch.
  const hashedFinder = finder.replace(/(["'])\.\/minisearch\.js\1/, `$1./${minisearchName}$1`);
  if (hashedFinder === finder) throw new Error("place-finder.js no longer imports ./minisearch.js");
  const finderName = hashed("place-finder", hashedFinder);
  fs.writeFileSync(path.join(generation, FINDER_FILES[0][1]), finder);
  fs.writeFileSync(path.join(generation, FINDER_FILES[1][1]), minisearch);
  fs.mkdirSync(path.join(archive, "_astro"), { recursive: true });
  for (const [name, body] of [[minisearchName, minisearch], [finderName, hashedFinder]]) {
    const file = path.join(archive, "_astro", name);
    if (!fs.existsSync(file)) fs.writeFileSync(file, body);
  }
  return { placeFinder: true, placeFinderScript: `/_astro/${finderName}`, files: 3 };
}
