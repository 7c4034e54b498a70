import crypto from "node:crypto";
import type { Config } from "../../config/load.ts";
import type { DB } from "../../store/db.ts";
import { getOrInsertMeta } from "../../store/platform/meta.ts";

/** Keys the app signs with, each from its setting or generated on first use and kept in the database. */
export interface Secrets {
  /** HMAC key of unsubscribe and manage links (`UNSUBSCRIBE_SECRET`). */
  unsubscribe(): string;
  /** A named key kept in the database (e.g. the local payment provider's callback secret). */
  stored(name: string): string;
}

/**
 * Generated keys live in the `meta` table, so links and signatures stay valid across restarts and
 * across processes sharing the database; each is read once per app.
 */
export function createSecrets(db: DB, config: Config): Secrets {
  const memo = new Map<string, string>();
  const stored = (name: string) => {
    let value = memo.get(name);
    if (value === undefined) memo.set(name, (value = getOrInsertMeta(db, name, crypto.randomBytes(32).toString("base64url"))));
    return value;
  };
  return {
    unsubscribe: () => config.mail.unsubscribeSecret ?? stored("unsubscribe_secret"),
    stored,
  };
}
