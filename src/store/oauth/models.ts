import { cachedStatement as stmt, type DB } from "../db.ts";

// What the authorization server keeps (tables oauth_models and oauth_keys, migration 036): one row
// per oidc-provider model instance, written through its adapter (src/services/oauth/adapter.ts).

export interface OAuthRow {
  payload: string;
  consumed_at: number | null;
}

export interface StoredModel {
  model: string;
  id: string;
  payload: string;
  grantId: string | null;
  uid: string | null;
  accountId: string | null;
  expiresAt: number | null;
}

export function upsertModel(db: DB, m: StoredModel): void {
  stmt(db, `INSERT INTO oauth_models (model, id, payload, grant_id, uid, account_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, account_id = excluded.account_id, expires_at = excluded.expires_at`)
    .run(m.model, m.id, m.payload, m.grantId, m.uid, m.accountId, m.expiresAt);
}

/** A model instance that has not expired at `nowSeconds`. */
export function findModel(db: DB, model: string, id: string, nowSeconds: number): OAuthRow | undefined {
  return stmt(db, "SELECT payload, consumed_at FROM oauth_models WHERE model = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)").get(model, id, nowSeconds) as OAuthRow | undefined;
}

export function findModelByUid(db: DB, model: string, uid: string, nowSeconds: number): OAuthRow | undefined {
  return stmt(db, "SELECT payload, consumed_at FROM oauth_models WHERE model = ? AND uid = ? AND (expires_at IS NULL OR expires_at > ?)").get(model, uid, nowSeconds) as OAuthRow | undefined;
}

export function consumeModel(db: DB, model: string, id: string, nowSeconds: number): void {
  stmt(db, "UPDATE oauth_models SET consumed_at = ? WHERE model = ? AND id = ?").run(nowSeconds, model, id);
}

export function destroyModel(db: DB, model: string, id: string): void {
  stmt(db, "DELETE FROM oauth_models WHERE model = ? AND id = ?").run(model, id);
}

/** Every token and code of a grant (the grant itself is its own row, destroyed by id). */
export function destroyByGrant(db: DB, grantId: string): number {
  return stmt(db, "DELETE FROM oauth_models WHERE grant_id = ?").run(grantId).changes;
}

/** Drops what expired before `nowSeconds` (a few rows a sign-in; pruned as they are written). */
export function pruneExpired(db: DB, nowSeconds: number): void {
  stmt(db, "DELETE FROM oauth_models WHERE expires_at IS NOT NULL AND expires_at <= ?").run(nowSeconds);
}

/**
 * Sets how long a client is kept: `keepSeconds` after the last of its grants ends (the latest grant
 * expiry still ahead, else now: all revoked or expired). Both rows a client may have are moved: its
 * registration, and its metadata document (id `document {client_id}`). A client that never had a
 * grant keeps the deadline it was stored with. Past the deadline the row counts as expired
 * (findModel no longer returns it) and pruneExpired deletes it.
 */
export function keepClientAfterGrants(db: DB, clientId: string, nowSeconds: number, keepSeconds: number): void {
  stmt(db, `UPDATE oauth_models SET expires_at = ? + MAX(?, COALESCE((SELECT MAX(expires_at) FROM oauth_models
      WHERE model = 'Grant' AND json_extract(payload, '$.clientId') = ?), 0))
    WHERE model = 'Client' AND id IN (?, 'document ' || ?)`).run(keepSeconds, nowSeconds, clientId, clientId, clientId);
}

/** Whether a client holds a grant, live or not yet pruned (its document is then kept as its grants say). */
export function clientHasGrant(db: DB, clientId: string): boolean {
  return stmt(db, "SELECT 1 FROM oauth_models WHERE model = 'Grant' AND json_extract(payload, '$.clientId') = ? LIMIT 1").pluck().get(clientId) !== undefined;
}

/** The client a grant was given to, if the grant is stored. */
export function clientOfGrant(db: DB, grantId: string): string | undefined {
  return stmt(db, "SELECT json_extract(payload, '$.clientId') FROM oauth_models WHERE model = 'Grant' AND id = ?").pluck().get(grantId) as string | undefined;
}

export interface GrantRow {
  id: string;
  payload: string;
  expires_at: number | null;
}

/** The grants an operator gave (each a client's access to their towns), newest first. */
export function grantsOfAccount(db: DB, accountId: string, nowSeconds: number): GrantRow[] {
  return stmt(db, "SELECT id, payload, expires_at FROM oauth_models WHERE model = 'Grant' AND account_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY json_extract(payload, '$.iat') DESC")
    .all(accountId, nowSeconds) as GrantRow[];
}

/** A client's stored metadata: dynamically registered, or the last fetched metadata document. */
export function clientPayload(db: DB, clientId: string): string | undefined {
  return stmt(db, "SELECT payload FROM oauth_models WHERE model = 'Client' AND id = ?").pluck().get(clientId) as string | undefined;
}

export function signingKeys(db: DB): string | undefined {
  return stmt(db, "SELECT jwks FROM oauth_keys WHERE id = 1").pluck().get() as string | undefined;
}

/** Keeps the first key set written (two processes starting at once agree on one). */
export function keepSigningKeys(db: DB, jwks: string, nowIso: string): string {
  stmt(db, "INSERT INTO oauth_keys (id, jwks, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING").run(jwks, nowIso);
  return signingKeys(db)!;
}
