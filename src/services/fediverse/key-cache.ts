import type { KeyCache, KvStore } from "@fedify/fedify";
import { CryptographicKey, Multikey } from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";

/** Where Fedify's inbox keeps the remote keys it fetched (its default `kvPrefixes.publicKey`). */
const PUBLIC_KEY_PREFIX = ["_fedify", "publicKey"] as const;
/** How long a key that could not be fetched is not asked for again, as Fedify's own cache. */
const UNAVAILABLE_TTL = Temporal.Duration.from({ minutes: 10 });

/**
 * The remote keys the inbox's own signature check (inbox-gate.ts) reads and writes, in the entries
 * Fedify's inbox uses: a key fetched by one is not fetched again by the other. Fedify's class for it
 * is not exported; this is its `get` and `set`, stored the same way (the key's JSON-LD).
 */
export function sharedKeyCache(kv: KvStore): KeyCache {
  const keyOf = (keyId: URL) => [...PUBLIC_KEY_PREFIX, keyId.href] as const;
  return {
    async get(keyId) {
      const stored = await kv.get(keyOf(keyId));
      if (stored === undefined || stored === null) return stored as null | undefined;
      try {
        return await CryptographicKey.fromJsonLd(stored);
      } catch {
        return await Multikey.fromJsonLd(stored).catch(() => undefined);
      }
    },
    async set(keyId, key) {
      if (key === null) await kv.set(keyOf(keyId), null, { ttl: UNAVAILABLE_TTL as never });
      else await kv.set(keyOf(keyId), await key.toJsonLd());
    },
  };
}
