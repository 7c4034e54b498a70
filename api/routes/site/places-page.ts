import type { H3, H3Event } from "h3";
import { operationsById } from "../../../src/contract/operations/index.ts";
import type { PlacesResponse } from "../../../src/contract/places.ts";
import { toFieldIssues } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { runOperation, type Caller } from "../../../src/services/operations/bindings.ts";
import type { PlacesView } from "../../../src/site/pages/site.ts";
import { clientAddress } from "../../http/client-address.ts";
import { viewPage } from "../../http/html-page.ts";

/**
 * GET /places?q=: "Find your town" without JavaScript. The site's place finder is a GET form to
 * here; this page runs the find_place operation (the same index and ranking as the browser's box)
 * and lists the matches (src/pages/on-request/site/places.astro). A search too short to run is
 * shown next to the field, with what was typed kept.
 */
const op = operationsById.findPlace;
const number = new Intl.NumberFormat("en-US");

function resultOf(place: PlacesResponse["results"][number]): PlacesView["results"][number] {
  return {
    slug: place.slug, name: place.name, hasNewsletter: place.hasNewsletter,
    where: `${place.name}${place.county ? ` (${place.county})` : ""}, ${place.state}`,
    people: place.population > 0 ? `${number.format(place.population)} people` : "population not known",
  };
}

export function placesPageRoutes(app: H3, ctx: AppContext): void {
  app.get("/places", async (event: H3Event) => {
    const typed = (event.url.searchParams.get("q") ?? "").slice(0, 200);
    const parsed = op.query.safeParse({ q: typed, limit: 10 });
    if (!parsed.success) {
      const issue = toFieldIssues(parsed.error.issues).find((i) => i.path === "q");
      const error = typed.trim().length < 2 ? "Type at least two letters of a town's name, e.g. Marfa or Ely, Nevada." : `The search ${issue?.message ?? "cannot be run"}.`;
      return viewPage(ctx, 400, "site/places", { typed, error, results: [], landing: "/places" });
    }
    const caller: Caller = { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false };
    const { results } = (await runOperation(ctx, op, parsed.data, caller)).data as PlacesResponse;
    return viewPage(ctx, 200, "site/places", { typed, q: parsed.data.q, results: results.map(resultOf), landing: `/places?q=${encodeURIComponent(parsed.data.q)}` });
  });
}
