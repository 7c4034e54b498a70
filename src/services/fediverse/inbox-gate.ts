import { verifyRequestDetailed, type Federation, type KvStore } from "@fedify/fedify";
import { CryptographicKey } from "@fedify/fedify/vocab";
import type { ProblemCode } from "../../contract/problems.ts";
import { urlHost } from "../../core/fediverse/hosts.ts";
import { coveredComponents, MAX_ACTIVITY_DEPTH, mayBeFollow, nestsDeeperThan } from "../../core/fediverse/incoming.ts";
import { RateLimiter } from "../../lib/rate-limiter.ts";
import type { AppContext } from "../platform/context.ts";
import { sharedKeyCache } from "./key-cache.ts";

/** Why an activity was refused at the inbox: a problem code of the catalogue and what to say. */
export interface Refusal {
  code: ProblemCode;
  detail: string;
  headers?: Record<string, string>;
}

export interface InboxGate {
  /** Checks an activity POSTed to an inbox (its body already read within the size limit); undefined: hand it to Fedify. */
  check(request: Request, body: string): Promise<Refusal | undefined>;
}

/**
 * Follows a remote server may send in a burst, and a day's refill: then one every 10 s. A big
 * server's users following towns after a post about them stay well under; a server minting actors
 * to fill the followers table does not. Per actor: 20, then one every 30 s.
 */
const FOLLOWS_PER_SERVER = { burst: 60, windowSeconds: 600 };
const FOLLOWS_PER_ACTOR = { burst: 20, windowSeconds: 600 };

/**
 * What an activity passes before Fedify's inbox sees it, cheapest first, so nothing of it is read as
 * JSON-LD (recursive, and work for anyone who can send a request) before it is known to be signed:
 *
 * 1. JSON nested at most MAX_ACTIVITY_DEPTH deep, and parseable: else 400 `invalid_json`;
 * 2. a valid HTTP signature, draft-cavage or RFC 9421, verified by Fedify's own `verifyRequestDetailed`
 *    (the key read from and kept in the entries Fedify's inbox uses): else 401. For RFC 9421 the
 *    signature must cover `content-digest` (draft-cavage: Fedify requires `digest` itself), so it binds
 *    the body, which Fedify checks only when it is covered;
 * 3. a Follow (or what may be one) within the signing server's and actor's allowance: else 429 with
 *    Retry-After. 429 rather than 202-and-ignore: Mastodon and Misskey deliver a refused activity
 *    again later, so a real Follow is late, never lost, and a flood costs one signature check each.
 *
 * Fedify then checks the signature again (the key from the cache) and that its key is the actor's.
 * The limiters are this app's (one per `createInboxGate`), as the write limiters are.
 */
export function createInboxGate(ctx: AppContext, federation: Federation<AppContext>, kv: KvStore): InboxGate {
  const keyCache = sharedKeyCache(kv);
  const perServer = new RateLimiter(FOLLOWS_PER_SERVER.burst, FOLLOWS_PER_SERVER.windowSeconds);
  const perActor = new RateLimiter(FOLLOWS_PER_ACTOR.burst, FOLLOWS_PER_ACTOR.windowSeconds);

  return {
    async check(request, body) {
      if (nestsDeeperThan(body, MAX_ACTIVITY_DEPTH)) return { code: "invalid_json", detail: `An activity nests arrays and objects at most ${MAX_ACTIVITY_DEPTH} deep.` };
      let activity: unknown;
      try {
        activity = JSON.parse(body);
      } catch (err) {
        return { code: "invalid_json", detail: `The activity is not valid JSON: ${(err as Error).message}` };
      }
      if (typeof activity !== "object" || activity === null || Array.isArray(activity)) return { code: "invalid_json", detail: "An activity is a JSON object." };

      const c = federation.createContext(request, ctx);
      const verified = await verifyRequestDetailed(request, { documentLoader: c.documentLoader, contextLoader: c.contextLoader, keyCache });
      if (!verified.verified) {
        return { code: "unauthorized", detail: `The request's HTTP signature does not verify (${verified.reason.type}): sign it (draft-cavage or RFC 9421) with the actor's key, within an hour of its Date.` };
      }
      const signatureInput = request.headers.get("signature-input");
      if (signatureInput !== null && !coveredComponents(signatureInput, verified.signatureLabel ?? "").includes("content-digest")) {
        return { code: "unauthorized", detail: "The RFC 9421 signature does not cover content-digest, so it does not bind the body: cover it (and send Content-Digest)." };
      }

      if (mayBeFollow(activity)) {
        const key = verified.key;
        const owner = (key instanceof CryptographicKey ? key.ownerId : (key as { controllerId?: URL | null }).controllerId) ?? key.id;
        if (owner) {
          for (const [limiter, who, what] of [[perServer, urlHost(owner), "server"], [perActor, owner.href, "actor"]] as const) {
            const verdict = limiter.take(who);
            if (!verdict.ok) {
              const retry = String(verdict.retryAfterSeconds);
              return { code: "rate_limited", detail: `Too many Follows from this ${what}; retry in ${retry} s.`, headers: { "Retry-After": retry } };
            }
          }
        }
      }
      return undefined;
    },
  };
}
