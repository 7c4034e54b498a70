import { cachedStatement as stmt, type DB } from "../db.ts";
import type { CandidateRow } from "./candidates.ts";
import { listTownFeeds, type FeedSourceRow } from "../sources/feeds.ts";

// Directory sources (migration 020): the provenance of town feeds added from the directory, staff
// blocks (a host or a source, everywhere) and the directory feeds an operator removed from a town.

export interface BlockRow {
  id: number;
  kind: "host" | "source";
  value: string;
  reason: string | null;
  created_at: string;
}

export interface RemovalRow {
  place_geoid: string;
  url: string;
  title: string;
  candidate_id: number | null;
  removed_by: string;
  removed_at: string;
}

/** Marks a town feed as the directory's: its candidate, reach, the outlet's site, verified now. */
export function setDirectoryProvenance(db: DB, townFeedId: number, p: { candidateId: number; scope: "town" | "county"; homeUrl: string }, nowIso: string): void {
  stmt(db, "UPDATE town_feeds SET candidate_id = ?, scope = ?, home_url = ?, verified_at = ? WHERE id = ?").run(p.candidateId, p.scope, p.homeUrl, nowIso, townFeedId);
}

export function markVerified(db: DB, townFeedId: number, nowIso: string): void {
  stmt(db, "UPDATE town_feeds SET verified_at = ? WHERE id = ?").run(nowIso, townFeedId);
}

/** The town feeds a candidate became (in its place). */
export function feedIdsOfCandidate(db: DB, candidateId: number): Array<{ id: number; verified_at: string | null }> {
  return stmt(db, "SELECT id, verified_at FROM town_feeds WHERE candidate_id = ? AND added_by = 'directory' ORDER BY id").all(candidateId) as Array<{ id: number; verified_at: string | null }>;
}

// --- blocks ---------------------------------------------------------------------------------------

export function addBlock(db: DB, kind: "host" | "source", value: string, reason: string | null, nowIso: string): BlockRow {
  stmt(db, "INSERT INTO directory_blocks (kind, value, reason, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (kind, value) DO UPDATE SET reason = excluded.reason")
    .run(kind, value, reason, nowIso);
  return stmt(db, "SELECT * FROM directory_blocks WHERE kind = ? AND value = ?").get(kind, value) as BlockRow;
}

export function deleteBlock(db: DB, kind: "host" | "source", value: string): boolean {
  return stmt(db, "DELETE FROM directory_blocks WHERE kind = ? AND value = ?").run(kind, value).changes === 1;
}

export function listBlocks(db: DB): BlockRow[] {
  return stmt(db, "SELECT * FROM directory_blocks ORDER BY kind, value").all() as BlockRow[];
}

/** The block covering this address, if any: its host (or a parent domain of it), or the address itself. */
export function blockOf(db: DB, url: string): BlockRow | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  const parts = host.split(".");
  const hosts = parts.map((_, i) => parts.slice(i).join(".")).filter((h) => h.includes(".") || h === host);
  return stmt(db, `SELECT * FROM directory_blocks WHERE (kind = 'host' AND value IN (SELECT value FROM json_each(?))) OR (kind = 'source' AND value = ?) LIMIT 1`)
    .get(JSON.stringify(hosts), url) as BlockRow | undefined;
}

/** The ids of the directory feeds (every town's) a new block covers. */
export function directoryFeedsBlockedBy(db: DB, kind: "host" | "source", value: string): number[] {
  const rows = stmt(db, `SELECT f.id, s.url, f.home_url FROM town_feeds f JOIN feed_sources s ON s.id = f.source_id WHERE f.added_by = 'directory'`).all() as Array<{ id: number; url: string; home_url: string | null }>;
  const covers = (u: string | null) => {
    if (!u) return false;
    if (kind === "source") return u === value;
    try {
      const h = new URL(u).hostname.toLowerCase();
      return h === value || h.endsWith(`.${value}`);
    } catch {
      return false;
    }
  };
  return rows.filter((r) => covers(r.url) || covers(r.home_url)).map((r) => r.id);
}

// --- removals -------------------------------------------------------------------------------------

export function addRemoval(db: DB, r: Omit<RemovalRow, "removed_at">, nowIso: string): void {
  stmt(db, `INSERT INTO directory_removals (place_geoid, url, title, candidate_id, removed_by, removed_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT DO UPDATE SET removed_by = excluded.removed_by, removed_at = excluded.removed_at`).run(r.place_geoid, r.url, r.title, r.candidate_id, r.removed_by, nowIso);
}

export function deleteRemoval(db: DB, placeGeoid: string, url: string): RemovalRow | undefined {
  return stmt(db, "DELETE FROM directory_removals WHERE place_geoid = ? AND url = ? RETURNING *").get(placeGeoid, url) as RemovalRow | undefined;
}

export function removalsOfPlace(db: DB, placeGeoid: string): RemovalRow[] {
  return stmt(db, "SELECT * FROM directory_removals WHERE place_geoid = ? ORDER BY removed_at DESC, url").all(placeGeoid) as RemovalRow[];
}

export function isRemoved(db: DB, placeGeoid: string, url: string): boolean {
  return stmt(db, "SELECT 1 FROM directory_removals WHERE place_geoid = ? AND url = ?").get(placeGeoid, url) !== undefined;
}

// --- what the background check takes next ---------------------------------------------------------

/**
 * Candidates due for a check, in places with active subscribers: never checked first (the town
 * whose first subscriber is newest first), then those last checked longest ago, before `dueBefore`.
 */
export function dueCandidates(db: DB, dueBeforeIso: string, limit: number): CandidateRow[] {
  return stmt(db, `SELECT c.* FROM town_source_candidates c
    JOIN (SELECT place_geoid, MIN(created_at) AS first_at FROM subscribers WHERE status = 'active' GROUP BY place_geoid) s ON s.place_geoid = c.place_geoid
    WHERE c.checked_at IS NULL OR c.checked_at < ?
    ORDER BY c.checked_at IS NOT NULL, CASE WHEN c.checked_at IS NULL THEN s.first_at END DESC, c.checked_at, c.id
    LIMIT ?`).all(dueBeforeIso, limit) as CandidateRow[];
}

/**
 * The town's sources as its page and /api/city show them (contract TownSource): every running feed,
 * named, with its site, reach and status (an operator's feed paused when their lease ended is not one).
 */
export function townSourceList(db: DB, placeGeoid: string) {
  return listTownFeeds(db, placeGeoid).filter((f) => !f.paused).map((f) => ({
    name: f.title,
    url: f.home_url ?? f.url,
    feedUrl: f.url,
    kind: f.kind === "ical" ? ("calendar" as const) : ("news" as const),
    countyWide: f.scope === "county",
    addedBy: f.added_by === "directory" ? ("directory" as const) : f.added_by === "staff" ? ("staff" as const) : ("operator" as const),
    status: f.status,
    lastCheckedAt: f.verified_at ?? f.items_fetched_at,
  }));
}

/** A feed address already fetched (by any town): its validators and last good items, for a conditional re-check. */
export function feedSourceByUrl(db: DB, url: string): FeedSourceRow | undefined {
  return stmt(db, "SELECT * FROM feed_sources WHERE url = ?").get(url) as FeedSourceRow | undefined;
}
