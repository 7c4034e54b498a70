import { errors } from "oidc-provider";

// Which clients the authorization server takes, whether they register (POST /oauth/register) or
// name a metadata document (client-documents.ts): oidc-provider's `extraClientMetadata`, whose
// validator runs on every client's metadata before oidc-provider's own checks (its documented way to
// extend them).
// - Public clients only: `token_endpoint_auth_method` is `none` (clientAuthMethods refuses any other),
//   and no secret is kept: oidc-provider issues one to a registration that leaves the method out,
//   though the method it then gets is `none`.
// - A redirect in plain http goes to this machine only (RFC 8252's loopback redirect of native
//   clients, and local development); any other host needs https, or the code and the client's
//   state would cross the network in clear.

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function validator(_koa: unknown, key: string, value: unknown, metadata: Record<string, unknown>): void {
  if (key === "token_endpoint_auth_method") {
    if (value !== undefined && value !== "none") throw new errors.InvalidClientMetadata!("token_endpoint_auth_method must be none: this server takes public clients only (PKCE), and issues no client secret");
    delete metadata.client_secret;
    delete metadata.client_secret_expires_at;
  }
  if (key === "redirect_uris" && Array.isArray(value)) {
    for (const uri of value) {
      const url = URL.parse(String(uri));
      if (url?.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
        throw new errors.InvalidClientMetadata!(`redirect_uris may use plain http only to this machine (localhost, 127.0.0.1, [::1]), not ${url.host}: use https`);
      }
    }
  }
}

/** oidc-provider's `extraClientMetadata`: no new property, the checks above on two of its own. */
export const publicClientsOnly = { properties: ["token_endpoint_auth_method", "redirect_uris"], validator };
