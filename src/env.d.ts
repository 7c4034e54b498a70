/// <reference types="astro/client" />
// `Astro.locals.site` is filled by the publisher (src/services/publish.ts) for every render.
declare namespace App {
  interface Locals {
    site: import("./services/site-pages.ts").SiteData;
  }
}
