import fs from "node:fs";
import path from "node:path";
import { currentGeneration, siteDirs } from "../../publish/site-dir.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * A published text file of the site (`llms.txt`, `feed.md`, `{slug}.md`...) as the web server serves
 * it: the live generation first, then the archive. Undefined when it is not published (yet).
 */
export function readPublishedFile(ctx: AppContext, rel: string): string | undefined {
  if (rel.split("/").some((s) => s === "" || s.startsWith("."))) return undefined;
  const dirs = siteDirs(ctx.config.dataDir);
  const live = currentGeneration(dirs);
  for (const dir of live ? [live, dirs.archive] : [dirs.archive]) {
    const file = path.join(dir, rel);
    if (!file.startsWith(dir + path.sep)) return undefined;
    try {
      return fs.readFileSync(file, "utf8");
    } catch {
      // not in this directory; try the next
    }
  }
  return undefined;
}
