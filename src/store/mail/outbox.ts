import { cachedStatement, type DB } from "../db.ts";

// Statements are prepared once per connection: the sender and the publisher run them thousands of times.
const stmt = cachedStatement;

export type OutboxKind = "welcome" | "digest";

/**
 * Queues one transactional message (order and lease mail) to an address that need not be a
 * subscriber. `dedupeKey` is unique: the same order event queues one message however often it is applied.
 */
export function enqueueTransactional(db: DB, m: { to: string; template: string; payload: unknown; dedupeKey: string }, nowMs: number, nowIso: string): boolean {
  return stmt(db, `INSERT INTO outbox (kind, to_email, template, payload, dedupe_key, next_attempt_at, created_at)
    VALUES ('transactional', ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`).run(m.to, m.template, JSON.stringify(m.payload), m.dedupeKey, nowMs, nowIso).changes === 1;
}

/** Queues one message; the unique (kind, subscriber, edition) key makes a second call a no-op. */
export function enqueueMail(db: DB, kind: OutboxKind, subscriberId: number, editionId: number | null, nowMs: number, nowIso: string): boolean {
  return cachedStatement(db, `INSERT INTO outbox (kind, subscriber_id, edition_id, next_attempt_at, created_at)
    VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`).run(kind, subscriberId, editionId, nowMs, nowIso).changes === 1;
}

/** The welcome of a reactivated subscription: a further welcome row, once per reactivation (`key`). */
export function enqueueWelcomeAgain(db: DB, subscriberId: number, key: string, nowMs: number, nowIso: string): boolean {
  return cachedStatement(db, `INSERT INTO outbox (kind, subscriber_id, dedupe_key, next_attempt_at, created_at)
    VALUES ('welcome', ?, ?, ?, ?) ON CONFLICT DO NOTHING`).run(subscriberId, key, nowMs, nowIso).changes === 1;
}

/**
 * Queues an edition's digest for every active, unsuppressed subscriber of its city who reads it
 * daily (one INSERT ... SELECT, duplicates skipped by the unique key) and clears their "first digest
 * pending" marker. Each row is due at its reader's delivery time: `fiveAmMs` (05:00 in the town on the
 * edition's date) plus their minutes after 5:00, never before `nowMs`. Returns how many were queued.
 */
export function enqueueEditionDigests(db: DB, placeGeoid: string, editionId: number, nowMs: number, nowIso: string, fiveAmMs: number): number {
  return db.transaction(() => {
    const queued = cachedStatement(db, `
      INSERT INTO outbox (kind, subscriber_id, edition_id, next_attempt_at, created_at)
      SELECT 'digest', s.id, @editionId, MAX(@nowMs, @fiveAmMs + (s.delivery_minute - 300) * 60000), @nowIso FROM subscribers s
      WHERE s.place_geoid = @placeGeoid AND s.status = 'active' AND s.frequency = 'daily'
        AND NOT EXISTS (SELECT 1 FROM suppressions x WHERE x.email = s.email)
      ON CONFLICT DO NOTHING`).run({ placeGeoid, editionId, nowMs, nowIso, fiveAmMs }).changes;
    cachedStatement(db, "UPDATE subscribers SET first_digest_pending = 0 WHERE place_geoid = ? AND first_digest_pending = 1").run(placeGeoid);
    return queued;
  }).immediate();
}

export interface ClaimedSubscriberRow {
  id: number;
  /** A weekly email's row is a 'digest' row with `weekly_id` set (migration 035); it is read as "weekly". */
  kind: OutboxKind | "weekly";
  edition_id: number | null;
  weekly_id: number | null;
  attempts: number;
  subscriber_id: number;
  email: string;
  /** The subscription's referral code (src/store/migrations/010-edition.sql). */
  referral_code: string | null;
  subscriber_status: string;
  suppressed: 0 | 1;
  slug: string;
  name: string;
  state_name: string;
  /**
   * A welcome's "today's edition is on its way": a daily digest was queued with it or since (a weekly
   * row, or a digest from before the reader left and came back, is not one).
   */
  has_digest: 0 | 1;
  /** The reader's choice for this town: a weekly reader is welcomed to the weekly. */
  frequency: "daily" | "weekly";
  weekly_day: number;
  /** Sections the reader left out (comma-separated keys, src/contract/preferences.ts). */
  hidden_sections: string;
}

export interface ClaimedTransactionalRow {
  id: number;
  kind: "transactional";
  attempts: number;
  email: string;
  template: string;
  payload: string;
  suppressed: 0 | 1;
}

export type ClaimedRow = ClaimedSubscriberRow | ClaimedTransactionalRow;

/**
 * Claims up to `limit` due rows for `owner` in one UPDATE (SQLite runs it under its write lock, so
 * two senders, in one process or many, never claim the same row): pending rows whose backoff has
 * passed, and rows whose sender's lease ran out (it crashed or hung). Returns their ids in order;
 * `claimedRows` reads what rendering needs, a slice at a time.
 */
export function claimDueMail(db: DB, owner: string, nowMs: number, leaseMs: number, limit: number): number[] {
  const ids = stmt(db, `
    UPDATE outbox SET status = 'sending', lease_owner = @owner, lease_until = @until, attempts = attempts + 1
    WHERE id IN (
      SELECT id FROM (SELECT id FROM outbox WHERE status = 'sending' AND lease_until <= @now LIMIT @limit)
      UNION ALL
      SELECT id FROM (SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= @now LIMIT @limit)
      LIMIT @limit)
    RETURNING id`).pluck().all({ owner, until: nowMs + leaseMs, now: nowMs, limit }) as number[];
  return ids.sort((a, b) => a - b);
}

/** The claimed rows `ids` with what rendering needs, in id order (a row whose subscriber or town is gone is left out). */
export function claimedRows(db: DB, ids: readonly number[]): ClaimedRow[] {
  if (ids.length === 0) return [];
  const json = JSON.stringify(ids);
  const subscriberRows = stmt(db, `
    SELECT o.id, CASE WHEN o.weekly_id IS NULL THEN o.kind ELSE 'weekly' END AS kind, o.edition_id, o.weekly_id, o.attempts, s.id AS subscriber_id, s.email, s.referral_code, s.status AS subscriber_status, s.hidden_sections, s.frequency, s.weekly_day,
           EXISTS (SELECT 1 FROM suppressions x WHERE x.email = s.email) AS suppressed,
           p.slug, p.name, p.state_name,
           (o.kind = 'welcome' AND EXISTS (SELECT 1 FROM outbox d WHERE d.kind = 'digest' AND d.weekly_id IS NULL AND d.subscriber_id = s.id AND d.created_at >= o.created_at)) AS has_digest
    FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id JOIN places p ON p.geoid = s.place_geoid
    WHERE o.id IN (SELECT value FROM json_each(?)) ORDER BY o.id`).all(json) as ClaimedSubscriberRow[];
  // Transactional mail goes to buyers and operators; only a bounce or complaint stops it (an
  // unsubscribe from the newsletters does not cancel a receipt).
  const transactionalRows = stmt(db, `
    SELECT o.id, o.kind, o.attempts, o.to_email AS email, o.template, o.payload,
           EXISTS (SELECT 1 FROM suppressions x WHERE x.email = o.to_email AND x.reason IN ('bounced', 'complained')) AS suppressed
    FROM outbox o WHERE o.kind = 'transactional' AND o.id IN (SELECT value FROM json_each(?)) ORDER BY o.id`).all(json) as ClaimedTransactionalRow[];
  return transactionalRows.length === 0 ? subscriberRows : [...subscriberRows, ...transactionalRows].sort((a, b) => a.id - b.id);
}

/** Extends the lease on every row this sender still holds (one statement for the whole batch). */
export function renewLeases(db: DB, owner: string, until: number): number {
  return stmt(db, "UPDATE outbox SET lease_until = ? WHERE lease_owner = ? AND status = 'sending'").run(until, owner).changes;
}

/** True while the row is still this sender's (a read: no commit per message). */
export function holdsLease(db: DB, id: number, owner: string): boolean {
  return stmt(db, "SELECT 1 FROM outbox WHERE id = ? AND lease_owner = ? AND status = 'sending'").get(id, owner) !== undefined;
}

/** Records a delivery; only the lease holder may (a sender whose lease was taken over changes nothing). */
export function markSent(db: DB, id: number, owner: string, messageId: string, nowIso: string): boolean {
  return stmt(db, `UPDATE outbox SET status = 'sent', message_id = ?, sent_at = ?, lease_owner = NULL, lease_until = NULL, last_error = NULL
    WHERE id = ? AND lease_owner = ? AND status = 'sending'`).run(messageId, nowIso, id, owner).changes === 1;
}

/** Records several deliveries, each as markSent does, in one transaction (one commit). Returns how many rows changed. */
export function markSentMany(db: DB, owner: string, sent: ReadonlyArray<{ id: number; messageId: string; at: string }>): number {
  if (sent.length === 1) return markSent(db, sent[0].id, owner, sent[0].messageId, sent[0].at) ? 1 : 0;
  return db.transaction(() => {
    let changed = 0;
    for (const s of sent) if (markSent(db, s.id, owner, s.messageId, s.at)) changed++;
    return changed;
  }).immediate();
}

export function markRetry(db: DB, id: number, owner: string, nextAttemptAt: number, error: string): void {
  stmt(db, `UPDATE outbox SET status = 'pending', next_attempt_at = ?, last_error = ?, lease_owner = NULL, lease_until = NULL
    WHERE id = ? AND lease_owner = ? AND status = 'sending'`).run(nextAttemptAt, error.slice(0, 500), id, owner);
}

/**
 * Puts claimed rows back as pending until `nextAttemptAt` after a delivery fault (the relay, not
 * the recipient). Unless `countAttempt`, the claim's attempt is given back: a relay's bad day must
 * not use up a reader's attempts.
 */
export function deferRows(db: DB, owner: string, ids: readonly number[], nextAttemptAt: number, error: string, countAttempt: boolean): number {
  return stmt(db, `UPDATE outbox SET status = 'pending', next_attempt_at = ?, last_error = ?, lease_owner = NULL, lease_until = NULL,
      attempts = CASE WHEN ? THEN attempts ELSE MAX(attempts - 1, 0) END
    WHERE id IN (SELECT value FROM json_each(?)) AND lease_owner = ? AND status = 'sending'`)
    .run(nextAttemptAt, error.slice(0, 500), countAttempt ? 1 : 0, JSON.stringify(ids), owner).changes;
}

export function markFinal(db: DB, id: number, owner: string, status: "failed" | "cancelled", error: string | null): void {
  stmt(db, `UPDATE outbox SET status = ?, last_error = ?, lease_owner = NULL, lease_until = NULL
    WHERE id = ? AND lease_owner = ? AND status = 'sending'`).run(status, error?.slice(0, 500) ?? null, id, owner);
}

export interface EditionForMail {
  id: number;
  date: string;
  subject: string;
  html: string;
  markdown: string;
}

export function editionForMail(db: DB, id: number): EditionForMail | undefined {
  return stmt(db, "SELECT id, date, subject, html, markdown FROM editions WHERE id = ?").get(id) as EditionForMail | undefined;
}

export function outboxCounts(db: DB): Record<string, number> {
  const rows = cachedStatement(db, "SELECT status, COUNT(*) AS n FROM outbox GROUP BY status").all() as Array<{ status: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Epoch ms when the earliest lease held by anyone ends, if any row is in flight. */
export function nextLeaseExpiry(db: DB): number | undefined {
  return (cachedStatement(db, "SELECT MIN(lease_until) FROM outbox WHERE status = 'sending'").pluck().get() as number | null) ?? undefined;
}

export function nextDueAt(db: DB): number | undefined {
  return (cachedStatement(db, "SELECT MIN(next_attempt_at) FROM outbox WHERE status = 'pending'").pluck().get() as number | null) ?? undefined;
}
