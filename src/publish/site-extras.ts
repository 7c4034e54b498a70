import { transformSync } from "esbuild";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "../config/paths.ts";
import { buildPlaceIndex } from "../site/place-index.ts";
import type { DB } from "../store/db.ts";

/** Files the place finder (src/components/PlaceFinder.astro) loads from the site root: the finder first, what it imports after. */
const FINDER_FILES: ReadonlyArray<[string, string]> = [
  ["src/site/place-finder.js", "place-finder.js"],
  ["src/site/place-ranking.js", "place-ranking.js"],
  ["node_modules/minisearch/dist/es/index.js", "minisearch.js"],
];

/** Served minified (esbuild, already Astro's): minisearch's ES build is 78 KB of readable source, 18 KB minified. */
const minified = (file: string) => transformSync(fs.readFileSync(path.join(PROJECT_ROOT, file), "utf8"), { minify: true, format: "esm", target: "es2020" }).code;
const hashed = (name: string, body: string) => `${name}.${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 10)}.js`;

/**
 * The place finder's index of every U.S. place and its browser modules, written on full builds
 * (the places do not change from one morning to the next; a morning's generation links them over).
 * The modules also go to the archive's `_astro/` under content-hashed names, served `immutable`: the
 * pages load those (`placeFinderScript`); the unhashed copies stay for pages cached before.
 */
export async function writeSiteExtras(db: DB, generation: string, archive: string, compressed?: { add(rel: string, body: string | Uint8Array): void }): Promise<{ placeFinder: boolean; placeFinderScript: string; files: number }> {
  const index = buildPlaceIndex(db);
  fs.writeFileSync(path.join(generation, "place-index.json"), index);
  compressed?.add("place-index.json", index);
  const bodies = new Map(FINDER_FILES.map(([source, name]) => [name, minified(source)]));
  for (const [name, body] of bodies) fs.writeFileSync(path.join(generation, name), body);
  // The hashed copies import each other by their hashed names: the modules imported first, the finder last.
  const hashedNames = new Map<string, string>();
  const hashedCopies: Array<[string, string]> = [];
  for (const [, name] of [...FINDER_FILES].reverse()) {
    let body = bodies.get(name)!;
    for (const [plain, named] of hashedNames) body = body.replace(new RegExp(`(["'])\\./${plain.replace(/[.]/g, "\\.")}\\1`, "g"), `$1./${named}$1`);
    if (/(["'])\.\/(minisearch|place-ranking)\.js\1/.test(body)) throw new Error(`${name} imports a finder module by its plain name`);
    const named = hashed(name.replace(/\.js$/, ""), body);
    hashedNames.set(name, named);
    hashedCopies.push([named, body]);
  }
  fs.mkdirSync(path.join(archive, "_astro"), { recursive: true });
  for (const [name, body] of hashedCopies) {
    const file = path.join(archive, "_astro", name);
    if (!fs.existsSync(file)) fs.writeFileSync(file, body);
  }
  const finderName = hashedNames.get(FINDER_FILES[0][1])!;
  return { placeFinder: true, placeFinderScript: `/_astro/${finderName}`, files: 1 + FINDER_FILES.length };
}
