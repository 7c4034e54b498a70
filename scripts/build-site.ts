// `npm run build`: rebuilds the Astro renderer bundle and the whole site from the database.
// `--if-missing` (the `prestart` hook) builds only when DATA_DIR has no site yet, or when the site was
// built for another base URL (its links would point where nothing listens), so starts stay fast.
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { liveBuild, siteDirs, siteExists } from "../src/publish/site-dir.ts";
import { ensureRendererBuilt } from "../src/publish/site-renderer.ts";
import { buildSite } from "../src/services/site/publish.ts";

const config = loadConfig();
const ifMissing = process.argv.includes("--if-missing");
if (ifMissing && siteExists(config.dataDir)) {
  const built = liveBuild(siteDirs(config.dataDir))?.baseUrl;
  if (built === config.baseUrl) process.exit(0);
  console.log(`the site was built for ${built ?? "an unrecorded base URL"}; rebuilding it for ${config.baseUrl}`);
}

const started = performance.now();
await ensureRendererBuilt({ force: !ifMissing });
const ctx = createContext(config);
const { pagesWritten, target } = await buildSite(ctx);
ctx.db.close();
console.log(`built ${pagesWritten} files into ${siteDirs(config.dataDir).root} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (target.target !== "local") console.log(`${target.target}: ${target.uploaded} objects uploaded, ${target.unchanged} files unchanged, ${target.deleted} deleted`);
