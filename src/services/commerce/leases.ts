import type { AdminLease } from "../../contract/commerce.ts";
import { AppError } from "../../core/errors.ts";
import { endLease, leaseAsOf, listLeases, type LeaseRow, type LeaseView } from "../../store/commerce/leases.ts";
import type { AppContext } from "../platform/context.ts";

// Staff's view of town leases (`/admin/leases`, `npm run admin -- leases ...`), and ending one. When a
// lease ends, however it ends, what its operator set stops: src/core/commerce/lease-end.ts. Leases are
// read as of now (a lapsed reservation is expired, a cancelled lease past its paid period ended).

function toAdminLease(l: LeaseView): AdminLease {
  return {
    id: l.id, town: { slug: l.slug, city: l.town_name, state: l.state_name }, status: l.status, operatorEmail: l.operator_email,
    priceCents: l.price_cents, provider: l.provider, activatedAt: l.activated_at, cancelAt: l.cancel_at, endedAt: l.ended_at,
  };
}

export function adminListLeases(ctx: AppContext, q: { status?: LeaseRow["status"] }): { leases: AdminLease[] } {
  return { leases: listLeases(ctx.db, q.status, 500, ctx.config.now().toISOString()).map(toAdminLease) };
}

/**
 * Ends an active lease now: the town is free, the operator's desk closes, their notes and feeds stop.
 * A lease Stripe bills is refused (409): cancelling its subscription in Stripe ends it here too (the
 * `customer.subscription.deleted` callback), and ending it only here would leave the operator charged.
 */
export function adminEndLease(ctx: AppContext, id: string): AdminLease {
  const nowIso = ctx.config.now().toISOString();
  const lease = leaseAsOf(ctx.db, id, nowIso);
  if (!lease) throw new AppError("not_found", `No lease ${id}.`);
  if (lease.status !== "active") throw new AppError("conflict", `Lease ${id} is ${lease.status}; only an active lease can be ended.`);
  if (lease.provider === "stripe" && lease.provider_subscription_id) {
    throw new AppError("conflict", `Lease ${id} is billed by Stripe: cancel its subscription ${lease.provider_subscription_id} in Stripe, and Stripe's callback ends the lease.`);
  }
  if (!endLease(ctx.db, id, nowIso)) throw new AppError("conflict", `Lease ${id} is no longer active.`);
  ctx.log.info({ leaseId: id, town: lease.slug }, "staff ended the lease; the town is free");
  return toAdminLease(leaseAsOf(ctx.db, id, nowIso)!);
}
