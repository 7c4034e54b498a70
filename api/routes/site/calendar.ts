import type { H3, H3Event } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { townCalendarIcs } from "../../../src/services/site/calendar.ts";
import { cachedResponse } from "../../http/caching.ts";

// `/{slug}/calendar.ics`: a town's public calendar to subscribe to (webcal:). Served by the API
// server from the database rather than published with the site: a listing is published by the
// payment callback at any hour, and the calendar should show it as /api/city does, within seconds,
// not at the next publish. Calendar apps poll it; the strong ETag answers their revalidations with
// 304, and the body is the same bytes until the calendar changes (src/core/calendar/town-ics.ts).

const CACHE_CONTROL = "public, max-age=300, s-maxage=600";

export function calendarRoutes(app: H3, ctx: AppContext): void {
  app.all("/:slug/calendar.ics", (event: H3Event) => {
    // Calendar apps check with HEAD too; anything else is not a calendar request.
    if (event.req.method !== "GET" && event.req.method !== "HEAD") {
      return new Response(null, { status: 405, headers: { Allow: "GET, HEAD" } });
    }
    const slug = String(event.context.params?.slug ?? "");
    let body: string;
    try {
      body = townCalendarIcs(ctx, slug);
    } catch (error) {
      if (!(error instanceof AppError) || !["city_not_found", "invalid_slug"].includes(error.code)) throw error;
      // As the site answers a town without a page: 404, in words a person opening the link can read.
      return new Response(`No calendar here: ${error.message}\n`, { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=60" } });
    }
    return cachedResponse(event, body, "text/calendar; charset=utf-8", CACHE_CONTROL, {
      "Content-Disposition": `inline; filename="${slug}.ics"`,
      "Access-Control-Allow-Origin": "*",
    });
  });
}
