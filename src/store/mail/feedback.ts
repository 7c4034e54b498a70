import { cachedStatement, type DB } from "../db.ts";

/** How long seen nonces and event ids are kept (longer than any signature tolerance). */
export const SEEN_RETENTION_MS = 2 * 24 * 3600 * 1000;

/**
 * Records a nonce or event id as seen. False when it already was (a replay or a duplicate).
 * Old rows go at the same time, so the table stays the size of two days of webhooks.
 */
export function markWebhookSeen(db: DB, provider: string, kind: "nonce" | "event", id: string, nowMs: number): boolean {
  cachedStatement(db, "DELETE FROM mail_webhook_seen WHERE seen_at < ?").run(nowMs - SEEN_RETENTION_MS);
  return cachedStatement(db, "INSERT INTO mail_webhook_seen (provider, kind, id, seen_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
    .run(provider, kind, id, nowMs).changes === 1;
}

/** The address an outbox row was sent to, and its subscription (none for transactional mail). */
export function outboxRecipient(db: DB, outboxId: number): { email: string; subscriberId: number | null } | undefined {
  return cachedStatement(db, `SELECT COALESCE(s.email, o.to_email) AS email, o.subscriber_id AS subscriberId
    FROM outbox o LEFT JOIN subscribers s ON s.id = o.subscriber_id WHERE o.id = ?`).get(outboxId) as ReturnType<typeof outboxRecipient>;
}
