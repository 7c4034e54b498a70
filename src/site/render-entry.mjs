// Server entry of the renderer bundle (see astro.config.mjs): exposes Astro's App to the publisher.
import { createApp } from "astro/app/entrypoint";

export const app = createApp({ streaming: false });

// Astro loads a page's module with `import()` on every render; for a module already loaded that still
// costs about 40 µs, and a national morning renders 30,000 pages (1 s of CPU in its profile). Each
// page's module promise is kept instead. (`manifest.pageMap` is Astro's own table of page loaders;
// without it, pages load as before.)
const pages = app.manifest?.pageMap;
if (pages instanceof Map) {
  for (const [component, load] of pages) {
    let loaded;
    pages.set(component, () => (loaded ??= load()));
  }
}
