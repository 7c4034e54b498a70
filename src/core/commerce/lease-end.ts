import { localDate } from "../../lib/time.ts";

// What an operator sets (a note, a feed) speaks for the town only while the lease it was set under
// runs: an operator whose lease ended (cancelled, its subscription ended, ended by staff) publishes
// nothing more. Staff's own notes and feeds, and the directory's sources, belong to no lease.

/** The lease a note or feed was set under, as far as these rules need it. */
export interface LeaseTerm {
  status: "reserved" | "active" | "expired" | "ended";
  /** Set when the operator cancelled: the lease ends then (the end of its paid period). */
  cancel_at: string | null;
}

/** Whether the lease runs at `now`: active, and not past a cancellation the sweep has not applied yet. */
export function leaseRunning(lease: LeaseTerm | undefined, now: Date): boolean {
  return lease !== undefined && lease.status === "active" && (lease.cancel_at === null || Date.parse(lease.cancel_at) > now.getTime());
}

/** The last local date (YYYY-MM-DD, in the town's timezone) the lease runs on, or null while no end is set. */
export function leaseLastDate(lease: LeaseTerm, timezone: string): string | null {
  return lease.cancel_at === null ? null : localDate(new Date(lease.cancel_at), timezone);
}

/**
 * Whether a note may print in the edition of `date`: one written by staff (no lease) always; an
 * operator's only while their lease runs and only for a date on or before the lease's last day. A
 * note whose lease is unknown (`leaseId` set, `lease` undefined) is withheld.
 */
export function notePrints(note: { leaseId: string | null; date: string }, lease: LeaseTerm | undefined, timezone: string, now: Date): boolean {
  if (note.leaseId === null) return true;
  if (!leaseRunning(lease, now)) return false;
  const last = leaseLastDate(lease!, timezone);
  return last === null || note.date <= last;
}
