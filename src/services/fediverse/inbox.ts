import { randomUUID } from "node:crypto";
import { validatePublicUrl, type Federation, type InboxContext } from "@fedify/fedify";
import { Accept, Follow, isActor, Reject, Undo } from "@fedify/fedify/vocab";
import { addFollower, isInstanceBlocked, removeFollowById, removeFollower } from "../../store/fediverse/followers.ts";
import { blockCandidates, urlHost } from "../../core/fediverse/hosts.ts";
import type { AppContext } from "../platform/context.ts";
import { INBOX_PATH, SHARED_INBOX_PATH } from "./paths.ts";
import { actorTown } from "./towns.ts";

// What a town's inbox acts on: a Follow is accepted (a signed Accept goes back) and stored, unless the
// follower's server is blocked (then a Reject); an Undo of a Follow removes it. Fedify has verified
// the request's signature and that the signer is the activity's actor before these run.

/** The town a Follow names, if the object is one of our actors. */
function followedTown(c: InboxContext<AppContext>, object: URL | null) {
  const parsed = object ? c.parseUri(object) : null;
  return parsed?.type === "actor" ? actorTown(c.data, parsed.identifier) : undefined;
}

/** Whether deliveries may go to this inbox: a public address, unless FEDERATION_ALLOW_PRIVATE (tests). */
export async function inboxRefusal(ctx: AppContext, inbox: string): Promise<string | undefined> {
  if (ctx.config.federation.allowPrivate) return undefined;
  try {
    await validatePublicUrl(inbox);
    return undefined;
  } catch (err) {
    return `the inbox is not on the public internet (${(err as Error).message})`;
  }
}

async function onFollow(c: InboxContext<AppContext>, follow: Follow): Promise<void> {
  const town = followedTown(c, follow.objectId);
  if (!follow.id || !follow.actorId || !town) return;
  const follower = await follow.getActor(c);
  if (!follower || !isActor(follower) || !follower.id || !follower.inboxId) return;
  const host = urlHost(follower.id);
  const me = c.getActorUri(town.slug);
  // The actor's server, and the servers its inboxes are on: an actor elsewhere cannot bring a blocked server's inbox in.
  const hosts = [follower.id, follower.inboxId, follower.endpoints?.sharedInbox].flatMap((u) => (u ? blockCandidates(urlHost(u)) : []));
  if (isInstanceBlocked(c.data.db, hosts)) {
    c.data.log.info({ town: town.slug, follower: follower.id.href }, "fediverse follow refused: the instance is blocked");
    await c.sendActivity({ identifier: town.slug }, follower, new Reject({ id: new URL(`${me.href}#rejects/${randomUUID()}`), actor: me, object: follow }));
    return;
  }
  const refused = await inboxRefusal(c.data, follower.inboxId.href);
  if (refused) {
    c.data.log.warn({ town: town.slug, follower: follower.id.href, reason: refused }, "fediverse follow ignored");
    return;
  }
  addFollower(c.data.db, {
    placeGeoid: town.geoid, actorId: follower.id.href, host, inbox: follower.inboxId.href,
    sharedInbox: follower.endpoints?.sharedInbox?.href ?? null, followId: follow.id.href, createdAt: new Date().toISOString(),
  });
  await c.sendActivity({ identifier: town.slug }, follower, new Accept({ id: new URL(`${me.href}#accepts/${randomUUID()}`), actor: me, object: follow }));
  c.data.log.info({ town: town.slug, follower: follower.id.href }, "fediverse follow accepted");
}

async function onUndo(c: InboxContext<AppContext>, undo: Undo): Promise<void> {
  if (!undo.actorId) return;
  const actorId = undo.actorId.href;
  // The Follow is usually embedded; when only its id is given (and it cannot be fetched), its stored id matches.
  const object = await undo.getObject(c).catch(() => null);
  if (object instanceof Follow) {
    const town = object.actorId?.href === actorId ? followedTown(c, object.objectId) : undefined;
    if (town && removeFollower(c.data.db, town.geoid, actorId)) c.data.log.info({ town: town.slug, follower: actorId }, "fediverse follow undone");
  } else if (undo.objectId && removeFollowById(c.data.db, undo.objectId.href, actorId)) {
    c.data.log.info({ follower: actorId }, "fediverse follow undone");
  }
}

export function registerInbox(federation: Federation<AppContext>): void {
  federation.setInboxListeners(INBOX_PATH, SHARED_INBOX_PATH)
    .on(Follow, onFollow)
    .on(Undo, onUndo);
}
