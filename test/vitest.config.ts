import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["test/**/*.test.ts"],
    // The soak runs for minutes: `npm run test:soak` (test/vitest.soak.config.ts).
    exclude: ["test/soak/**", "**/node_modules/**"],
    globalSetup: ["test/helpers/global-setup.ts"],
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
    // Vite puts its own BASE_URL ("/") into process.env; the scripts tests spawn read ours.
    // No test reaches the internet: a server or script a test starts from this environment without
    // naming its providers gets a closed local port for each (tests that need one start a stand-in).
    // The town directory (340,000 rows) is not imported by every server a test starts: its tests import it.
    env: {
      BASE_URL: "", TOWN_DIRECTORY_IMPORT: "manual",
      OPEN_METEO_URL: "http://127.0.0.1:9", NWS_API_URL: "http://127.0.0.1:9", AIR_QUALITY_API_URL: "http://127.0.0.1:9",
      USGS_EARTHQUAKES_URL: "http://127.0.0.1:9", OPENFEMA_API_URL: "http://127.0.0.1:9",
      // The scripts and servers tests start as processes (40 in test/resilience alone) load the app's
      // modules from V8's code cache on disk, the one the render workers use: less CPU to start each.
      NODE_COMPILE_CACHE: new URL("../dist/compile-cache", import.meta.url).pathname,
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel, each with its own server, data directory and database.
    // Two workers: Vitest's default for a run is one fewer than the cores, so one on such a machine.
    fileParallelism: true,
    maxWorkers: 2,
    // A worker runs file after file in one module graph: the app's modules (and Chromium, see
    // helpers/browser.ts) load once per worker, not once per file (1.5 s of CPU a file). Sound because
    // no module keeps state of its own: every server, database and clock is made per file or per test.
    isolate: false,
  },
});
