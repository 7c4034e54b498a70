import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "../config.ts";
import type { AppContext } from "../services/context.ts";
import { writeTextOutputs, type TextOutputOptions } from "./text-outputs.ts";

// The files of the site that are not Astro pages, written by other modules.
// The place finder is probed for (TEMPORARY) until src/services/place-index.ts exists in the tree.

async function optional<T>(rel: string): Promise<T | undefined> {
  const file = path.join(PROJECT_ROOT, rel);
  return fs.existsSync(file) ? ((await import(pathToFileURL(file).href)) as T) : undefined;
}

/** Markdown twins, feeds, sitemaps and llms files (src/publish/text-outputs.ts). */
export function writeTextFiles(ctx: AppContext, options: TextOutputOptions): Promise<number> {
  return writeTextOutputs(ctx, options);
}

/** The place finder's index (`/place-index.json`) and its browser modules, on full builds. */
export async function writeSiteExtras(ctx: AppContext, generation: string): Promise<{ placeFinder: boolean; files: number }> {
  const mod = await optional<{ buildPlaceIndex: (db: AppContext["db"]) => string }>("src/services/place-index.ts");
  if (!mod) return { placeFinder: false, files: 0 };
  fs.writeFileSync(path.join(generation, "place-index.json"), mod.buildPlaceIndex(ctx.db));
  let files = 1;
  for (const [from, to] of [["src/site/place-finder.js", "place-finder.js"], ["node_modules/minisearch/dist/es/index.js", "minisearch.js"]]) {
    const src = path.join(PROJECT_ROOT, from);
    if (fs.existsSync(src)) {
      fs.copyFileSync(src, path.join(generation, to));
      files++;
    }
  }
  return { placeFinder: true, files };
}
