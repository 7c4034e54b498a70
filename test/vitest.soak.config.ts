import { defineConfig } from "vitest/config";

// `npm run test:soak`: the long soak (SOAK_SECONDS, default 600), apart from `npm test`.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["test/soak/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    env: { BASE_URL: "" },
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
  },
});
