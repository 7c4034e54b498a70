import type { Config } from "../../src/config/load.ts";
import { baseUrlForSite } from "../../src/publish/site-dir.ts";

/**
 * For commands that write links into emails or the site (the admin CLI, `npm run morning`, `npm run
 * mail:send`): the site's recorded base URL when BASE_URL is not set, BASE_URL when it agrees; when
 * they differ, one line saying why and how to fix it, and exit (see `baseUrlForSite`).
 */
export function configForSite(config: Config): Config {
  const resolved = baseUrlForSite(config.dataDir, config);
  if ("error" in resolved) {
    console.error(resolved.error);
    process.exit(1);
  }
  return { ...config, baseUrl: resolved.baseUrl };
}
