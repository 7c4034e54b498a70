import { townClicks, townClicksCsv, type TownClicks } from "../readers/clicks.ts";
import { AppError } from "../../core/errors.ts";
import { audienceDays, leaseCharges, monthlyStatement, paidPeriodEnd, statementCsv, type AudienceDay, type StatementMonth } from "../../core/commerce/operator-statement.ts";
import { addDays } from "../../lib/time.ts";
import { leaseLastDate } from "../../core/commerce/lease-end.ts";
import { localDate, localHour } from "../../lib/time.ts";
import type { TownFeed } from "../../contract/feeds.ts";
import { audienceChanges, sentPerEdition } from "../../store/readers/audience.ts";
import { hasEdition } from "../../store/morning/due-towns.ts";
import { activeSubscriberCount } from "../../store/places/cities.ts";
import { decisionsOf, type Decider, type DecisionRow } from "../../store/commerce/listing-decisions.ts";
import { operatorLeaseOfTown, operatorLeasesAsOf, scheduleLeaseCancel, type LeaseView } from "../../store/commerce/leases.ts";
import { ledgerOfLease } from "../../store/commerce/ledger.ts";
import { findOrder, ordersToReview, type OrderView } from "../../store/commerce/orders.ts";
import { transfersOfLease } from "../../store/commerce/payouts.ts";
import type { AppContext } from "../platform/context.ts";
import { adminApproveOrder, adminRejectOrder, adminReleaseOrder } from "./orders.ts";
import { addFeed, listFeeds, removeFeed } from "../sources/feeds.ts";
import { removedDirectorySources, restoreDirectorySource } from "../directory/sources.ts";
import { verifyTown } from "../directory/verify.ts";
import { candidatesOfPlace } from "../../store/directory/candidates.ts";
import { townReferralCounts } from "../readers/referrals.ts";
import { deleteTownNote, renderNotePreview, setTownNote, upcomingTownNotes, type TownNote } from "./notes.ts";
import { payoutAccount } from "./payouts.ts";

/**
 * The operator desk (`/operator`, api/routes/operator/routes.ts): what an operator sees and does for
 * each town they lease (signing in, sessions and CSRF: src/services/operators/). Listings are decided
 * through the same functions staff use (src/services/commerce/orders.ts); payouts are
 * src/services/commerce/payouts.ts.
 */

export interface ReviewItem {
  order: OrderView;
  decisions: DecisionRow[];
}

export interface TownDesk {
  lease: LeaseView;
  review: ReviewItem[];
  audience: { subscribers: number; days: AudienceDay[]; sent: Array<{ date: string; sent: number; queued: number }>; referrals: { readers: number; referred: number }; clicks: TownClicks };
  feeds: TownFeed[];
  /** Directory sources the operator removed from the town (they may restore them). */
  directoryRemoved: Array<{ url: string; title: string; removedBy: string; removedAt: string }>;
  /** How many candidate sources the town directory has for the town (the desk offers to check them when there are any). */
  directoryCandidates: number;
  /**
   * The date of the town's next edition (today's, before it is published; else tomorrow's), the notes
   * scheduled from today on, and the lease's last day once it is cancelled (later notes are not printed).
   */
  notes: { nextEdition: string; scheduled: TownNote[]; lastDate: string | null };
  statement: StatementMonth[];
  /** When a cancelled lease ends, or when the paid period running now ends. */
  paidThrough: string;
  payouts: { mode: "stripe" | "local"; account: ReturnType<typeof payoutAccount> };
}

/** The operator's towns (active leases first, then ended ones, for their statements). */
export function operatorTowns(ctx: AppContext, email: string): LeaseView[] {
  // As of now: a cancelled lease past its paid period reads as ended before the sweep stores it.
  return operatorLeasesAsOf(ctx.db, email, ctx.config.now().toISOString()).filter((l) => l.status === "active" || l.status === "ended");
}

/** `/operator` once signed in: the operator's towns, and how they are paid. */
export function operatorHome(ctx: AppContext, email: string): { towns: LeaseView[]; payouts: TownDesk["payouts"] } {
  return { towns: operatorTowns(ctx, email), payouts: { mode: ctx.connect ? "stripe" : "local", account: payoutAccount(ctx, email) } };
}

export function requireOperatorLease(ctx: AppContext, email: string, slug: string): LeaseView {
  const lease = operatorLeaseOfTown(ctx.db, email, slug, ctx.config.now().toISOString());
  if (!lease) throw new AppError("not_found", `You do not run ${slug}.`);
  return lease;
}

export function statementOf(ctx: AppContext, lease: LeaseView): StatementMonth[] {
  const charges = leaseCharges({ activatedAt: lease.activated_at, endedAt: lease.ended_at, priceCents: lease.price_cents }, ctx.config.now().toISOString());
  return monthlyStatement(ledgerOfLease(ctx.db, lease.id), charges, transfersOfLease(ctx.db, lease.id));
}

export function townDesk(ctx: AppContext, email: string, slug: string): TownDesk {
  const lease = requireOperatorLease(ctx, email, slug);
  const now = ctx.config.now();
  const since = new Date(now.getTime() - 31 * 86_400_000).toISOString();
  const changes = audienceChanges(ctx.db, lease.place_geoid, since);
  const timezone = lease.timezone;
  return {
    lease,
    review: ordersToReview(ctx.db, lease.place_geoid).map((order) => ({ order, decisions: decisionsOf(ctx.db, order.id) })),
    audience: {
      subscribers: activeSubscriberCount(ctx.db, lease.place_geoid),
      days: audienceDays(changes.joined, changes.left, timezone, now, 30),
      sent: sentPerEdition(ctx.db, lease.place_geoid, 14),
      referrals: referralSummary(ctx, lease.slug),
      clicks: townClicks(ctx, lease.place_geoid, timezone),
    },
    feeds: listFeeds(ctx, lease.slug).feeds,
    directoryRemoved: removedDirectorySources(ctx, lease.slug),
    directoryCandidates: candidatesOfPlace(ctx.db, lease.place_geoid).length,
    notes: { nextEdition: nextEditionDate(ctx, lease), scheduled: upcomingTownNotes(ctx, lease.slug), lastDate: leaseLastDate(lease, lease.timezone) },
    statement: statementOf(ctx, lease),
    paidThrough: lease.cancel_at ?? paidPeriodEnd(lease.activated_at ?? lease.created_at, now.toISOString()),
    payouts: { mode: ctx.connect ? "stripe" : "local", account: payoutAccount(ctx, email) },
  };
}

export function clicksCsvOf(ctx: AppContext, email: string, slug: string): string {
  const lease = requireOperatorLease(ctx, email, slug);
  return townClicksCsv(lease.slug, townClicks(ctx, lease.place_geoid, lease.timezone));
}

export function statementCsvOf(ctx: AppContext, email: string, slug: string): string {
  const lease = requireOperatorLease(ctx, email, slug);
  return statementCsv(lease.slug, statementOf(ctx, lease));
}

/**
 * The operator approves or rejects a listing of their own town: free listings awaiting review are
 * published, held ones released (a paid tier gets its payment link), rejections carry a reason; all
 * through the functions staff use, recorded as the operator's decision.
 */
export async function decideListing(ctx: AppContext, email: string, slug: string, orderId: string, decision: "approve" | "reject", reason?: string): Promise<OrderView> {
  const lease = requireOperatorLease(ctx, email, slug);
  const o = findOrder(ctx.db, orderId);
  if (!o || o.place_geoid !== lease.place_geoid) throw new AppError("not_found", `No listing ${orderId} in ${lease.town_name}.`);
  const by: Decider = { role: "operator", who: email };
  if (decision === "reject") adminRejectOrder(ctx, o.id, reason ?? "", by);
  else if (o.status === "held") await adminReleaseOrder(ctx, o.id, by);
  else adminApproveOrder(ctx, o.id, by);
  return findOrder(ctx.db, o.id)!;
}

/**
 * Cancels a lease: the town stays the operator's until the end of the paid period. Stripe mode: the
 * customer portal (where Stripe cancels the subscription at the period's end and tells us by
 * `customer.subscription.deleted`); local mode: the lease is marked to end then.
 */
export async function cancelLease(ctx: AppContext, email: string, slug: string): Promise<{ portalUrl: string } | { endsAt: string }> {
  const lease = requireOperatorLease(ctx, email, slug);
  if (ctx.connect && lease.provider === "stripe" && lease.provider_subscription_id) {
    return { portalUrl: await ctx.connect.portal(lease.provider_subscription_id, `${ctx.config.baseUrl}/operator/towns/${lease.slug}`) };
  }
  if (lease.cancel_at) return { endsAt: lease.cancel_at };
  const nowIso = ctx.config.now().toISOString();
  const endsAt = paidPeriodEnd(lease.activated_at ?? lease.created_at, nowIso);
  scheduleLeaseCancel(ctx.db, lease.id, endsAt, nowIso);
  ctx.log.info({ leaseId: lease.id, town: lease.slug, endsAt }, "operator cancelled the lease; it ends with its paid period");
  return { endsAt };
}

/** The town's next edition: today's if its publication hour has not come and it is not out, else tomorrow's. */
export function nextEditionDate(ctx: AppContext, lease: LeaseView): string {
  const now = ctx.config.now();
  const today = localDate(now, lease.timezone);
  const todayDue = localHour(now, lease.timezone) >= ctx.config.publishHour || hasEdition(ctx.db, lease.place_geoid, today);
  return todayDue ? addDays(today, 1) : today;
}

/** Tomorrow's note, from the desk: saved for the chosen edition date (the next one by default), signed, by the operator. */
export function saveNote(ctx: AppContext, email: string, slug: string, input: { date: string; markdown: string; authorName: string }): TownNote {
  const lease = requireOperatorLease(ctx, email, slug);
  return setTownNote(ctx, lease.slug, { ...input, by: email, leaseId: lease.id, lastDate: leaseLastDate(lease, lease.timezone) });
}

/** The desk with the preview the edition would carry of a note being written (empty when it is not valid yet). */
export function previewNote(ctx: AppContext, email: string, slug: string, markdown: string, authorName: string): { desk: TownDesk; preview: string } {
  return { desk: townDesk(ctx, email, slug), preview: renderNotePreview(markdown, authorName || undefined) };
}

export function removeNote(ctx: AppContext, email: string, slug: string, date: string): boolean {
  const lease = requireOperatorLease(ctx, email, slug);
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && deleteTownNote(ctx, lease.slug, date);
}

/** Readers who brought others through their forwarding link, and how many they brought (counts only: no addresses on the desk). */
function referralSummary(ctx: AppContext, slug: string): { readers: number; referred: number } {
  const counts = townReferralCounts(ctx, slug);
  return { readers: counts.length, referred: counts.reduce((s, c) => s + c.referred, 0) };
}

/** Adds a feed to the operator's town through the feeds service the admin CLI uses, recorded as added by them. */
export async function addDeskFeed(ctx: AppContext, email: string, slug: string, url: string): Promise<TownFeed> {
  const lease = requireOperatorLease(ctx, email, slug);
  return addFeed(ctx, lease.slug, url, email, lease.id);
}

/** Restores a directory source the town had removed: it is verified again now (added back if it still passes). */
export async function restoreDeskDirectorySource(ctx: AppContext, email: string, slug: string, url: string): Promise<void> {
  const lease = requireOperatorLease(ctx, email, slug);
  await restoreDirectorySource(ctx, lease.slug, url);
}

/** The desk's "check now": the town's directory candidates tried at once (what the background check would do this week). */
export async function checkDeskDirectory(ctx: AppContext, email: string, slug: string): Promise<{ verified: number; tried: number }> {
  const lease = requireOperatorLease(ctx, email, slug);
  // Candidates checked in the last 10 minutes are not fetched again (a button pressed twice).
  const r = await verifyTown(ctx, lease.slug, { notWithinMs: 10 * 60_000 });
  return { verified: r.candidates.filter((c) => c.status === "verified").length, tried: r.candidates.length };
}

export function removeDeskFeed(ctx: AppContext, email: string, slug: string, id: number): TownFeed {
  const lease = requireOperatorLease(ctx, email, slug);
  return removeFeed(ctx, id, lease.slug, email).removed;
}
