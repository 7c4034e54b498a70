import { createFederation, getUserAgent, type Federation } from "@fedify/fedify";
import type { AppContext } from "../platform/context.ts";
import { SqliteKvStore } from "../../store/fediverse/kv.ts";
import { registerDispatchers } from "./dispatchers.ts";
import { inboxRefusal, registerInbox } from "./inbox.ts";
import { createInboxGate, type InboxGate } from "./inbox-gate.ts";
import { SqliteMessageQueue } from "./queue.ts";
import { registerPermanentFailures } from "./unreachable.ts";

/**
 * The fediverse side of the site, on Fedify: every town with a newsletter is an actor
 * (`@ely-nevada@host`), found by WebFinger, followed through its inbox, and posting each morning's
 * edition to its followers. Its key-value store and delivery queue are tables of this database, so
 * any process can enqueue and the server's worker delivers (worker.ts).
 *
 * Ids are made on BASE_URL: requests reach Fedify with their URL on that origin (api/routes/fediverse/),
 * the worker makes its contexts there, whatever address the server was reached at.
 *
 * Incoming activities are handled at once (a Follow is stored within its request); outgoing ones
 * (Accepts, the morning's posts and their fan-out to every inbox) go through the queue, signed with
 * draft-cavage HTTP signatures or RFC 9421 (Fedify tries one and falls back to the other).
 */
export interface Fediverse {
  federation: Federation<AppContext>;
  queue: SqliteMessageQueue;
  /** The checks an activity passes before Fedify's inbox (inbox-gate.ts). */
  gate: InboxGate;
}

export function createFediverse(ctx: AppContext): Fediverse {
  const settings = ctx.config.federation;
  // Every request names the service and its address, deliveries as well as fetches (Fedify sets it
  // on fetches only). Read when used: a test's server learns its BASE_URL after its worker started.
  const userAgent = () => getUserAgent({ software: "citydaily", url: new URL(ctx.config.baseUrl) });
  const queue = new SqliteMessageQueue(ctx.db, {
    concurrency: settings.concurrency,
    pollMs: settings.pollMs,
    log: ctx.log,
    deliveryHeaders: () => ({ "User-Agent": userAgent() }),
    // Fedify checks the addresses it fetches (actors, keys) but not the inboxes it posts to: a remote
    // actor could name one inside our network, so each delivery is checked here first.
    refuse: (message) => (message.type === "outbox" && message.inbox ? inboxRefusal(ctx, message.inbox) : Promise.resolve(undefined)),
  });
  const kv = new SqliteKvStore(ctx.db);
  const federation = createFederation<AppContext>({
    kv,
    queue: { outbox: queue, fanout: queue },
    // Only the server's worker drains the queue; requests and scripts only add to it.
    manuallyStartQueue: true,
    allowPrivateAddress: settings.allowPrivate,
    userAgent: userAgent(),
  });
  registerDispatchers(federation);
  registerInbox(federation);
  registerPermanentFailures(federation);
  return { federation, queue, gate: createInboxGate(ctx, federation, kv) };
}
