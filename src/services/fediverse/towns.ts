import { exportJwk, generateCryptoKeyPair, importJwk } from "@fedify/fedify";
import { latestEditionDate } from "../../store/morning/editions.ts";
import { actorKeys, insertActorKeys, type StoredKeys } from "../../store/fediverse/keys.ts";
import { findPlaceBySlug } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";

/** A town that has an actor: one with at least one edition (a newsletter). */
export interface ActorTown {
  geoid: string;
  slug: string;
  name: string;
  state: string;
}

export function actorTown(ctx: AppContext, slug: string): ActorTown | undefined {
  const place = findPlaceBySlug(ctx.db, slug);
  if (!place || !latestEditionDate(ctx.db, place.geoid)) return undefined;
  return { geoid: place.geoid, slug: place.slug, name: place.name, state: place.state_name };
}

/**
 * RSA keys of 2048 bits, as Mastodon's own: Fedify's default of 4096 took about 2 s of CPU to make on
 * the bench machine and 4 times the CPU of each delivery to sign (docs/fediverse.md).
 */
const RSA_KEY = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" } as const;

async function newKeys(): Promise<StoredKeys> {
  const rsa = await crypto.subtle.generateKey(RSA_KEY, true, ["sign", "verify"]);
  const ed = await generateCryptoKeyPair("Ed25519");
  const jwk = async (key: CryptoKey) => JSON.stringify(await exportJwk(key));
  return { rsaPrivate: await jwk(rsa.privateKey), rsaPublic: await jwk(rsa.publicKey), edPrivate: await jwk(ed.privateKey), edPublic: await jwk(ed.publicKey) };
}

/**
 * A town actor's two key pairs, RSA first (HTTP signatures: Mastodon verifies these) then Ed25519
 * (object integrity proofs), made and stored on first use. Two first uses at once both make keys;
 * the first stored wins and both read it back, so the actor never shows two different keys.
 */
export async function townKeyPairs(ctx: AppContext, geoid: string): Promise<CryptoKeyPair[]> {
  let stored = actorKeys(ctx.db, geoid);
  if (!stored) {
    insertActorKeys(ctx.db, geoid, await newKeys(), new Date().toISOString());
    stored = actorKeys(ctx.db, geoid)!;
  }
  const pair = async (priv: string, pub: string): Promise<CryptoKeyPair> => ({
    privateKey: await importJwk(JSON.parse(priv), "private"),
    publicKey: await importJwk(JSON.parse(pub), "public"),
  });
  return [await pair(stored.rsaPrivate, stored.rsaPublic), await pair(stored.edPrivate, stored.edPublic)];
}
