import os from "node:os";
import { cachedStatement, type DB } from "../db.ts";
import { deleteMeta, getMeta, setMeta } from "../platform/meta.ts";
import type { PlaceRow } from "../places/places.ts";
import { processAlive } from "../../lib/process-alive.ts";

/** Places with at least one active subscriber: the cities the morning pipeline writes for. */
export function subscribedPlaces(db: DB): PlaceRow[] {
  return cachedStatement(db, `
    SELECT p.* FROM places p
    WHERE p.geoid IN (SELECT DISTINCT place_geoid FROM subscribers WHERE status = 'active')
    ORDER BY p.geoid`).all() as PlaceRow[];
}

export function hasEdition(db: DB, placeGeoid: string, date: string): boolean {
  return cachedStatement(db, "SELECT EXISTS (SELECT 1 FROM editions WHERE place_geoid = ? AND date = ?)").pluck().get(placeGeoid, date) === 1;
}


export interface PendingEdition {
  id: number;
  placeGeoid: string;
  date: string;
  sitePublished: boolean;
  digestsQueued: boolean;
}

/** Editions whose site publish or digest queueing has not happened yet, oldest first. */
export function pendingEditions(db: DB): PendingEdition[] {
  const rows = cachedStatement(db, `
    SELECT e.id, e.place_geoid, e.date, q.site_published_at, q.digests_queued_at
    FROM edition_publish q JOIN editions e ON e.id = q.edition_id
    WHERE q.site_published_at IS NULL OR q.digests_queued_at IS NULL
    ORDER BY q.edition_id`).all() as Array<{ id: number; place_geoid: string; date: string; site_published_at: string | null; digests_queued_at: string | null }>;
  return rows.map((r) => ({ id: r.id, placeGeoid: r.place_geoid, date: r.date, sitePublished: r.site_published_at !== null, digestsQueued: r.digests_queued_at !== null }));
}

export function markSitePublished(db: DB, editionIds: number[], at: string): void {
  const stmt = cachedStatement(db, "UPDATE edition_publish SET site_published_at = ? WHERE edition_id = ? AND site_published_at IS NULL");
  db.transaction(() => {
    for (const id of editionIds) stmt.run(at, id);
  })();
}

/** Stamps digest queueing; returns false when another run already did (the caller then undoes nothing: it ran in the same transaction). */
export function markDigestsQueued(db: DB, editionId: number, at: string): boolean {
  return cachedStatement(db, "UPDATE edition_publish SET digests_queued_at = ? WHERE edition_id = ? AND digests_queued_at IS NULL").run(at, editionId).changes === 1;
}

export function digestsQueued(db: DB, editionId: number): boolean {
  return cachedStatement(db, "SELECT digests_queued_at IS NOT NULL FROM edition_publish WHERE edition_id = ?").pluck().get(editionId) === 1;
}

// ---------- the run lease ----------

const LEASE_KEY = "morning.lease";

export interface Lease {
  owner: string;
  pid: number;
  host: string;
  until: number; // epoch ms
}

function readLease(db: DB): Lease | undefined {
  const raw = getMeta(db, LEASE_KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Lease;
  } catch {
    return undefined;
  }
}


/**
 * Takes the morning lease unless a live run holds it. A lease is free when it has expired or when its
 * holder was a process on this machine that no longer exists (a crashed run does not block the next).
 * Returns the current holder when the lease is taken by someone else.
 */
export function acquireLease(db: DB, owner: string, ttlMs: number, nowMs = Date.now()): { acquired: true } | { acquired: false; holder: Lease } {
  return db.transaction(() => {
    const held = readLease(db);
    if (held && held.owner !== owner && held.until > nowMs && !(held.host === os.hostname() && !processAlive(held.pid))) {
      return { acquired: false as const, holder: held };
    }
    const lease: Lease = { owner, pid: process.pid, host: os.hostname(), until: nowMs + ttlMs };
    setMeta(db, LEASE_KEY, JSON.stringify(lease));
    return { acquired: true as const };
  }).immediate();
}

/** Extends our lease; false if we lost it (it expired and another run took it). */
export function renewLease(db: DB, owner: string, ttlMs: number, nowMs = Date.now()): boolean {
  return db.transaction(() => {
    const held = readLease(db);
    if (held && held.owner !== owner) return false;
    setMeta(db, LEASE_KEY, JSON.stringify({ owner, pid: process.pid, host: os.hostname(), until: nowMs + ttlMs } satisfies Lease));
    return true;
  }).immediate();
}

export function releaseLease(db: DB, owner: string): void {
  db.transaction(() => {
    if (readLease(db)?.owner === owner) deleteMeta(db, LEASE_KEY);
  }).immediate();
}
