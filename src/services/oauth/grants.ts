import type { OperatorScope } from "../../contract/oauth.ts";
import { AppError } from "../../core/errors.ts";
import { grantsOfAccount } from "../../store/oauth/models.ts";
import type { AppContext } from "../platform/context.ts";
import { destroyGrant } from "./adapter.ts";
import { storedClientName } from "./client-documents.ts";
import { mcpResource, type OAuthServer } from "./provider.ts";

/** An AI client holding access to an operator's towns (one grant: what they allowed it, when). */
export interface ConnectedClient {
  grantId: string;
  clientId: string;
  name: string;
  redirectHosts: string[];
  scopes: string[];
  /** When the operator allowed it (ISO). */
  since: string;
}

/** The clients an operator allowed, newest first (a grant ends with its last refresh token). */
export function connectedClients(ctx: AppContext, email: string): ConnectedClient[] {
  return grantsOfAccount(ctx.db, email, Math.floor(Date.now() / 1000)).map((row) => {
    const grant = JSON.parse(row.payload) as { clientId: string; iat?: number; resources?: Record<string, string> };
    const { name, redirectHosts } = storedClientName(ctx, grant.clientId);
    const scopes = [...new Set(Object.values(grant.resources ?? {}).flatMap((s) => s.split(" ")).filter(Boolean))];
    return { grantId: row.id, clientId: grant.clientId, name, redirectHosts, scopes, since: new Date((grant.iat ?? 0) * 1000).toISOString() };
  });
}

/** Takes a client's access back: its grant and every token and code of it, at once. */
export function revokeClient(ctx: AppContext, email: string, grantId: string): ConnectedClient {
  const client = connectedClients(ctx, email).find((c) => c.grantId === grantId);
  if (!client) throw new AppError("not_found", "No such connected client on your desk.");
  destroyGrant(ctx, grantId, true);
  ctx.log.info({ grantId, clientId: client.clientId }, "operator revoked an AI client's access");
  return client;
}

/**
 * The operator's Allow on the consent page: the client's grant (the one the sign-in request names,
 * when it is this operator's, else a new one) now holds `scopes` on the MCP endpoint. Returns its id.
 */
export async function allowClient(ctx: AppContext, oauth: OAuthServer, request: { grantId?: string; clientId: string }, email: string, scopes: readonly OperatorScope[]): Promise<string> {
  const { Grant } = oauth.provider();
  const existing = request.grantId ? await Grant.find(request.grantId) : undefined;
  const grant = existing && existing.accountId === email ? existing : new Grant({ accountId: email, clientId: request.clientId });
  const scope = scopes.join(" ");
  grant.addOIDCScope(scope);
  grant.addResourceScope(mcpResource(ctx), scope);
  return grant.save();
}
