import type { H3 } from "h3";
import { HEALTH_TYPE, type HealthResponse } from "../../../src/contract/health.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { liveness, readiness } from "../../../src/services/platform/health.ts";

/** `/livez` and `/readyz` (src/services/platform/health.ts): never cached, not even by the edge. */
export function healthRoutes(app: H3, ctx: AppContext): void {
  const answer = (body: HealthResponse, head: boolean) => new Response(head ? null : JSON.stringify(body), {
    status: body.status === "fail" ? 503 : 200,
    headers: { "Content-Type": HEALTH_TYPE, "Cache-Control": "no-store" },
  });
  app.get("/livez", (event) => answer(liveness(), event.req.method === "HEAD"));
  app.get("/readyz", (event) => answer(readiness(ctx), event.req.method === "HEAD"));
}
