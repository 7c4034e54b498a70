import type { H3 } from "h3";
import { subscribeOperations } from "../../src/contract/operations/subscribe.ts";
import type { AppContext } from "../../src/services/context.ts";
import { subscribe } from "../../src/services/subscribe.ts";
import type { OperationRouter } from "../operation-route.ts";
import { enforceSubscribeLimit } from "../rate-limit.ts";

const SUBSCRIBE_PATHS = new Set(["/api/subscribe", "/api/v1/subscribe"]);

export function subscribeRoutes(router: OperationRouter, app: H3, ctx: AppContext): void {
  // Counted before the body is read, so malformed and bot requests use up the allowance too.
  app.use((event) => enforceSubscribeLimit(ctx, event), {
    method: "POST",
    match: (event) => SUBSCRIBE_PATHS.has(event.url.pathname),
  });
  router.add(subscribeOperations.subscribe, ({ body }) => subscribe(ctx, body));
}
