import type { H3 } from "h3";
import { OPERATOR_SCOPES, type OperatorScope } from "../../../src/contract/oauth.ts";
import { AppError } from "../../../src/core/errors.ts";
import { csrfToken } from "../../../src/services/commerce/operator-desk.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { connectedClients, revokeClient, type ConnectedClient } from "../../../src/services/oauth/grants.ts";
import { formatInstantUtc } from "../../../src/site/format.ts";
import { htmlPage } from "../../http/html-page.ts";
import { operatorDesk, see } from "../operator/requests.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/** The desk's list of AI clients that hold access to the operator's towns, each with a Revoke button. */
function clientsPage(clients: ConnectedClient[], csrf: string, notice?: string): string {
  const item = (c: ConnectedClient) => `<li data-testid="client"><strong>${e(c.name)}</strong>${c.redirectHosts.length ? ` (returns to ${e(c.redirectHosts.join(", "))})` : ""}, allowed ${e(formatInstantUtc(c.since))}:
${e(c.scopes.map((s) => OPERATOR_SCOPES[s as OperatorScope] ?? s).join("; "))}.
<form method="post" action="/operator/clients/${e(c.grantId)}/revoke" class="inline"><input type="hidden" name="csrf" value="${e(csrf)}"><button type="submit" class="secondary">Revoke</button></form></li>`;
  return `${notice ? `<p class="notice" role="status">${e(notice)}</p>` : ""}
<p>AI clients (Claude, Claude Code, the MCP Inspector...) you allowed to act for you through citydaily's MCP server. Revoking one stops it at once: its next call is refused, and it must ask you again.</p>
${clients.length ? `<ul>${clients.map(item).join("\n")}</ul>` : "<p>No AI client holds access to your towns.</p>"}
<p><a href="/operator">Back to your desk</a></p>`;
}

export function connectedClientRoutes(app: H3, ctx: AppContext): void {
  const desk = operatorDesk(ctx);
  app.get("/operator/clients", (event) => {
    const email = desk.operatorOf(event);
    if (!email) return see("/operator");
    const notice = event.url.searchParams.get("done") === "revoked" ? "Revoked: that client can no longer act for you." : undefined;
    return htmlPage(ctx, 200, "Connected AI clients", clientsPage(connectedClients(ctx, email), csrfToken(ctx, desk.session(event)!), notice));
  });

  app.post("/operator/clients/:grant/revoke", (event) => desk.signedInPost(event, (email) => {
    try {
      revokeClient(ctx, email, event.context.params!.grant);
    } catch (err) {
      if (!(err instanceof AppError && err.code === "not_found")) throw err;
    }
    return see("/operator/clients?done=revoked");
  }));
}
