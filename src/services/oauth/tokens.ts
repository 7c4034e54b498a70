import { operatorScopesIn, type OperatorScope } from "../../contract/oauth.ts";
import { AppError } from "../../core/errors.ts";
import { operatorTowns } from "../commerce/operator-desk.ts";
import type { LeaseView } from "../../store/commerce/leases.ts";
import type { AppContext } from "../platform/context.ts";
import { mcpResource, type OAuthServer } from "./provider.ts";

/** The operator an MCP request acts for, as its access token says. */
export interface OperatorCaller {
  email: string;
  scopes: ReadonlySet<OperatorScope>;
  clientId: string;
  grantId: string;
}

export type TokenCheck = { ok: true; operator: OperatorCaller } | { ok: false; description: string };

/**
 * An access token as the MCP endpoint accepts it: issued here, not expired or revoked (its grant
 * still stands), and for this resource (audience `{BASE_URL}/mcp`), never a token meant for another.
 */
export async function checkAccessToken(ctx: AppContext, oauth: OAuthServer, value: string): Promise<TokenCheck> {
  const token = await oauth.provider().AccessToken.find(value).catch(() => undefined);
  if (!token || token.isExpired) return { ok: false, description: "The access token is unknown, expired or revoked." };
  const audiences = [token.aud].flat().filter(Boolean);
  if (audiences.length !== 1 || audiences[0] !== mcpResource(ctx)) return { ok: false, description: `The access token is not for ${mcpResource(ctx)}.` };
  if (!(await oauth.provider().Grant.find(token.grantId))) return { ok: false, description: "The access token's grant was revoked." };
  const scopes = new Set(operatorScopesIn(String(token.scope ?? "")));
  return { ok: true, operator: { email: token.accountId, scopes, clientId: token.clientId, grantId: token.grantId } };
}

/**
 * The town an operator tool acts on: the caller's, with a lease still running (the desk shows an
 * ended lease's statement; a client acts only while the lease runs).
 */
export function runningLease(ctx: AppContext, operator: OperatorCaller, slug: string): LeaseView {
  const lease = operatorTowns(ctx, operator.email).find((l) => l.slug === slug.trim().toLowerCase());
  if (!lease) throw new AppError("forbidden", `${slug} is not one of your towns: you can act only for the towns you lease (list_my_towns names them).`);
  if (lease.status !== "active") throw new AppError("forbidden", `Your lease of ${lease.town_name}, ${lease.state_name} has ended${lease.ended_at ? ` (${lease.ended_at.slice(0, 10)})` : ""}: nothing can be done for it any more.`);
  return lease;
}
