import { referralCounts, type ReferralCount } from "../../store/readers/subscribers.ts";
import { requireTown } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";

/** Readers of a town who brought others through their "Forward to a neighbor" link, most first (the operator desk). */
export function townReferralCounts(ctx: AppContext, slug: string): ReferralCount[] {
  return referralCounts(ctx.db, requireTown(ctx, slug).geoid);
}
