import type { PreparedEdition } from "../../core/edition/email-render.ts";
import type { MessageTemplate } from "../../integrations/mail/message-template.ts";
import type { DB } from "../../store/db.ts";
import { editionForMail, type EditionForMail } from "../../store/mail/outbox.ts";

/**
 * What the sender keeps from one batch to the next: each edition's parts prepared for mail (text
 * part, styled HTML, preheader), once per set of sections its readers hid, and the digest's message
 * template per town. A morning's digests are queued edition by edition, so a batch mostly meets the
 * editions of the batch before: composing them again for every 500 readers was most of the garbage
 * a batch left behind. An entry the last batch did not use is dropped when a batch starts, so the
 * cache holds about one batch's editions (a national morning has 32,000 of them).
 */
export interface DigestCache {
  entries: Map<string, DigestEntry>;
  /** The number of the batch running (entries remember the last batch that used them). */
  batch: number;
}

interface DigestEntry {
  /** The edition as read; undefined: it no longer exists. */
  source: EditionForMail | undefined;
  prepared: PreparedEdition | undefined;
  /** The digest's template by town (its slug), compiled on first use. */
  templates: Map<string, Promise<MessageTemplate | undefined>>;
  batch: number;
}

export function createDigestCache(): DigestCache {
  return { entries: new Map(), batch: 0 };
}

/** A batch starts: what the batch before did not use goes. */
export function startBatch(cache: DigestCache): void {
  for (const [key, entry] of cache.entries) if (entry.batch < cache.batch) cache.entries.delete(key);
  cache.batch++;
}

/**
 * The edition `id` without the sections `hidden` (comma-separated keys; "" for the whole edition),
 * prepared with `prepare`. Read once per batch: kept from the batch before if it is unchanged.
 */
export function digestEdition(cache: DigestCache, db: DB, id: number, hidden: string, prepare: (edition: EditionForMail) => PreparedEdition): DigestEntry {
  const key = `${id}|${hidden}`;
  let entry = cache.entries.get(key);
  if (entry?.batch === cache.batch) return entry;
  const source = editionForMail(db, id);
  if (!entry || !sameEdition(entry.source, source)) {
    entry = { source, prepared: source && prepare(source), templates: new Map(), batch: cache.batch };
    cache.entries.set(key, entry);
  }
  entry.batch = cache.batch;
  return entry;
}

function sameEdition(a: EditionForMail | undefined, b: EditionForMail | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.date === b.date && a.subject === b.subject && a.html === b.html && a.markdown === b.markdown);
}

/** The entry's template for one town, compiled by `compile` the first time. */
export function digestTemplate(entry: DigestEntry, town: string, compile: () => Promise<MessageTemplate | undefined>): Promise<MessageTemplate | undefined> {
  let t = entry.templates.get(town);
  if (!t) entry.templates.set(town, (t = compile()));
  return t;
}
