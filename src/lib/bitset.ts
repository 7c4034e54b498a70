/**
 * Dense sets of edition ids, one bit per id, for exact search totals (src/store/search/bits.ts).
 *
 * Written here rather than taken from roaring-wasm: the sets kept are those of frequent terms (at
 * least a few percent of all editions), where a plain bitmap is as small as a roaring one, and
 * AND / AND-NOT / count over 365,000 ids ran in about 0.13 ms in plain JS against 0.6 ms through
 * roaring-wasm (which also copies every id list into WASM memory).
 */

export type Bitset = Uint32Array;

/** A set able to hold ids 0..maxId. */
export function emptyBitset(maxId: number): Bitset {
  return new Uint32Array((maxId >>> 5) + 1);
}

export function addIds(set: Bitset, ids: Iterable<number>): Bitset {
  for (const id of ids) set[id >>> 5] |= 1 << (id & 31);
  return set;
}

export function hasId(set: Bitset, id: number): boolean {
  return (id >>> 5) < set.length && (set[id >>> 5] & (1 << (id & 31))) !== 0;
}

/** Clears ids from..to (inclusive). */
export function clearRange(set: Bitset, from: number, to: number): void {
  for (let id = from; id <= to && (id >>> 5) < set.length;) {
    if ((id & 31) === 0 && id + 31 <= to) {
      set[id >>> 5] = 0;
      id += 32;
    } else {
      set[id >>> 5] &= ~(1 << (id & 31));
      id++;
    }
  }
}

/** target &= other (ids beyond `other` are dropped). */
export function andInto(target: Bitset, other: Bitset): Bitset {
  const n = Math.min(target.length, other.length);
  for (let i = 0; i < n; i++) target[i] &= other[i];
  target.fill(0, n);
  return target;
}

/** target |= other; `target` must be at least as long. */
export function orInto(target: Bitset, other: Bitset): Bitset {
  for (let i = 0; i < other.length; i++) target[i] |= other[i];
  return target;
}

/** target &= ~other. */
export function andNotInto(target: Bitset, other: Bitset): Bitset {
  const n = Math.min(target.length, other.length);
  for (let i = 0; i < n; i++) target[i] &= ~other[i];
  return target;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

export function countIds(set: Bitset): number {
  let n = 0;
  for (let i = 0; i < set.length; i++) if (set[i] !== 0) n += popcount(set[i]);
  return n;
}

/** The `limit` highest ids in the set, highest first. */
export function highestIds(set: Bitset, limit: number): number[] {
  const out: number[] = [];
  for (let i = set.length - 1; i >= 0 && out.length < limit; i--) {
    const word = set[i];
    if (word === 0) continue;
    for (let b = 31; b >= 0 && out.length < limit; b--) if (word & (1 << b)) out.push(i * 32 + b);
  }
  return out;
}
