import { cachedStatement as stmt, type DB } from "../db.ts";

/** A town actor's key pairs as JWK strings: RSA (HTTP signatures) and Ed25519 (object integrity proofs). */
export interface StoredKeys {
  rsaPrivate: string;
  rsaPublic: string;
  edPrivate: string;
  edPublic: string;
}

export function actorKeys(db: DB, placeGeoid: string): StoredKeys | undefined {
  return stmt(db, "SELECT rsa_private AS rsaPrivate, rsa_public AS rsaPublic, ed_private AS edPrivate, ed_public AS edPublic FROM fediverse_keys WHERE place_geoid = ?")
    .get(placeGeoid) as StoredKeys | undefined;
}

/** Stores a town's first keys; when another request stored them first, theirs stay (the caller reads them back). */
export function insertActorKeys(db: DB, placeGeoid: string, keys: StoredKeys, at: string): void {
  stmt(db, `INSERT INTO fediverse_keys (place_geoid, rsa_private, rsa_public, ed_private, ed_public, created_at)
    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (place_geoid) DO NOTHING`).run(placeGeoid, keys.rsaPrivate, keys.rsaPublic, keys.edPrivate, keys.edPublic, at);
}
