import type { H3, H3Event } from "h3";
import { operationsById } from "../../../src/contract/operations/index.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { orderNumbersCsv, orderPage } from "../../../src/services/commerce/buyer-pages.ts";
import { viewPage } from "../../http/html-page.ts";
import "../../../src/site/pages/commerce.ts";

/**
 * GET /orders/{id}: a listing order for the person who bought it, the human view of
 * GET /api/listing-order (the same service): src/pages/on-request/commerce/order.astro. While
 * something is still to happen the page reloads itself (a Refresh header: no JavaScript needed);
 * `?updates=off` stops it. The checkout's success and cancel addresses lead here.
 */
const byId = operationsById.getListingOrder.query;

async function orderPageAnswer(ctx: AppContext, event: H3Event, id: string): Promise<Response> {
  const asked = {
    cancelled: event.url.searchParams.get("checkout") === "cancelled",
    // Reloading is announced and can be stopped (WCAG 2.2.1): `?updates=off` answers without the Refresh header.
    updating: event.url.searchParams.get("updates") !== "off",
  };
  const view = byId.safeParse({ id }).success ? orderPage(ctx, id, asked) : undefined;
  if (!view) return viewPage(ctx, 404, "commerce/missing", { what: "order" });
  return viewPage(ctx, 200, "commerce/order", view, { refreshSeconds: view.updating ? view.refreshSeconds : undefined });
}

export function orderPageRoutes(app: H3, ctx: AppContext): void {
  app.get("/orders/:id", (event) => orderPageAnswer(ctx, event, event.context.params!.id));
  app.get("/orders/:id/numbers.csv", (event) => {
    const id = event.context.params!.id;
    const csv = byId.safeParse({ id }).success ? orderNumbersCsv(ctx, id) : undefined;
    if (csv === undefined) return viewPage(ctx, 404, "commerce/missing", { what: "numbers" });
    return new Response(csv, { headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${id}-numbers.csv"`, "Cache-Control": "no-store" } });
  });
}
