import { csv, leaseCharges, monthlyStatement } from "../../core/commerce/operator-statement.ts";
import { AppError } from "../../core/errors.ts";
import { leasesWithMoney, ledgerOfLease } from "../../store/commerce/ledger.ts";
import { accountOf, operatorsWithPendingPayouts, pendingPayouts, recordReversal, recordTransfer, saveAccount, setPayoutsEnabled, transfersOfLease, type OperatorAccount } from "../../store/commerce/payouts.ts";
import type { AppContext } from "../platform/context.ts";

/**
 * Operators' payouts. The ledger (src/store/commerce/ledger.ts) says what each operator is owed; in Stripe
 * mode this moves it to their Connect account: one transfer per order's share (idempotency key per
 * order, the listing's charge as source_transaction), one reversal after a refund. An operator
 * without a connected account accrues shares, paid once the account can receive payouts. Local mode
 * moves nothing: `npm run admin -- payouts report --month YYYY-MM` prints what is owed.
 */

function requireConnect(ctx: AppContext) {
  if (!ctx.connect) throw new AppError("service_misconfigured", "Payouts through Stripe Connect need STRIPE_SECRET_KEY; in local mode shares accrue in the ledger.");
  return ctx.connect;
}

/** Creates the operator's Express account once and returns a fresh onboarding link for it. */
export async function startPayoutOnboarding(ctx: AppContext, email: string): Promise<string> {
  const connect = requireConnect(ctx);
  let account = accountOf(ctx.db, email);
  if (!account) account = saveAccount(ctx.db, email, await connect.createAccount(email), ctx.config.now().toISOString());
  const base = ctx.config.baseUrl;
  return connect.accountLink(account.connectAccount, `${base}/operator/payouts/refresh`, `${base}/operator/payouts/return`);
}

/** Back from onboarding (or asked again): reads whether payouts are enabled, then pays what accrued. */
export async function refreshPayoutAccount(ctx: AppContext, email: string): Promise<OperatorAccount | undefined> {
  const connect = requireConnect(ctx);
  const account = accountOf(ctx.db, email);
  if (!account) return undefined;
  const enabled = await connect.payoutsEnabled(account.connectAccount);
  if (enabled !== account.payoutsEnabled) setPayoutsEnabled(ctx.db, email, enabled, ctx.config.now().toISOString());
  if (enabled) await settlePayouts(ctx, email);
  return accountOf(ctx.db, email);
}

export function payoutAccount(ctx: AppContext, email: string): OperatorAccount | undefined {
  return accountOf(ctx.db, email);
}

/**
 * Moves what the ledger says and the transfers do not yet reflect, for one operator: a transfer for
 * each share not paid (and not refunded), a reversal for each paid share whose order was refunded.
 * A refund before the transfer leaves nothing to move. Returns how many provider calls succeeded; a
 * failure is logged and left for the next settlement (the idempotency keys make a retry safe).
 */
export async function settlePayouts(ctx: AppContext, email: string, now: Date = ctx.config.now()): Promise<number> {
  const connect = ctx.connect;
  const account = accountOf(ctx.db, email);
  if (!connect || !account?.payoutsEnabled) return 0;
  let moved = 0;
  for (const p of pendingPayouts(ctx.db, email)) {
    try {
      if (!p.transferId) {
        const transferId = await connect.transfer({ orderId: p.orderId, account: account.connectAccount, amountCents: p.shareCents, chargeId: p.chargeId });
        recordTransfer(ctx.db, { orderId: p.orderId, leaseId: p.leaseId, account: account.connectAccount, amountCents: p.shareCents, transferId }, now.toISOString());
      } else {
        const amount = p.transferredCents - p.reversedCents;
        const reversalId = await connect.reverse({ orderId: p.orderId, transferId: p.transferId, amountCents: amount });
        recordReversal(ctx.db, p.orderId, reversalId, amount, now.toISOString());
      }
      moved++;
    } catch (err) {
      ctx.log.error({ err, orderId: p.orderId, operator: email }, "operator payout did not go through; it is retried at the next settlement");
      break;
    }
  }
  return moved;
}

/**
 * Settles every operator with a connected account and something pending (after callbacks, each morning
 * run, `npm run admin -- payouts settle`); `now` stamps the rows (the morning's run passes its own).
 */
export async function settleAllPayouts(ctx: AppContext, now: Date = ctx.config.now()): Promise<void> {
  if (!ctx.connect) return;
  for (const email of operatorsWithPendingPayouts(ctx.db)) await settlePayouts(ctx, email, now);
}

const usd = (c: number) => (c / 100).toFixed(2);

/**
 * What each operator earned in `month` (YYYY-MM) and what is owed to them at its end, as CSV: one
 * row per operator with activity that month or a balance. `owed` is every share less reversals and
 * less what was transferred, through the end of the month. The lease is billed by its own monthly
 * charge, so it is shown (lease_charge, net) but not deducted from what is owed.
 */
export function payoutsReport(ctx: AppContext, month: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new AppError("validation_error", `--month must be YYYY-MM, got "${month}".`);
  const [y, m] = month.split("-").map(Number);
  const monthEnd = new Date(Date.UTC(y, m, 1)).toISOString();
  const nowIso = ctx.config.now().toISOString();
  const byOperator = new Map<string, { towns: Set<string>; listings: number; gross: number; fees: number; share: number; lease: number; paid: number; owed: number }>();
  for (const l of leasesWithMoney(ctx.db)) {
    const ledger = ledgerOfLease(ctx.db, l.leaseId);
    const transfers = transfersOfLease(ctx.db, l.leaseId);
    const row = monthlyStatement(ledger, leaseCharges(l, nowIso), transfers).find((r) => r.month === month);
    const earned = ledger.filter((e) => e.createdAt < monthEnd).reduce((s, e) => s + e.amountCents, 0);
    const paid = transfers.reduce((s, t) => s + (t.createdAt < monthEnd ? t.amountCents : 0) - (t.reversedAt && t.reversedAt < monthEnd ? t.reversedCents : 0), 0);
    if (!row && earned - paid === 0) continue;
    const o = byOperator.get(l.email) ?? { towns: new Set(), listings: 0, gross: 0, fees: 0, share: 0, lease: 0, paid: 0, owed: 0 };
    o.towns.add(l.slug);
    if (row) {
      o.listings += row.listingsSold; o.gross += row.grossCents; o.fees += row.feeCents; o.share += row.shareCents; o.lease += row.leaseChargeCents; o.paid += row.paidOutCents;
    }
    o.owed += earned - paid;
    byOperator.set(l.email, o);
  }
  return csv(
    ["month", "operator_email", "towns", "listings_sold", "gross_usd", "fees_usd", "share_usd", "lease_charge_usd", "net_usd", "paid_out_usd", "owed_usd"],
    [...byOperator].map(([email, o]) => [month, email, [...o.towns].join(" "), o.listings, usd(o.gross), usd(o.fees), usd(o.share), usd(o.lease), usd(o.share - o.lease), usd(o.paid), usd(o.owed)]),
  );
}
