/// <reference types="astro/client" />
// `Astro.locals.site` is filled by the publisher (src/publish/render-pages.ts), built by src/site/views.ts for every render.
declare namespace App {
  interface Locals {
    site: import("./site/views.ts").SiteData;
    /** The view of an on-request page (src/site/pages/on-request.ts), set by api/http/html-page.ts `viewPage`. */
    view?: unknown;
  }
}
