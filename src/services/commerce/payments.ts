import { reversalOf } from "../../core/commerce/revenue-share.ts";
import type { PaymentEvent } from "../../integrations/payments/types.ts";
import { activateLease, endLeaseBySubscription, findLease, releaseReservation } from "../../store/commerce/leases.ts";
import { insertLedgerEntry, shareOf } from "../../store/commerce/ledger.ts";
import { findOrder, findOrderByPayment, transitionOrder } from "../../store/commerce/orders.ts";
import { enqueueTransactional } from "../../store/mail/outbox.ts";
import { recordPaymentEvent } from "../../store/commerce/payment-events.ts";
import { setPayoutsEnabledByAccount } from "../../store/commerce/payouts.ts";
import type { AppContext } from "../platform/context.ts";
import { afterListingsChanged, markPaidAndPublish, queueOrderMail } from "./listings.ts";
import { settleAllPayouts } from "./payouts.ts";

export interface CallbackResult {
  received: true;
  duplicate: boolean;
  type: PaymentEvent["type"];
}

/**
 * The payment callback: the provider verifies the signature over the raw body (unsigned, tampered
 * and stale requests are refused before anything is read), then the event id is recorded in the
 * same transaction as its effect, so a replay changes nothing; the transaction is a durable group
 * commit (src/store/group-commit.ts).
 */
export async function handlePaymentCallback(ctx: AppContext, rawBody: string, headers: Headers): Promise<CallbackResult> {
  return applyPaymentEvent(ctx, await ctx.payments.verifyCallback(rawBody, headers));
}

/**
 * One verified payment event: its effect and its id in one durable transaction (a second time, it
 * changes nothing). The callback's path, and the replay of Stripe's events after a restore.
 */
export async function applyPaymentEvent(ctx: AppContext, event: PaymentEvent): Promise<CallbackResult> {
  const changed = new Set<string>();
  const nowIso = ctx.config.now().toISOString();
  const reference = "reference" in event ? event.reference : "paymentId" in event ? event.paymentId : "subscriptionId" in event ? event.subscriptionId : "accountId" in event ? event.accountId : null;
  // On disk before the provider hears 200: it would not send the event again.
  const fresh = await ctx.commits.run(() => {
    if (!recordPaymentEvent(ctx.db, { eventId: event.eventId, provider: ctx.payments.name, type: event.type, reference }, nowIso)) return false;
    apply(ctx, event, nowIso, changed);
    return true;
  });
  if (!fresh) ctx.log.info({ eventId: event.eventId }, "payment callback replayed; nothing changed");
  else ctx.log.info({ eventId: event.eventId, type: event.type, reference }, "payment callback applied");
  if (fresh) afterListingsChanged(ctx, changed);
  // Stripe mode: the operator's share moves to their payout account (or its transfer is reversed).
  // After the commit, since it calls Stripe; a failure is logged and retried at the next settlement.
  if (fresh && ctx.connect && (event.type === "refunded" || event.type === "account.updated" || (event.type === "checkout.completed" && event.reference.startsWith("lo_")))) {
    await settleAllPayouts(ctx).catch((err) => ctx.log.error({ err }, "settling operator payouts after a payment callback failed"));
  }
  return { received: true, duplicate: !fresh, type: event.type };
}

function apply(ctx: AppContext, e: PaymentEvent, nowIso: string, changed: Set<string>): void {
  switch (e.type) {
    case "checkout.completed": {
      if (e.reference.startsWith("lo_")) {
        const o = findOrder(ctx.db, e.reference);
        if (!o) return void ctx.log.warn({ reference: e.reference }, "payment for an unknown order");
        if (e.amountCents !== o.price_cents) ctx.log.warn({ orderId: o.id, paid: e.amountCents, price: o.price_cents }, "paid amount differs from the order's price");
        if (markPaidAndPublish(ctx, o, { feeCents: e.feeCents ?? 0, paymentId: e.paymentId, chargeId: e.chargeId ?? null })) changed.add(o.place_geoid);
        else ctx.log.warn({ orderId: o.id, status: o.status }, "payment for an order that is not payable; staff should refund it");
        return;
      }
      if (e.reference.startsWith("tl_")) {
        const lease = findLease(ctx.db, e.reference);
        if (!lease) return void ctx.log.warn({ reference: e.reference }, "payment for an unknown lease");
        const email = (e.customerEmail ?? "").toLowerCase();
        if (!email) return void ctx.log.error({ leaseId: lease.id }, "lease paid without a customer email");
        if (!activateLease(ctx.db, lease.id, { email, subscriptionId: e.subscriptionId }, nowIso)) {
          return void ctx.log.error({ leaseId: lease.id, status: lease.status }, "lease paid but the town could not be activated; staff should refund it");
        }
        enqueueTransactional(ctx.db, {
          to: email, template: "operator_activated", dedupeKey: `${lease.id}:activated`,
          payload: { town: `${lease.town_name}, ${lease.state_name}`, priceCents: lease.price_cents, operatorUrl: `${ctx.config.baseUrl}/operator` },
        }, Date.parse(nowIso), nowIso);
      }
      return;
    }
    case "checkout.expired": {
      if (e.reference.startsWith("lo_")) {
        const o = findOrder(ctx.db, e.reference);
        if (o && transitionOrder(ctx.db, o.id, ["pending_payment"], "expired", {}, nowIso)) queueOrderMail(ctx, o, "listing_expired");
      } else if (e.reference.startsWith("tl_")) {
        releaseReservation(ctx.db, e.reference, nowIso);
      }
      return;
    }
    case "subscription.ended": {
      const lease = endLeaseBySubscription(ctx.db, e.subscriptionId, nowIso);
      if (lease) ctx.log.info({ leaseId: lease.id, town: lease.slug }, "lease ended; the town is free");
      return;
    }
    case "refunded": {
      const o = findOrderByPayment(ctx.db, e.paymentId);
      if (!o) return void ctx.log.warn({ paymentId: e.paymentId }, "refund for an unknown payment");
      if (!transitionOrder(ctx.db, o.id, ["paid", "published", "ended"], "refunded", { ended_at: nowIso }, nowIso)) return;
      const share = shareOf(ctx.db, o.id);
      if (share) insertLedgerEntry(ctx.db, { leaseId: share.leaseId, orderId: o.id, ...reversalOf(share) }, nowIso);
      changed.add(o.place_geoid);
      return;
    }
    case "account.updated": {
      const email = setPayoutsEnabledByAccount(ctx.db, e.accountId, e.payoutsEnabled, nowIso);
      if (email) ctx.log.info({ account: e.accountId, payoutsEnabled: e.payoutsEnabled }, "operator payout account updated");
      return;
    }
    case "ignored":
      return;
  }
}
