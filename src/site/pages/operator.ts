import type { TownFeed } from "../../contract/feeds.ts";
import type { AudienceDay, StatementMonth } from "../../core/commerce/operator-statement.ts";
import type { DecisionRow } from "../../store/commerce/listing-decisions.ts";
import type { LeaseView } from "../../store/commerce/leases.ts";
import type { OrderView } from "../../store/commerce/orders.ts";
import type { OperatorAccount } from "../../store/commerce/payouts.ts";
import { localDate } from "../../lib/time.ts";
import { formatDate } from "../format.ts";

/**
 * The operator desk's pages (src/pages/on-request/operator/, answered by api/routes/operator/): the
 * operator's towns, a town's desk, and the short pages that say a link or a town is not theirs.
 */

export type FieldErrors = Record<string, string>;

/** How payouts work here: Stripe Connect (with the operator's account, once they made one) or the monthly statement. */
export interface DeskPayouts {
  mode: "stripe" | "local";
  account: OperatorAccount | undefined;
}

/** `/operator` once signed in: the towns they run and ran, and their payouts. */
export interface TownsView {
  email: string;
  csrf: string;
  notice?: string;
  /** Active leases and ended ones (for their statements). */
  towns: LeaseView[];
  payouts: DeskPayouts;
}

/**
 * What the desk shows of one town: src/services/commerce/operator-desk.ts `townDesk` answers more
 * (the MCP tools read it too); this is the part the page draws.
 */
export interface DeskTown {
  lease: LeaseView;
  review: Array<{ order: OrderView; decisions: DecisionRow[] }>;
  audience: {
    subscribers: number;
    days: AudienceDay[];
    sent: Array<{ date: string; sent: number; queued: number }>;
    referrals: { readers: number; referred: number };
    clicks: { perEdition: Array<{ date: string; clicks: number; links: number }>; topLinks: Array<{ url: string; clicks: number }> };
  };
  feeds: TownFeed[];
  directoryRemoved: Array<{ url: string; title: string; removedAt: string }>;
  directoryCandidates: number;
  notes: { nextEdition: string; scheduled: Array<{ date: string; html: string; authorName: string }>; lastDate: string | null };
  statement: StatementMonth[];
  paidThrough: string;
  payouts: DeskPayouts;
}

/** The desk's forms as they were posted: kept on errors and previews, each error next to its field. */
export interface DeskForm {
  /** A listing's decision: its errors (`reason`, `form`), the listing they belong to and what was typed. */
  errors?: FieldErrors;
  orderId?: string;
  values?: Record<string, string>;
  /** The add-feed form. */
  feed?: { url: string; error?: string };
  /** The note form and its preview (HTML of the edition's own note renderer; empty when nothing would show). */
  note?: { values: { markdown: string; authorName: string; date: string }; errors?: FieldErrors; preview?: string };
}

/** `/operator/towns/{slug}`: a town's desk. */
export interface DeskView {
  email: string;
  csrf: string;
  notice?: string;
  town: DeskTown;
  form: DeskForm;
}

/** A line of a short page: words, then maybe a link, then maybe more words. */
export interface MessageLine {
  text?: string;
  link?: { href: string; text: string };
  after?: string;
}

/** A short page of the desk (an old link, a town that is not theirs). */
export interface MessageView {
  title: string;
  lines: MessageLine[];
}

declare module "./on-request.ts" {
  interface OnRequestViews {
    "operator/towns": TownsView;
    "operator/desk": DeskView;
    "operator/message": MessageView;
  }
}

/** "December 22, 2026 at 5:00 AM MST": an instant on the town's own clock, as the desk shows times. */
export function deskTime(iso: string, timeZone: string): string {
  // Made per call (no module-level cache): a desk shows a handful of times.
  const f = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short" });
  const p = Object.fromEntries(f.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return `${p.month} ${p.day}, ${p.year} at ${p.hour}:${p.minute} ${p.dayPeriod} ${p.timeZoneName}`;
}

/** "November 22, 2026": the day an instant falls on in the town (a lease's start or end, a decision). */
export function deskDate(iso: string | null, timeZone: string): string {
  return iso ? formatDate(localDate(new Date(iso), timeZone)) : "";
}

/** The audience chart's geometry: new readers up, unsubscribed down, one bar pair per day. */
export function audienceBars(days: AudienceDay[]) {
  const w = 600, h = 170, mid = 100, pad = 4;
  const max = Math.max(1, ...days.map((d) => d.joined), ...days.map((d) => d.left));
  const scaleUp = (mid - 12) / max, scaleDown = (h - mid - 30) / max;
  const step = (w - 2 * pad) / days.length;
  const bars = days.map((d, i) => {
    const up = d.joined * scaleUp, down = d.left * scaleDown;
    return {
      x: (pad + i * step + step * 0.15).toFixed(1), width: (step * 0.7).toFixed(1),
      up: d.joined ? { y: (mid - up).toFixed(1), height: up.toFixed(1) } : undefined,
      down: d.left ? { height: down.toFixed(1) } : undefined,
    };
  });
  return {
    w, h, mid, pad, bars,
    joined: days.reduce((s, d) => s + d.joined, 0), left: days.reduce((s, d) => s + d.left, 0),
    first: days[0]?.date ?? "", last: days.at(-1)?.date ?? "",
  };
}
