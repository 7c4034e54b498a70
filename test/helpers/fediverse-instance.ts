import http from "node:http";
import type { AddressInfo } from "node:net";
import { createFederation, generateCryptoKeyPair, getDocumentLoader, MemoryKvStore, verifyRequest, type Federation } from "@fedify/fedify";
import { Accept, Create, Endpoints, Person, Reject, type Activity } from "@fedify/fedify/vocab";
import { H3, toNodeHandler } from "h3";

// A second, independent ActivityPub server on 127.0.0.1 stands in for a Mastodon instance: Fedify's
// own, with its in-memory stores and one user, alice. It records what reaches alice's inboxes (Fedify
// verifies every signature first; each is verified again here on its own).

export interface Received { activity: Activity; keyId: string; signedWith: "rfc9421" | "draft-cavage-http-signatures-12" }

export interface Instance {
  origin: string;
  host: string;
  federation: Federation<void>;
  received: Received[];
  /** The path (and query) of every POST, answered or not. */
  posts: string[];
  /** Every POST as it arrived: its path, User-Agent and body. */
  requests: Array<{ path: string; userAgent: string | null; body: string }>;
  /** Alice's key pair (RSA), to sign requests by hand. */
  keys: CryptoKeyPair[];
  /** Inbox paths that answer 410 Gone to every POST, as a server does for an account it deleted. */
  gone: Set<string>;
  close: () => Promise<void>;
}

export async function startInstance(): Promise<Instance> {
  const federation = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  const keys = [await generateCryptoKeyPair("RSASSA-PKCS1-v1_5")];
  const received: Received[] = [];
  const posts: string[] = [];
  const requests: Instance["requests"] = [];
  const gone = new Set<string>();
  federation.setActorDispatcher("/users/{identifier}", async (c, identifier) => identifier !== "alice" ? null : new Person({
    id: c.getActorUri(identifier), preferredUsername: identifier, name: "Alice",
    inbox: c.getInboxUri(identifier), endpoints: new Endpoints({ sharedInbox: c.getInboxUri() }),
    publicKey: (await c.getActorKeyPairs(identifier))[0].cryptographicKey,
  })).setKeyPairsDispatcher(() => keys);
  // Each POST's signature is verified here on its own, apart from Fedify's inbox (which verifies it
  // too before any listener runs): the key must be the town's, and the signature good.
  const signatures = new Map<string, { keyId: string; signedWith: Received["signedWith"] }>();
  const record = async (_: unknown, activity: Activity) => {
    received.push({ activity, ...(signatures.get(activity.id?.href ?? "") ?? { keyId: "", signedWith: "rfc9421" as const }) });
  };
  federation.setInboxListeners("/users/{identifier}/inbox", "/inbox")
    .on(Accept, record).on(Reject, record).on(Create, record);
  const documentLoader = getDocumentLoader({ allowPrivateAddress: true });
  const app = new H3();
  app.all("/**", async (event) => {
    if (event.req.method === "POST") {
      posts.push(event.url.pathname + event.url.search);
      requests.push({ path: event.url.pathname + event.url.search, userAgent: event.req.headers.get("user-agent"), body: await event.req.clone().text() });
      if (gone.has(event.url.pathname)) return new Response("Gone", { status: 410 });
      const copy = event.req.clone();
      const signedWith = copy.headers.has("signature-input") ? "rfc9421" : "draft-cavage-http-signatures-12";
      const key = await verifyRequest(copy.clone(), { documentLoader, contextLoader: documentLoader, spec: signedWith });
      const { id } = (await copy.json()) as { id: string };
      signatures.set(id, { keyId: key?.id?.href ?? "unverified", signedWith });
    }
    return federation.fetch(event.req, { contextData: undefined });
  });
  const server = http.createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, federation, received, posts, requests, keys, gone,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Asks `probe` every 25 ms until it gives something, for up to `ms`. */
export async function until<T>(what: string, probe: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
