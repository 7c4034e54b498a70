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
    env: { BASE_URL: "" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel, each with its own server, data directory and database.
    fileParallelism: true,
  },
});
