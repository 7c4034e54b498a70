import type { LedgerLine } from "../../core/commerce/revenue-share.ts";
import { cachedStatement as stmt, type DB } from "../db.ts";

// The operators' ledger (table ledger_entries): one share per paid listing in a leased town, one reversal on refund.

export interface LedgerRow extends LedgerLine {
  id: number;
  leaseId: string;
  orderId: string;
  createdAt: string;
  title: string;
  product: string;
  tier: string;
  slug: string;
}

/** Records an entry once per (order, kind); false when it already exists. */
export function insertLedgerEntry(db: DB, e: { leaseId: string; orderId: string } & LedgerLine, nowIso: string): boolean {
  return stmt(db, `INSERT INTO ledger_entries (lease_id, order_id, kind, gross_cents, fee_cents, amount_cents, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`).run(e.leaseId, e.orderId, e.kind, e.grossCents, e.feeCents, e.amountCents, nowIso).changes === 1;
}

export function shareOf(db: DB, orderId: string): ({ leaseId: string } & LedgerLine) | undefined {
  return stmt(db, `SELECT lease_id AS leaseId, kind, gross_cents AS grossCents, fee_cents AS feeCents, amount_cents AS amountCents
    FROM ledger_entries WHERE order_id = ? AND kind = 'share'`).get(orderId) as ({ leaseId: string } & LedgerLine) | undefined;
}

export function ledgerOfOperator(db: DB, email: string): LedgerRow[] {
  return stmt(db, `SELECT e.id, e.lease_id AS leaseId, e.order_id AS orderId, e.kind, e.gross_cents AS grossCents, e.fee_cents AS feeCents,
      e.amount_cents AS amountCents, e.created_at AS createdAt, o.title, o.product, o.tier, p.slug
    FROM ledger_entries e JOIN leases l ON l.id = e.lease_id JOIN listing_orders o ON o.id = e.order_id JOIN places p ON p.geoid = o.place_geoid
    WHERE l.operator_email = ? ORDER BY e.id`).all(email) as LedgerRow[];
}

/** One lease's ledger, oldest first (the desk's statement of that town). */
export function ledgerOfLease(db: DB, leaseId: string): LedgerRow[] {
  return stmt(db, `SELECT e.id, e.lease_id AS leaseId, e.order_id AS orderId, e.kind, e.gross_cents AS grossCents, e.fee_cents AS feeCents,
      e.amount_cents AS amountCents, e.created_at AS createdAt, o.title, o.product, o.tier, p.slug
    FROM ledger_entries e JOIN listing_orders o ON o.id = e.order_id JOIN places p ON p.geoid = o.place_geoid
    WHERE e.lease_id = ? ORDER BY e.id`).all(leaseId) as LedgerRow[];
}

/** Every lease with ledger entries or transfers, with its operator and town (the payouts report). */
export function leasesWithMoney(db: DB): Array<{ leaseId: string; email: string; slug: string; priceCents: number; activatedAt: string; endedAt: string | null; cancelAt: string | null }> {
  return stmt(db, `SELECT l.id AS leaseId, l.operator_email AS email, p.slug, l.price_cents AS priceCents, l.activated_at AS activatedAt,
      l.ended_at AS endedAt, l.cancel_at AS cancelAt
    FROM leases l JOIN places p ON p.geoid = l.place_geoid WHERE l.operator_email IS NOT NULL AND l.activated_at IS NOT NULL
    ORDER BY l.operator_email, p.slug, l.id`).all() as Array<{ leaseId: string; email: string; slug: string; priceCents: number; activatedAt: string; endedAt: string | null; cancelAt: string | null }>;
}
