import { searchOperations } from "../../src/contract/operations/search.ts";
import type { AppContext } from "../../src/services/context.ts";
import { searchArchive } from "../../src/services/search.ts";
import type { OperationRouter } from "../operation-route.ts";

export function searchRoutes(router: OperationRouter, ctx: AppContext): void {
  router.add(searchOperations.searchArchive, ({ query }) => searchArchive(ctx, query));
}
