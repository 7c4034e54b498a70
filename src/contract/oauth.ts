import { z } from "zod";

/**
 * What an operator's AI client may be allowed to do (the authorization server's scopes, the MCP
 * endpoint's protected resource metadata, the consent page, each operator tool). Words an operator
 * reads on the consent page, not a developer's.
 */
export const OPERATOR_SCOPES = {
  "town:read": "read your town's audience, clicks and statement",
  "listings:decide": "see the listings waiting for your review, and approve or reject them",
  "notes:write": "read and write the note under the greeting of your town's next editions",
  "sources:manage": "list your town's sources, pause one, and restore one the town directory found",
} as const;

export type OperatorScope = keyof typeof OPERATOR_SCOPES;
export const OPERATOR_SCOPE_NAMES = Object.keys(OPERATOR_SCOPES) as OperatorScope[];

/** The operator's scopes named in a space-separated scope string (any other name left out). */
export const operatorScopesIn = (scope: string): OperatorScope[] =>
  scope.split(" ").filter((s): s is OperatorScope => (OPERATOR_SCOPE_NAMES as string[]).includes(s));

/** Access tokens last an hour; a client keeps working through its refresh token, which rotates at each use. */
export const ACCESS_TOKEN_SECONDS = 3600;
/** A refresh token unused for 30 days expires (the operator signs the client in again). */
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;

/** The consent page's form: Allow or Deny, with the page's CSRF token. */
export const ConsentForm = z.object({
  csrf: z.string().min(1),
  decision: z.enum(["allow", "deny"]),
});
