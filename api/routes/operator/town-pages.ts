import type { H3 } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { clicksCsvOf, statementCsvOf } from "../../../src/services/commerce/operator-desk.ts";
import { notYourTown } from "./desk-page.ts";
import { noticeOf, SLUG, type OperatorDesk } from "./requests.ts";

/** A town's desk and its downloads: the statement and the clicks per edition, each a CSV of one of the operator's towns. */
export function operatorTownPageRoutes(app: H3, ctx: AppContext, { requireOperator, desk }: OperatorDesk): void {
  app.get("/operator/towns/:slug", (event) => {
    const email = requireOperator(event);
    if (email instanceof Response) return email;
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    return desk(event, email, slug, 200, { notice: noticeOf(event.url.searchParams.get("done")) });
  });

  const deskCsv = (name: string, of: (ctx: AppContext, email: string, slug: string) => string) => app.get(`/operator/towns/:slug/${name}.csv`, (event) => {
    const email = requireOperator(event);
    if (email instanceof Response) return email;
    const slug = event.context.params!.slug;
    try {
      const text = of(ctx, email, SLUG.test(slug) ? slug : "-");
      return new Response(text, { headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="citydaily-${slug}-${name}.csv"`, "Cache-Control": "no-store" } });
    } catch (err) {
      if (err instanceof AppError && err.code === "not_found") return notYourTown(ctx);
      throw err;
    }
  });
  deskCsv("statement", statementCsvOf);
  deskCsv("clicks", clicksCsvOf);
}
