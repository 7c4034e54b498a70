import type { StatusResponse } from "../../contract/operations/status.ts";
import { serviceTotals } from "../../store/morning/status.ts";
import type { AppContext } from "./context.ts";

export function getStatus(ctx: AppContext): StatusResponse {
  const totals = serviceTotals(ctx.db);
  return { status: "ok", apiVersion: "v1", cities: totals.cities, latestEdition: totals.latestEdition };
}
