import type { IncomingMessage } from "node:http";
import Provider, { errors, type AdapterPayload } from "oidc-provider";
import { clientDisplayName } from "../../core/oauth/client-name.ts";
import { SourceError } from "../../integrations/http-json.ts";
import { createFeedFetcher, type FeedFetcher } from "../../integrations/feeds/fetch.ts";
import { clientHasGrant, clientPayload, keepClientAfterGrants, pruneExpired, upsertModel } from "../../store/oauth/models.ts";
import type { AppContext } from "../platform/context.ts";
import { CLIENT_AFTER_GRANTS_SECONDS, UNUSED_CLIENT_SECONDS } from "./retention.ts";

// Client ID Metadata Documents: a client whose `client_id` is an https URL publishes its metadata
// (client_name, redirect_uris...) as JSON at that URL, so it needs no registration. Anyone can name
// any URL, and every authorization, token or revocation request names one, so a look-up is bounded:
// - fetched with the feeds' fetcher (public addresses only, checked at connect), no redirect
//   followed, the read stopped past 5 KB, within 5 seconds;
// - at most 10 fetches per client address, then one every 6 minutes (`oauthClientDocument` in
//   src/services/platform/limits.ts); a document fetched less than ten minutes ago is not fetched again;
// - kept (for the desk's list of clients, and as that ten-minute cache) a day after it was fetched,
//   or, once it led to a grant, as long as a registration would be (retention.ts).

/** A document is asked again after this long (oidc-provider also keeps a client a short while). */
const FRESH_SECONDS = 600;
const MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 5000;

/** The fetcher of metadata documents: the feeds' rules, with the documents' own size, time and no redirect. */
export type DocumentFetcher = FeedFetcher;

export function createDocumentFetcher(ctx: AppContext): DocumentFetcher {
  const s = ctx.config.sources;
  return createFeedFetcher({
    allowPrivate: s.feedsAllowPrivate, allowAddresses: s.feedsAllowAddresses, maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS,
    maxRedirects: 0, userAgent: `citydaily OAuth client metadata (${ctx.config.baseUrl})`,
  });
}

// The client address of the request oidc-provider is answering, set by the route before it hands
// the request over (api/routes/oauth/routes.ts) and read back here through oidc-provider's own
// request context (Provider.ctx, an AsyncLocalStorage).
const CLIENT_ADDRESS = Symbol("citydaily.oauth.clientAddress");
type Marked = IncomingMessage & { [CLIENT_ADDRESS]?: string };

/** Records the client address of a request oidc-provider is about to answer. */
export function markClientAddress(req: IncomingMessage, address: string): void {
  (req as Marked)[CLIENT_ADDRESS] = address;
}

/** The client address of the request oidc-provider is answering, if any (a page of ours may ask without one). */
function requestClientAddress(): string | undefined {
  return (Provider.ctx?.req as Marked | undefined)?.[CLIENT_ADDRESS];
}

/**
 * Whether an id may name a metadata document: an https URL with a path, no credentials, query or
 * fragment. Plain http only where the feeds may reach private addresses (tests and local use).
 */
export function isMetadataDocumentId(ctx: AppContext, id: string): boolean {
  const url = URL.parse(id);
  if (!url || url.username || url.password || url.hash || url.search || url.pathname === "/" || url.href !== id) return false;
  if (url.protocol === "https:") return true;
  const local = ctx.config.sources.feedsAllowPrivate || ctx.config.sources.feedsAllowAddresses.length > 0;
  return url.protocol === "http:" && local;
}

const invalid = (id: string, why: string) => new Error(`the client metadata document at ${id} ${why}`);

/** The document's metadata as oidc-provider takes a client: public (PKCE, no secret), code flow only. */
function clientOf(id: string, doc: unknown): AdapterPayload {
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw invalid(id, "is not a JSON object");
  const m = doc as Record<string, unknown>;
  if (m.client_id !== id) throw invalid(id, "names another client_id");
  if ("client_secret" in m || "client_secret_expires_at" in m) throw invalid(id, "carries a client secret");
  if (m.token_endpoint_auth_method !== undefined && m.token_endpoint_auth_method !== "none") throw invalid(id, "asks for a client secret method");
  if (!Array.isArray(m.redirect_uris) || !m.redirect_uris.length || !m.redirect_uris.every((u) => typeof u === "string")) throw invalid(id, "has no redirect_uris");
  const keep = ["client_id", "client_name", "client_uri", "logo_uri", "redirect_uris", "scope", "contacts", "tos_uri", "policy_uri", "software_id", "software_version"];
  const picked = Object.fromEntries(keep.filter((k) => m[k] !== undefined).map((k) => [k, m[k]]));
  return { ...picked, token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] };
}

/**
 * Takes one look-up from the requesting address's allowance, or refuses the request as the other
 * limits of the authorization server do: 429 `slow_down` with Retry-After (an OAuth error, which
 * oidc-provider renders as JSON, or as its error page for a browser).
 */
function takeLookUp(ctx: AppContext): void {
  const address = requestClientAddress();
  if (address === undefined) return;
  const verdict = ctx.limits.oauthClientDocument.take(address);
  if (verdict.ok) return;
  const retry = String(verdict.retryAfterSeconds);
  Provider.ctx?.set("Retry-After", retry);
  Provider.ctx?.set("Cache-Control", "no-store");
  const refused = new errors.CustomOIDCProviderError("slow_down", `too many client metadata document look-ups from this address; retry in ${retry} s`);
  Object.assign(refused, { status: 429, statusCode: 429, allow_redirect: false });
  throw refused;
}

/** Reads a document over the network: the client it describes, or why it is refused. */
async function fetchDocument(fetcher: DocumentFetcher, id: string): Promise<AdapterPayload> {
  try {
    const got = await fetcher.fetch(id);
    if (got.status !== "ok") throw invalid(id, "was not sent");
    return clientOf(id, JSON.parse(got.body));
  } catch (err) {
    const why = err instanceof SourceError || err instanceof SyntaxError ? `could not be read: ${err.message}` : (err as Error).message;
    throw new Error(why, { cause: err });
  }
}

/** The client a metadata document describes (fetched, or as fetched less than ten minutes ago), or undefined. */
export async function clientByMetadataDocument(ctx: AppContext, fetcher: DocumentFetcher, id: string): Promise<AdapterPayload | undefined> {
  if (!isMetadataDocumentId(ctx, id)) return undefined;
  const now = Math.floor(Date.now() / 1000);
  const key = `document ${id}`;
  const kept = clientPayload(ctx.db, key);
  if (kept) {
    const { fetchedAt, client } = JSON.parse(kept) as { fetchedAt: number; client: AdapterPayload };
    if (now - fetchedAt < FRESH_SECONDS) return client;
  }
  takeLookUp(ctx);
  let client: AdapterPayload;
  try {
    client = await fetchDocument(fetcher, id);
  } catch (err) {
    ctx.log.info({ clientId: id, why: (err as Error).message }, "OAuth client metadata document refused");
    return undefined;
  }
  // Kept under its own key (model "Client", id "document URL"), which no client_id can equal; a day
  // unless it led to a grant. Expired rows go first, so the table holds a day's documents at most.
  ctx.db.transaction(() => {
    pruneExpired(ctx.db, now);
    upsertModel(ctx.db, { model: "Client", id: key, payload: JSON.stringify({ fetchedAt: now, client }), grantId: null, uid: null, accountId: null, expiresAt: now + UNUSED_CLIENT_SECONDS });
    if (clientHasGrant(ctx.db, id)) keepClientAfterGrants(ctx.db, id, now, CLIENT_AFTER_GRANTS_SECONDS);
  }).immediate();
  return client;
}

/** What the desk and the consent page call a client: its name from its metadata (clientDisplayName), else its id. */
export function storedClientName(ctx: AppContext, clientId: string): { name: string; redirectHosts: string[] } {
  const direct = clientPayload(ctx.db, clientId);
  const doc = clientPayload(ctx.db, `document ${clientId}`);
  const client = (direct ? JSON.parse(direct) : doc ? (JSON.parse(doc) as { client: unknown }).client : {}) as { client_name?: unknown; redirect_uris?: unknown };
  const hosts = Array.isArray(client.redirect_uris) ? [...new Set(client.redirect_uris.map((u) => URL.parse(String(u))?.host ?? String(u)))] : [];
  return { name: clientDisplayName(client.client_name, clientId), redirectHosts: hosts };
}
