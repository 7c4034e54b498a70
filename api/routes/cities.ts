import { AppError } from "../../src/core/errors.ts";
import { cityOperations } from "../../src/contract/operations/cities.ts";
import { getCity, listCensusCities, listCities, requireCity } from "../../src/services/cities.ts";
import type { AppContext } from "../../src/services/context.ts";
import { getEdition } from "../../src/services/editions.ts";
import { getFacts } from "../../src/services/facts.ts";
import type { OperationRouter } from "../operation-route.ts";
import { markdownRead } from "../respond.ts";
import { IsoDate } from "../../src/contract/common.ts";

export function cityRoutes(router: OperationRouter, ctx: AppContext): void {
  const ops = cityOperations;
  router
    .add(ops.listCities, () => listCities(ctx))
    .add(ops.listCensusCities, ({ query }) => listCensusCities(ctx, query))
    .add(ops.getCity, ({ params }) => getCity(ctx, params.slug))
    .add(ops.getFacts, ({ params }) => getFacts(ctx, params.slug))
    .add(ops.getArchive, ({ params, event }) => {
      const markdown = params.date.endsWith(".md");
      const date = markdown ? params.date.slice(0, -3) : params.date;
      requireCity(ctx, params.slug); // slug errors come before date errors
      if (!IsoDate.safeParse(date).success) {
        throw new AppError("validation_error", `"${date.slice(0, 40)}" is not a calendar date in YYYY-MM-DD form.`, {
          issues: [{ path: "date", message: "must be a real calendar date YYYY-MM-DD, optionally followed by .md" }],
        });
      }
      const edition = getEdition(ctx, params.slug, date);
      if (markdown) return markdownRead(event, edition.markdown, ops.getArchive.cache);
      return { html: edition.html, subject: edition.subject, date: edition.date };
    });
}

/** Paths that name a city-keyed resource without the slug. */
export const SLUGLESS_PATHS = ["/api/city", "/api/facts", "/api/weather", "/api/archive"];
