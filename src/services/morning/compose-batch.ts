import { composeTown } from "../../core/edition/compose-town.ts";
import type { ComposedTown, TownSnapshot } from "../../core/edition/town-snapshot.ts";
import { storeEditions } from "../../store/morning/store-editions.ts";
import type { AppContext } from "../platform/context.ts";
import type { DueTown } from "../sources/run-sources.ts";
import type { Gathered } from "./gather.ts";
import type { Composition, ComposePool } from "./compose-workers.ts";

// The morning's compose and store steps for a batch of towns: each town's edition from its snapshot
// (pure, src/core/edition/compose-town.ts), then the whole batch stored in one transaction.

export interface BatchOutcome {
  /** Stored by this run: the town, its composition and the new edition's id. */
  stored: Array<{ town: DueTown; composed: ComposedTown; id: number }>;
  /** Composed, but another run stored the town's edition first. */
  skipped: DueTown[];
  failed: Array<{ town: DueTown; err: unknown }>;
}

/** Stores composed towns in one transaction: the editions, their search and ledger rows, the headlines shown and the hazards told. */
export function storeTowns(ctx: AppContext, towns: ComposedTown[], now: Date): Map<string, number> {
  if (towns.length === 0) return new Map();
  const at = now.toISOString();
  return storeEditions(ctx.db, towns.map((c) => ({
    placeGeoid: c.geoid, date: c.date, subject: c.subject, markdown: c.markdown, html: c.html, weather: c.weather, publishedAt: at,
    factKey: c.factKey, headlines: c.headlinesShown, hazards: c.hazardsTold, searchBody: c.searchBody,
  })));
}

/**
 * Composing holds the thread this long at most before a turn of the event loop: answers still
 * arriving (other batches, feeds) are read before their time limits fire.
 */
const YIELD_EVERY_MS = 10;

/** Composes each gathered town (in `pool`'s worker threads, or here), then stores them all at once; a town that fails alone is counted alone. */
export async function composeAndStore(ctx: AppContext, batch: Gathered[], now: Date, pool?: ComposePool): Promise<BatchOutcome> {
  const out: BatchOutcome = { stored: [], skipped: [], failed: [] };
  const gathered: Array<{ town: DueTown; snapshot: TownSnapshot }> = [];
  for (const g of batch) {
    if ("error" in g) out.failed.push({ town: g.town, err: g.error });
    else gathered.push(g);
  }
  const snapshots = gathered.map((g) => g.snapshot);
  // A worker that died leaves its batch to this thread.
  const compositions = pool ? await pool.compose(snapshots, now).catch(() => composeHere(snapshots, now)) : await composeHere(snapshots, now);
  const composed: Array<{ town: DueTown; composed: ComposedTown }> = [];
  compositions.forEach((c, i) => {
    const town = gathered[i]!.town;
    if (c.ok) composed.push({ town, composed: c.composed });
    else out.failed.push({ town, err: new Error(c.error) });
  });
  try {
    const ids = storeTowns(ctx, composed.map((c) => c.composed), now);
    for (const c of composed) {
      const id = ids.get(`${c.composed.geoid} ${c.composed.date}`);
      if (id === undefined) out.skipped.push(c.town);
      else out.stored.push({ ...c, id });
    }
  } catch (err) {
    out.failed.push(...composed.map((c) => ({ town: c.town, err })));
  }
  return out;
}

/** Composing on this thread, with a turn of the event loop every YIELD_EVERY_MS. */
async function composeHere(snapshots: TownSnapshot[], now: Date): Promise<Composition[]> {
  const out: Composition[] = [];
  let turn = performance.now();
  for (const s of snapshots) {
    if (performance.now() - turn > YIELD_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
    try {
      out.push({ ok: true, composed: composeTown(s, now) });
    } catch (err) {
      out.push({ ok: false, error: (err as Error).stack ?? String(err) });
    }
  }
  return out;
}
