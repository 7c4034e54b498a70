// The Astro site. It is built once into a server bundle (dist/renderer) whose App the publisher
// calls in-process to render exactly the pages that changed (see src/publish/site-renderer.ts);
// pages get their data from the `site` object the publisher puts in `Astro.locals`.
import { fileURLToPath } from "node:url";
import { defineConfig, passthroughImageService } from "astro/config";

/** A tiny adapter: its server entry only exports Astro's App, so nothing listens and nothing autostarts. */
function inProcessRenderer() {
  const entry = fileURLToPath(new URL("./src/site/render-entry.mjs", import.meta.url));
  return {
    name: "citydaily-renderer",
    hooks: {
      "astro:config:done": ({ setAdapter }) => {
        setAdapter({
          name: "citydaily-renderer",
          entrypointResolution: "auto",
          serverEntrypoint: entry,
          adapterFeatures: { buildOutput: "server" },
          supportedAstroFeatures: { serverOutput: "stable", staticOutput: "stable", hybridOutput: "stable" },
        });
      },
    },
  };
}

export default defineConfig({
  output: "server",
  // The publisher builds each version into its own directory (src/publish/site-renderer.ts).
  outDir: process.env.CITYDAILY_RENDERER_OUT ?? "./dist/renderer/dev",
  adapter: inProcessRenderer(),
  session: false,
  image: { service: passthroughImageService() },
  trailingSlash: "never",
  build: { format: "file", inlineStylesheets: "never" },
  devToolbar: { enabled: false },
  telemetry: false,
});
