import type { CandidateKind, CandidatePlatform, CandidateScope, NewCandidate } from "../../core/directory/candidate.ts";
import { cachedStatement as stmt, type DB } from "../db.ts";

// The town directory's candidate sources (table town_source_candidates): what the open datasets say
// a place's sources may be, with the dataset and row each came from, and the last verification.

export type CandidateStatus = "verified" | "no_feed" | "stale" | "failed" | "refused" | "blocked";

export interface CandidateRow {
  id: number;
  place_geoid: string;
  kind: CandidateKind;
  scope: CandidateScope;
  name: string;
  url: string;
  feed_urls: string;
  platform: CandidatePlatform | null;
  platform_id: string | null;
  dataset: string;
  dataset_row: string;
  imported_at: string;
  checked_at: string | null;
  check_status: CandidateStatus | null;
  check_detail: string | null;
}

/** Stores candidates; one already known (same place, kind and address) keeps its verification state. */
export function upsertCandidates(db: DB, rows: NewCandidate[], nowIso: string): number {
  const insert = stmt(db, `INSERT INTO town_source_candidates
      (place_geoid, kind, scope, name, url, feed_urls, platform, platform_id, dataset, dataset_row, imported_at)
    VALUES (@placeGeoid, @kind, @scope, @name, @url, @feedUrls, @platform, @platformId, @dataset, @datasetRow, @now)
    ON CONFLICT (place_geoid, kind, url) DO UPDATE SET scope = excluded.scope, name = excluded.name, feed_urls = excluded.feed_urls,
      platform = excluded.platform, platform_id = excluded.platform_id, dataset = excluded.dataset, dataset_row = excluded.dataset_row,
      imported_at = excluded.imported_at`);
  let changed = 0;
  db.transaction(() => {
    for (const r of rows) changed += insert.run({ ...r, feedUrls: JSON.stringify(r.feedUrls), now: nowIso }).changes;
  }).immediate();
  return changed;
}

/** A place's candidates: its own sources first, then county-wide ones. */
export function candidatesOfPlace(db: DB, placeGeoid: string): CandidateRow[] {
  return stmt(db, `SELECT * FROM town_source_candidates WHERE place_geoid = ? ORDER BY scope = 'county', kind, id`).all(placeGeoid) as CandidateRow[];
}

export function findCandidate(db: DB, id: number): CandidateRow | undefined {
  return stmt(db, "SELECT * FROM town_source_candidates WHERE id = ?").get(id) as CandidateRow | undefined;
}

/** Records the outcome of trying a candidate. */
export function recordCandidateCheck(db: DB, id: number, status: CandidateStatus, detail: string | null, nowIso: string): void {
  stmt(db, "UPDATE town_source_candidates SET checked_at = ?, check_status = ?, check_detail = ? WHERE id = ?")
    .run(nowIso, status, detail === null ? null : detail.slice(0, 500), id);
}

/** What the directory's matchers need of each place (DirectoryPlace, src/core/directory/place-lookup.ts). */
export function directoryPlaces(db: DB): Array<{
  geoid: string; name: string; placeType: string; stateCode: string; stateName: string; countyGeoid: string | null;
  countyName: string | null; latitude: number; longitude: number; population: number | null; landAreaSqMi: number | null;
  nameAmbiguousInState: number;
}> {
  return stmt(db, `SELECT geoid, name, place_type AS placeType, state_code AS stateCode, state_name AS stateName,
      county_geoid AS countyGeoid, county_name AS countyName, latitude, longitude, population,
      land_area_sq_mi AS landAreaSqMi, name_ambiguous_in_state AS nameAmbiguousInState
    FROM places ORDER BY geoid`).all() as ReturnType<typeof directoryPlaces>;
}

export interface SyncResult { added: number; updated: number; removed: number; unchanged: number }

/**
 * Makes the imported candidates exactly `rows`, in one transaction (or in `chunks`): new ones
 * inserted, changed ones updated (keeping their verification), identical ones not touched (a second
 * import changes nothing), and those the datasets no longer give deleted unless they were already
 * tried (their check is history the discovery side may rely on) or came from elsewhere (a dataset not
 * in `ownDatasets`). Rows are compared here rather than by SQL: re-importing 340,000 identical rows
 * then costs one read.
 */
export function syncCandidates(db: DB, rows: readonly NewCandidate[], nowIso: string, ownDatasets: ReadonlySet<string>, chunks?: SyncChunks): SyncResult {
  if (!chunks) return db.transaction(() => applySync(db, existingCandidates(db), rows, nowIso, ownDatasets, () => {})).immediate();
  // In chunks (the server's import in the background): another connection's write waits one chunk at
  // most instead of the whole import (the rows known are read before, without the write lock). A crash
  // or stop between chunks leaves some rows written; the next import (the fingerprint is recorded only
  // after the last) compares against them and finishes.
  const existing = existingCandidates(db);
  let written = 0;
  let began = performance.now();
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = applySync(db, existing, rows, nowIso, ownDatasets, () => {
      if (++written % 64 !== 0 || performance.now() - began < chunks.maxMs) return;
      db.exec("COMMIT");
      chunks.between();
      db.exec("BEGIN IMMEDIATE");
      began = performance.now();
    });
    db.exec("COMMIT");
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw err;
  }
}

/** Commits once a transaction has held the write lock `maxMs`, then calls `between` (it may wait, or throw to stop). */
export interface SyncChunks { maxMs: number; between: () => void }

const SEP = "\u0000";

/** The stored candidates by key (place, kind, address): [id, the compared fields joined, dataset]. */
function existingCandidates(db: DB): Map<string, [number, string, string]> {
  const existing = new Map<string, [number, string, string]>();
  // Read to the end before writing (one statement at a time on a connection), row by row: no 340,000-row array.
  const all = stmt(db, `SELECT id, place_geoid, kind, url, scope, name, feed_urls, platform, platform_id, dataset, dataset_row
    FROM town_source_candidates`).raw().iterate() as Iterable<[number, string, string, string, ...Array<string | null>]>;
  for (const [id, place, kind, url, ...fields] of all) existing.set(place + SEP + kind + SEP + url, [id, fields.join(SEP), fields[5]!]);
  return existing;
}

function applySync(db: DB, existing: Map<string, [number, string, string]>, rows: readonly NewCandidate[], nowIso: string, ownDatasets: ReadonlySet<string>, wrote: () => void): SyncResult {
  const insert = stmt(db, `INSERT INTO town_source_candidates
      (place_geoid, kind, scope, name, url, feed_urls, platform, platform_id, dataset, dataset_row, imported_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const update = stmt(db, `UPDATE town_source_candidates SET scope = ?, name = ?, feed_urls = ?, platform = ?, platform_id = ?,
      dataset = ?, dataset_row = ?, imported_at = ? WHERE id = ?`);
  // A town feed verified from a candidate refers to it (migration 020): such a row is never removed.
  const remove = stmt(db, `DELETE FROM town_source_candidates WHERE id = @id AND checked_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM town_feeds WHERE candidate_id = @id)`);
  const result: SyncResult = { added: 0, updated: 0, removed: 0, unchanged: 0 };
  for (const r of rows) {
    const key = r.placeGeoid + SEP + r.kind + SEP + r.url;
    const feeds = JSON.stringify(r.feedUrls);
    const had = existing.get(key);
    if (!had) {
      insert.run(r.placeGeoid, r.kind, r.scope, r.name, r.url, feeds, r.platform, r.platformId, r.dataset, r.datasetRow, nowIso);
      result.added++;
      wrote();
      continue;
    }
    existing.delete(key);
    if (had[1] === [r.scope, r.name, feeds, r.platform ?? "", r.platformId ?? "", r.dataset, r.datasetRow].join(SEP)) result.unchanged++;
    else {
      update.run(r.scope, r.name, feeds, r.platform, r.platformId, r.dataset, r.datasetRow, nowIso, had[0]);
      result.updated++;
      wrote();
    }
  }
  for (const [id, , dataset] of existing.values()) {
    if (!ownDatasets.has(dataset)) continue;
    result.removed += remove.run({ id }).changes;
    wrote();
  }
  return result;
}

/** Candidates of each dataset in the database. */
export function candidateCountsByDataset(db: DB): Array<{ dataset: string; kind: CandidateKind; scope: CandidateScope; rows: number; places: number }> {
  return stmt(db, `SELECT dataset, kind, scope, count(*) AS rows, count(DISTINCT place_geoid) AS places
    FROM town_source_candidates GROUP BY dataset, kind, scope ORDER BY dataset, kind, scope`).all() as ReturnType<typeof candidateCountsByDataset>;
}
