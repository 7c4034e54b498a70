/**
 * Pure rules of the operator desk: the lease's monthly billing periods, the statement per month, its
 * CSV, and the audience's days. Integer cents; months are UTC calendar months (YYYY-MM), days are the
 * town's own local days.
 */
import type { LedgerLine } from "./revenue-share.ts";
import { localDate } from "../../lib/time.ts";

/** `iso` plus `n` months, the day clamped to the month's length (Jan 31 + 1 month = Feb 28/29), as Stripe bills. */
export function addMonths(iso: string, n: number): string {
  const d = new Date(iso);
  const day = d.getUTCDate();
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const last = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 0)).getUTCDate();
  t.setUTCDate(Math.min(day, last));
  return t.toISOString();
}

/** The instants the lease was charged: its activation, then every month after, up to `untilIso` (inclusive). */
export function leaseChargeDates(activatedAt: string, untilIso: string): string[] {
  const out: string[] = [];
  for (let k = 0; k < 1200; k++) {
    const at = addMonths(activatedAt, k);
    if (at > untilIso) break;
    out.push(at);
  }
  return out;
}

/**
 * A lease's monthly charges from its activation until it ended or `nowIso`, whichever came first (none
 * before it is activated): what the operator's statement and the payouts report both deduct.
 */
export function leaseCharges(lease: { activatedAt: string | null; endedAt: string | null; priceCents: number }, nowIso: string): Array<{ at: string; cents: number }> {
  if (!lease.activatedAt) return [];
  const until = lease.endedAt && lease.endedAt < nowIso ? lease.endedAt : nowIso;
  return leaseChargeDates(lease.activatedAt, until).map((at) => ({ at, cents: lease.priceCents }));
}

/** The end of the paid period running at `nowIso`: the first monthly anniversary of the activation after now. */
export function paidPeriodEnd(activatedAt: string, nowIso: string): string {
  for (let k = 1; k < 1200; k++) {
    const at = addMonths(activatedAt, k);
    if (at > nowIso) return at;
  }
  throw new Error("lease older than a century");
}

export interface LedgerLineAt extends LedgerLine {
  createdAt: string;
}

export interface TransferAt {
  amountCents: number;
  reversedCents: number;
  createdAt: string;
  reversedAt: string | null;
}

export interface StatementMonth {
  month: string;
  /** Listings paid in the town that month (refunds are counted where they happened, as negative gross). */
  listingsSold: number;
  grossCents: number;
  feeCents: number;
  /** Half the net of each listing, less reversals. */
  shareCents: number;
  /** What the lease cost that month (its monthly charges). */
  leaseChargeCents: number;
  /** The share with the lease charge netted: positive, the operator earned more than the lease cost. */
  netCents: number;
  /** Transfers to the operator's payout account, less their reversals. */
  paidOutCents: number;
}

const monthOf = (iso: string) => iso.slice(0, 7);

/** One row per month with any activity, oldest first. */
export function monthlyStatement(ledger: ReadonlyArray<LedgerLineAt>, leaseCharges: ReadonlyArray<{ at: string; cents: number }>, transfers: ReadonlyArray<TransferAt>): StatementMonth[] {
  const months = new Map<string, StatementMonth>();
  const row = (m: string) => {
    let r = months.get(m);
    if (!r) months.set(m, (r = { month: m, listingsSold: 0, grossCents: 0, feeCents: 0, shareCents: 0, leaseChargeCents: 0, netCents: 0, paidOutCents: 0 }));
    return r;
  };
  for (const l of ledger) {
    const r = row(monthOf(l.createdAt));
    if (l.kind === "share") r.listingsSold += 1;
    r.grossCents += l.grossCents;
    r.feeCents += l.feeCents;
    r.shareCents += l.amountCents;
  }
  for (const c of leaseCharges) row(monthOf(c.at)).leaseChargeCents += c.cents;
  for (const t of transfers) {
    row(monthOf(t.createdAt)).paidOutCents += t.amountCents;
    if (t.reversedCents && t.reversedAt) row(monthOf(t.reversedAt)).paidOutCents -= t.reversedCents;
  }
  for (const r of months.values()) r.netCents = r.shareCents - r.leaseChargeCents;
  return [...months.values()].sort((a, b) => a.month.localeCompare(b.month));
}

const cents = (c: number) => (c / 100).toFixed(2);

/** RFC 4180 CSV: a field with a comma, quote or line break is quoted, quotes doubled. */
export function csvField(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function csv(header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  return [header, ...rows].map((r) => r.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** The statement as CSV (amounts in dollars with two decimals, as spreadsheets read them). */
export function statementCsv(town: string, rows: ReadonlyArray<StatementMonth>): string {
  return csv(
    ["town", "month", "listings_sold", "gross_usd", "fees_usd", "your_share_usd", "lease_charge_usd", "net_usd", "paid_out_usd"],
    rows.map((r) => [town, r.month, r.listingsSold, cents(r.grossCents), cents(r.feeCents), cents(r.shareCents), cents(r.leaseChargeCents), cents(r.netCents), cents(r.paidOutCents)]),
  );
}

export interface AudienceDay {
  date: string;
  joined: number;
  left: number;
}

/** The last `days` local days of the town ending with today, each with its new and unsubscribed readers. */
export function audienceDays(joined: ReadonlyArray<string>, left: ReadonlyArray<string>, timezone: string, now: Date, days: number): AudienceDay[] {
  const out: AudienceDay[] = [];
  const index = new Map<string, AudienceDay>();
  for (let i = days - 1; i >= 0; i--) {
    const date = localDate(new Date(now.getTime() - i * 86_400_000), timezone);
    if (index.has(date)) continue;
    const d = { date, joined: 0, left: 0 };
    index.set(date, d);
    out.push(d);
  }
  for (const at of joined) { const d = index.get(localDate(new Date(at), timezone)); if (d) d.joined++; }
  for (const at of left) { const d = index.get(localDate(new Date(at), timezone)); if (d) d.left++; }
  return out;
}
