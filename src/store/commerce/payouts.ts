import { cachedStatement as stmt, type DB } from "../db.ts";

// Operators' payout accounts (Stripe Connect) and what was transferred of each order's share
// (tables operator_accounts and payout_transfers). The ledger says what is owed; this says what moved.

export interface OperatorAccount {
  email: string;
  connectAccount: string;
  payoutsEnabled: boolean;
}

export function accountOf(db: DB, email: string): OperatorAccount | undefined {
  const r = stmt(db, "SELECT email, connect_account AS connectAccount, payouts_enabled AS payoutsEnabled FROM operator_accounts WHERE email = ?").get(email) as
    { email: string; connectAccount: string; payoutsEnabled: number } | undefined;
  return r && { ...r, payoutsEnabled: r.payoutsEnabled === 1 };
}

/** Keeps the first account made for an address (a retried creation returns the same one by idempotency key). */
export function saveAccount(db: DB, email: string, connectAccount: string, nowIso: string): OperatorAccount {
  stmt(db, "INSERT INTO operator_accounts (email, connect_account, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING").run(email, connectAccount, nowIso, nowIso);
  return accountOf(db, email)!;
}

/** By the Connect account id (the `account.updated` callback); the operator's email, or undefined for an account not ours. */
export function setPayoutsEnabledByAccount(db: DB, connectAccount: string, enabled: boolean, nowIso: string): string | undefined {
  return stmt(db, "UPDATE operator_accounts SET payouts_enabled = ?, updated_at = ? WHERE connect_account = ? RETURNING email").pluck().get(enabled ? 1 : 0, nowIso, connectAccount) as string | undefined;
}

export function setPayoutsEnabled(db: DB, email: string, enabled: boolean, nowIso: string): void {
  stmt(db, "UPDATE operator_accounts SET payouts_enabled = ?, updated_at = ? WHERE email = ?").run(enabled ? 1 : 0, nowIso, email);
}

/**
 * Orders whose money still has to move for this operator: a share not transferred yet (and not
 * refunded since), or a transfer whose order was refunded and not yet reversed.
 */
export interface PendingPayout {
  orderId: string;
  leaseId: string;
  chargeId: string | null;
  shareCents: number;
  reversedInLedger: boolean;
  transferId: string | null;
  transferredCents: number;
  reversedCents: number;
}

export function pendingPayouts(db: DB, email: string): PendingPayout[] {
  return stmt(db, `SELECT s.order_id AS orderId, s.lease_id AS leaseId, o.provider_charge_id AS chargeId, s.amount_cents AS shareCents,
      (r.id IS NOT NULL) AS reversedInLedger, t.transfer_id AS transferId, IFNULL(t.amount_cents, 0) AS transferredCents, IFNULL(t.reversed_cents, 0) AS reversedCents
    FROM ledger_entries s JOIN leases l ON l.id = s.lease_id JOIN listing_orders o ON o.id = s.order_id
    LEFT JOIN ledger_entries r ON r.order_id = s.order_id AND r.kind = 'reversal'
    LEFT JOIN payout_transfers t ON t.order_id = s.order_id
    WHERE s.kind = 'share' AND l.operator_email = ? AND s.amount_cents > 0
      AND ((t.order_id IS NULL AND r.id IS NULL) OR (t.order_id IS NOT NULL AND r.id IS NOT NULL AND t.reversed_cents < t.amount_cents))
    ORDER BY s.id`).all(email).map((r) => ({ ...(r as PendingPayout), reversedInLedger: (r as { reversedInLedger: number }).reversedInLedger === 1 })) as PendingPayout[];
}

export function recordTransfer(db: DB, t: { orderId: string; leaseId: string; account: string; amountCents: number; transferId: string }, nowIso: string): void {
  stmt(db, `INSERT INTO payout_transfers (order_id, lease_id, connect_account, amount_cents, transfer_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (order_id) DO NOTHING`).run(t.orderId, t.leaseId, t.account, t.amountCents, t.transferId, nowIso);
}

export function recordReversal(db: DB, orderId: string, reversalId: string, amountCents: number, nowIso: string): void {
  // One reversal per order (a full refund): a second recording of it changes nothing.
  stmt(db, "UPDATE payout_transfers SET reversed_cents = reversed_cents + ?, reversal_id = ?, reversed_at = ? WHERE order_id = ? AND reversal_id IS NULL").run(amountCents, reversalId, nowIso, orderId);
}

/** Transfers of a lease (the statement's "paid out"): amount and reversals with their dates. */
export function transfersOfLease(db: DB, leaseId: string): Array<{ orderId: string; amountCents: number; reversedCents: number; createdAt: string; reversedAt: string | null }> {
  return stmt(db, `SELECT order_id AS orderId, amount_cents AS amountCents, reversed_cents AS reversedCents, created_at AS createdAt, reversed_at AS reversedAt
    FROM payout_transfers WHERE lease_id = ? ORDER BY created_at`).all(leaseId) as Array<{ orderId: string; amountCents: number; reversedCents: number; createdAt: string; reversedAt: string | null }>;
}

/** Operators with a connected account and money waiting (a sweep after connecting, or the morning run). */
export function operatorsWithPendingPayouts(db: DB): string[] {
  return stmt(db, `SELECT DISTINCT l.operator_email FROM ledger_entries s JOIN leases l ON l.id = s.lease_id
    JOIN operator_accounts a ON a.email = l.operator_email AND a.payouts_enabled = 1
    LEFT JOIN payout_transfers t ON t.order_id = s.order_id
    LEFT JOIN ledger_entries r ON r.order_id = s.order_id AND r.kind = 'reversal'
    WHERE s.kind = 'share' AND ((t.order_id IS NULL AND r.id IS NULL) OR (t.order_id IS NOT NULL AND r.id IS NOT NULL AND t.reversed_cents < t.amount_cents))`).pluck().all() as string[];
}
