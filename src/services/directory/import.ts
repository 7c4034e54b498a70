import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { parse } from "csv-parse/sync";
import { DATASETS, DIRECTORY_RULES_VERSION, type MatchOutcome, type MatchResult, type NewCandidate } from "../../core/directory/candidate.ts";
import { directoryCounts, type DirectoryCounts } from "../../core/directory/directory-counts.ts";
import { matchCountyOutlet } from "../../core/directory/match-3dlnews.ts";
import { matchCivicPlus, type CivicPlusRow } from "../../core/directory/match-civicplus.ts";
import { matchDotGov, type DotGovRow } from "../../core/directory/match-dotgov.ts";
import { matchLegistar, type LegistarRow } from "../../core/directory/match-legistar.ts";
import { matchTownOutlet } from "../../core/directory/match-local-memory.ts";
import { matchUsCityUrl, type UsCityUrlRow } from "../../core/directory/match-uscityurl.ts";
import { mergeCandidates } from "../../core/directory/merge-candidates.ts";
import type { OutletRow } from "../../core/directory/news-outlets.ts";
import { buildPlaceIndex } from "../../core/directory/place-lookup.ts";
import type { DB } from "../../store/db.ts";
import { directoryPlaces, syncCandidates, type SyncChunks, type SyncResult } from "../../store/directory/candidates.ts";
import { getMeta, setMeta } from "../../store/platform/meta.ts";

/**
 * The town directory's importer (`npm run admin -- directory import`, and the server's start in the
 * background: import-on-start.ts):
 * reads the open datasets of TOWN_SOURCES_DIR (default content/data/sources, the same file names and
 * formats as shipped), matches each row to places with src/core/directory/ (a matcher per file) and
 * stores the candidates in one transaction. Rules and counts: docs/sources.md.
 */

type DatasetId = keyof typeof DATASETS;

export interface DirectoryImportResult {
  /** False when the server skipped it: the same files, places and rules were imported already. */
  imported: boolean;
  dir: string;
  /** Files of DATASETS not in the folder (their rows count as none). */
  missing: string[];
  /** Rows read and their outcomes, per file. */
  outcomes: Record<string, Partial<Record<MatchOutcome, number>> & { rows: number }>;
  counts: DirectoryCounts | null;
  sync: SyncResult | null;
  ms: number;
}

const FINGERPRINT_KEY = "directory_fingerprint";

/** The dataset rows, parsed as the shipped files are laid out. */
interface DatasetRows {
  uscityurl: UsCityUrlRow[];
  dotgov: DotGovRow[];
  civicplus: CivicPlusRow[];
  legistar: LegistarRow[];
  /** Outlets of both JSON files: the state key, the row's path in the file (`AK.newspaper[3]`) and the row. */
  localMemory: Array<{ state: string; key: string; row: OutletRow }>;
  threeDL: Array<{ state: string; key: string; row: OutletRow }>;
}

function readCsv<T>(file: string): T[] {
  return parse(fs.readFileSync(file), { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true }) as T[];
}

/** `{"AK": {"newspaper": [outlet, ...], ...}, ...}`; entries that are not outlets (Local Memory's `state-name`) skipped. */
function readOutlets(file: string): Array<{ state: string; key: string; row: OutletRow }> {
  let buf = fs.readFileSync(file);
  if (file.endsWith(".gz")) buf = zlib.gunzipSync(buf);
  const data = JSON.parse(buf.toString("utf8")) as Record<string, Record<string, unknown>>;
  const out: Array<{ state: string; key: string; row: OutletRow }> = [];
  for (const [state, classes] of Object.entries(data)) {
    for (const [cls, list] of Object.entries(classes ?? {})) {
      if (!Array.isArray(list)) continue;
      list.forEach((row, i) => {
        if (row && typeof row === "object" && !Array.isArray(row) && "website" in row) out.push({ state, key: `${state}.${cls}[${i}]`, row: row as OutletRow });
      });
    }
  }
  return out;
}

function readDatasets(dir: string): { rows: DatasetRows; missing: string[] } {
  const missing: string[] = [];
  const file = (id: DatasetId) => {
    const f = path.join(dir, DATASETS[id]);
    if (fs.existsSync(f)) return f;
    missing.push(DATASETS[id]);
    return null;
  };
  const csv = <T>(id: DatasetId): T[] => { const f = file(id); return f ? readCsv<T>(f) : []; };
  const outlets = (id: DatasetId) => { const f = file(id); return f ? readOutlets(f) : []; };
  return {
    rows: {
      uscityurl: csv<UsCityUrlRow>("uscityurl"), dotgov: csv<DotGovRow>("dotgov"),
      civicplus: csv<CivicPlusRow>("civicplus"), legistar: csv<LegistarRow>("legistar"),
      localMemory: outlets("localMemory"), threeDL: outlets("threeDL"),
    },
    missing,
  };
}

/** What identifies an import: the rules' version, the places data and each file's bytes. */
function fingerprint(db: DB, dir: string): string {
  const hash = crypto.createHash("sha256").update(`rules ${DIRECTORY_RULES_VERSION}\nplaces ${getMeta(db, "places_sha256") ?? ""}\n`);
  for (const name of Object.values(DATASETS)) {
    const f = path.join(dir, name);
    hash.update(`${name} ${fs.existsSync(f) ? crypto.createHash("sha256").update(fs.readFileSync(f)).digest("hex") : "-"}\n`);
  }
  return hash.digest("hex");
}

/** Every dataset row through its matcher: the merged candidates and each file's outcomes. */
export function matchDatasets(db: DB, rows: DatasetRows): { candidates: NewCandidate[]; outcomes: DirectoryImportResult["outcomes"]; counts: DirectoryCounts } {
  const index = buildPlaceIndex(directoryPlaces(db));
  const outcomes: DirectoryImportResult["outcomes"] = {};
  const all: NewCandidate[] = [];
  const run = <T>(id: DatasetId, list: T[], match: (row: T) => MatchResult) => {
    const tally: DirectoryImportResult["outcomes"][string] = { rows: list.length };
    for (const row of list) {
      const r = match(row);
      tally[r.outcome] = (tally[r.outcome] ?? 0) + 1;
      for (const c of r.candidates) all.push(c);
    }
    outcomes[DATASETS[id]] = tally;
  };
  // The order is precedence in mergeCandidates: a town source first, the official website before a .gov domain.
  run("uscityurl", rows.uscityurl, (r) => matchUsCityUrl(index, r));
  run("dotgov", rows.dotgov, (r) => matchDotGov(index, r));
  run("civicplus", rows.civicplus, (r) => matchCivicPlus(index, r));
  run("legistar", rows.legistar, (r) => matchLegistar(index, r));
  run("localMemory", rows.localMemory, (r) => matchTownOutlet(index, r.row, r.state, r.key));
  run("threeDL", rows.threeDL, (r) => matchCountyOutlet(index, r.row, r.state, r.key));
  // In the unique index's order: the B-tree is appended to, not split all over (several times faster).
  const candidates = mergeCandidates(all).sort((a, b) =>
    a.placeGeoid < b.placeGeoid ? -1 : a.placeGeoid > b.placeGeoid ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.url < b.url ? -1 : a.url > b.url ? 1 : 0);
  return { candidates, outcomes, counts: directoryCounts(index, candidates) };
}

/**
 * Imports the directory from `dir`. `onlyIfChanged` (the server's start) skips it when the same files,
 * places data and rules were imported already, and when the folder does not exist; `onImporting` is
 * told when it does import; `chunks` writes in several transactions (syncCandidates).
 */
export function importDirectory(db: DB, dir: string, opts: { now: Date; onlyIfChanged?: boolean; onImporting?: () => void; chunks?: SyncChunks }): DirectoryImportResult {
  const started = performance.now();
  const skipped = (missing: string[]): DirectoryImportResult => ({ imported: false, dir, missing, outcomes: {}, counts: null, sync: null, ms: Math.round(performance.now() - started) });
  if (!fs.existsSync(dir)) {
    if (opts.onlyIfChanged) return skipped(Object.values(DATASETS));
    throw new Error(`the town sources folder ${dir} does not exist (TOWN_SOURCES_DIR)`);
  }
  const print = fingerprint(db, dir);
  if (opts.onlyIfChanged && getMeta(db, FINGERPRINT_KEY) === print) return skipped([]);
  opts.onImporting?.();
  // The parsed files are garbage once matched (not held through the writing).
  let missing: string[] = [];
  const { candidates, outcomes, counts } = (() => {
    const read = readDatasets(dir);
    missing = read.missing;
    return matchDatasets(db, read.rows);
  })();
  const sync = syncCandidates(db, candidates, opts.now.toISOString(), new Set(Object.values(DATASETS)), opts.chunks);
  setMeta(db, FINGERPRINT_KEY, print);
  return { imported: true, dir, missing, outcomes, counts, sync, ms: Math.round(performance.now() - started) };
}

/** The import's report as printed by `directory import` (and put in docs/sources.md). */
export function directoryReport(r: DirectoryImportResult): string {
  const lines: string[] = [];
  const pct = (n: number, of: number) => `${n.toLocaleString("en-US")} (${of ? Math.round((100 * n) / of) : 0}%)`;
  lines.push(`town directory from ${r.dir}${r.imported ? "" : ": already imported (same files, places and rules)"}`);
  for (const m of r.missing) lines.push(`  missing: ${m}`);
  for (const [file, t] of Object.entries(r.outcomes)) {
    const { rows, ...rest } = t;
    lines.push(`  ${file}: ${rows.toLocaleString("en-US")} rows; ${Object.entries(rest).map(([k, v]) => `${k} ${v!.toLocaleString("en-US")}`).join(", ")}`);
  }
  const c = r.counts;
  if (c) {
    lines.push(`places with at least one candidate: ${pct(c.placesWithAny, c.places)} of ${c.places.toLocaleString("en-US")}; ` +
      `of the ${c.places5000.toLocaleString("en-US")} with 5,000 people or more: ${pct(c.places5000WithAny, c.places5000)}`);
    lines.push(`places with a source of their own (not only county-wide): ${pct(c.placesWithTown, c.places)}; ` +
      `with 5,000 people or more: ${pct(c.places5000WithTown, c.places5000)}`);
    lines.push(`places with a news outlet with a recorded feed (town or county): ${pct(c.placesWithNewsFeed, c.places)}`);
    lines.push("by kind/scope: places (candidates)");
    for (const [k, n] of Object.entries(c.placesBy)) lines.push(`  ${k.padEnd(18)} ${pct(n, c.places).padStart(15)}  (${c.rowsBy[k].toLocaleString("en-US")})`);
    lines.push(`candidates: ${c.rows.toLocaleString("en-US")}`);
  }
  if (r.sync) lines.push(`stored: ${r.sync.added} added, ${r.sync.updated} updated, ${r.sync.removed} removed, ${r.sync.unchanged} unchanged`);
  lines.push(`took ${(r.ms / 1000).toFixed(1)} s`);
  return lines.join("\n");
}
