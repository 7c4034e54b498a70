import { dataVersionOfTurn } from "../../store/platform/data-version.ts";
import type { AppContext } from "./context.ts";

/**
 * The database's data version as the caches in front of the services key on it (the HTTP edge cache,
 * MCP's replay): this connection's writes exactly, other connections' commits as read once per turn
 * (src/store/platform/data-version.ts). api/ reaches the store only through services, so through here.
 */
export function dataVersionOfThisTurn(ctx: AppContext): string {
  return dataVersionOfTurn(ctx.db);
}
