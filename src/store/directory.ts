import { cachedStatement as stmt, type DB } from "./db.ts";

// The town directory's candidate sources (table town_source_candidates): what the open datasets say
// a place's sources may be, with the dataset and row each came from, and the last verification.

export type CandidateKind = "government" | "gov_domain" | "news" | "civic";
export type CandidateScope = "town" | "county";
export type CandidatePlatform = "civicplus" | "legistar" | "wordpress";
export type CandidateStatus = "verified" | "no_feed" | "stale" | "failed" | "refused" | "blocked";

export interface NewCandidate {
  placeGeoid: string;
  kind: CandidateKind;
  scope: CandidateScope;
  name: string;
  url: string;
  /** Recorded feed addresses, absolute, comment feeds already dropped. */
  feedUrls: string[];
  platform: CandidatePlatform | null;
  platformId: string | null;
  dataset: string;
  datasetRow: string;
}

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
