import { cachedStatement as stmt, type DB } from "../db.ts";

/*
 * Who follows a town's actor, and the instances staff refused. A follower is keyed by the town and
 * the remote actor's id; its server (`host`) is what a block names.
 */

export interface Follower {
  actorId: string;
  host: string;
  inbox: string;
  sharedInbox: string | null;
}

export interface NewFollower extends Follower {
  placeGeoid: string;
  followId: string | null;
  createdAt: string;
}

/** Stores a follow; following again replaces the stored inbox and Follow id (an actor may move its inbox). */
export function addFollower(db: DB, f: NewFollower): void {
  stmt(db, `
    INSERT INTO fediverse_followers (place_geoid, actor_id, host, inbox, shared_inbox, follow_id, created_at)
    VALUES (@placeGeoid, @actorId, @host, @inbox, @sharedInbox, @followId, @createdAt)
    ON CONFLICT (place_geoid, actor_id) DO UPDATE SET inbox = excluded.inbox, shared_inbox = excluded.shared_inbox, follow_id = excluded.follow_id, host = excluded.host`).run(f);
}

/** Removes a follow (an Undo(Follow)); returns whether there was one. */
export function removeFollower(db: DB, placeGeoid: string, actorId: string): boolean {
  return stmt(db, "DELETE FROM fediverse_followers WHERE place_geoid = ? AND actor_id = ?").run(placeGeoid, actorId).changes > 0;
}

/** Removes the follow with this Follow id, by the actor who made it (an Undo naming the Follow by id only). */
export function removeFollowById(db: DB, followId: string, actorId: string): boolean {
  return stmt(db, "DELETE FROM fediverse_followers WHERE follow_id = ? AND actor_id = ?").run(followId, actorId).changes > 0;
}

/**
 * Removes the follows of `actorIds` that deliver to `inbox` (their own inbox or their server's shared
 * one), in every town: the inbox answered that it is gone, so none of them can be reached there.
 * Returns how many follows were removed.
 */
export function removeFollowersAtInbox(db: DB, inbox: string, actorIds: readonly string[]): number {
  return stmt(db, `
    DELETE FROM fediverse_followers
    WHERE (inbox = ? OR shared_inbox = ?) AND actor_id IN (SELECT value FROM json_each(?))`).run(inbox, inbox, JSON.stringify(actorIds)).changes;
}

/** A page of a town's followers in a stable order (by actor id), after `after` when given; `limit` -1: all of them. */
export function followersPage(db: DB, placeGeoid: string, after: string | null, limit: number): Follower[] {
  return stmt(db, `
    SELECT actor_id AS actorId, host, inbox, shared_inbox AS sharedInbox FROM fediverse_followers
    WHERE place_geoid = ? AND actor_id > ? ORDER BY actor_id LIMIT ?`).all(placeGeoid, after ?? "", limit) as Follower[];
}

export function followerCount(db: DB, placeGeoid: string): number {
  return stmt(db, "SELECT count(*) FROM fediverse_followers WHERE place_geoid = ?").pluck().get(placeGeoid) as number;
}

// ---------- blocked instances ----------

export interface BlockedInstance {
  host: string;
  reason: string | null;
  createdAt: string;
}

/** Whether any of `hosts` (a host and the names that would cover it: core/fediverse/hosts.ts) is blocked. */
export function isInstanceBlocked(db: DB, hosts: readonly string[]): boolean {
  return stmt(db, "SELECT EXISTS (SELECT 1 FROM fediverse_blocked_instances WHERE host IN (SELECT value FROM json_each(?)))").pluck().get(JSON.stringify(hosts)) === 1;
}

/**
 * Blocks an instance and removes the followers on every host it covers (`covers`: the host itself,
 * its other ports, its subdomains), in one transaction; returns the followers removed.
 */
export function blockInstance(db: DB, host: string, reason: string | null, at: string, covers: (followerHost: string) => boolean): number {
  return db.transaction(() => {
    stmt(db, `INSERT INTO fediverse_blocked_instances (host, reason, created_at) VALUES (?, ?, ?)
      ON CONFLICT (host) DO UPDATE SET reason = excluded.reason`).run(host, reason, at);
    const hosts = (stmt(db, "SELECT DISTINCT host FROM fediverse_followers").pluck().all() as string[]).filter(covers);
    return stmt(db, "DELETE FROM fediverse_followers WHERE host IN (SELECT value FROM json_each(?))").run(JSON.stringify(hosts)).changes;
  })();
}

export function unblockInstance(db: DB, host: string): boolean {
  return stmt(db, "DELETE FROM fediverse_blocked_instances WHERE host = ?").run(host).changes > 0;
}

export function blockedInstances(db: DB): BlockedInstance[] {
  return stmt(db, "SELECT host, reason, created_at AS createdAt FROM fediverse_blocked_instances ORDER BY host").all() as BlockedInstance[];
}
