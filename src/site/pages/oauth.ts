/**
 * The pages of an operator signing an AI client in (api/routes/oauth/, src/pages/on-request/oauth/):
 * the sign-in on the way to consent, the consent itself, the desk's list of connected clients, and
 * the authorization server's errors.
 */
export type ConnectView =
  /** Not signed in: the address to email a link to, which brings the browser back to the consent. */
  | { state: "sign-in"; action: string; csrf: string; email: string; error?: string; minutes: number }
  | { state: "sent"; email: string }
  /** The interaction is over or belongs to another browser (410). */
  | { state: "expired" };

export interface ConsentView {
  /** The client's name as shown (tidied and cut short: src/core/oauth/client-name.ts). */
  client: string;
  email: string;
  /** Where the browser goes back after the answer (a host, or a scheme for a native app). */
  returnsTo: string;
  towns: Array<{ town: string; state: string }>;
  scopes: Array<{ scope: string; text: string }>;
  action: string;
  csrf: string;
}

export interface ClientsView {
  clients: Array<{ grantId: string; name: string; redirectHosts: string[]; since: string; scopes: string }>;
  csrf: string;
  notice?: string;
}

/** An error of the authorization server shown to a person (oidc-provider's renderError). */
export interface OAuthErrorView {
  title: string;
  detail: string;
}

declare module "./on-request.ts" {
  interface OnRequestViews {
    "oauth/connect": ConnectView;
    "oauth/consent": ConsentView;
    "oauth/clients": ClientsView;
    "oauth/error": OAuthErrorView;
  }
}
