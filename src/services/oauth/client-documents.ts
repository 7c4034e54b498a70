import type { AdapterPayload } from "oidc-provider";
import { SourceError } from "../../integrations/http-json.ts";
import { clientPayload, upsertModel } from "../../store/oauth/models.ts";
import type { AppContext } from "../platform/context.ts";

// Client ID Metadata Documents: a client whose `client_id` is an https URL publishes its metadata
// (client_name, redirect_uris...) as JSON at that URL, so it needs no registration. The document is
// fetched with the feeds' fetcher (public addresses only, checked at connect; no redirect followed),
// kept ten minutes, and remembered afterwards for the desk's list of clients.

/** A document is asked again after this long (oidc-provider also keeps a client a short while). */
const FRESH_SECONDS = 600;
const MAX_BYTES = 5 * 1024;

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

/** The client a metadata document describes (fetched, or as fetched less than ten minutes ago), or undefined. */
export async function clientByMetadataDocument(ctx: AppContext, id: string): Promise<AdapterPayload | undefined> {
  if (!isMetadataDocumentId(ctx, id)) return undefined;
  const now = Math.floor(Date.now() / 1000);
  const kept = clientPayload(ctx.db, `document ${id}`);
  if (kept) {
    const { fetchedAt, client } = JSON.parse(kept) as { fetchedAt: number; client: AdapterPayload };
    if (now - fetchedAt < FRESH_SECONDS) return client;
  }
  let client: AdapterPayload;
  try {
    const got = await ctx.sources.feeds.fetch(id);
    if (got.status !== "ok") throw invalid(id, "was not sent");
    if (got.url !== id) throw invalid(id, "redirects elsewhere");
    if (Buffer.byteLength(got.body) > MAX_BYTES) throw invalid(id, `is larger than ${MAX_BYTES} bytes`);
    client = clientOf(id, JSON.parse(got.body));
  } catch (err) {
    const why = err instanceof SourceError || err instanceof SyntaxError ? `could not be read: ${err.message}` : (err as Error).message;
    ctx.log.info({ clientId: id, why }, "OAuth client metadata document refused");
    return undefined;
  }
  // Kept under its own key (model "Client", id "document URL"), which no client_id can equal.
  upsertModel(ctx.db, { model: "Client", id: `document ${id}`, payload: JSON.stringify({ fetchedAt: now, client }), grantId: null, uid: null, accountId: null, expiresAt: null });
  return client;
}

/** What the desk and the consent page call a client: its name from its metadata, else its id. */
export function storedClientName(ctx: AppContext, clientId: string): { name: string; redirectHosts: string[] } {
  const direct = clientPayload(ctx.db, clientId);
  const doc = clientPayload(ctx.db, `document ${clientId}`);
  const client = (direct ? JSON.parse(direct) : doc ? (JSON.parse(doc) as { client: unknown }).client : {}) as { client_name?: unknown; redirect_uris?: unknown };
  const hosts = Array.isArray(client.redirect_uris) ? [...new Set(client.redirect_uris.map((u) => URL.parse(String(u))?.host ?? String(u)))] : [];
  return { name: typeof client.client_name === "string" && client.client_name.trim() ? client.client_name.trim() : clientId, redirectHosts: hosts };
}
