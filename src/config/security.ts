/** Settings that decide who and what the public deployment lets in (docs/security.md). */
export interface SecurityConfig {
  /**
   * `LOCAL_CHECKOUT=on`: with an https BASE_URL, purchases may use the built-in local checkout, whose
   * Pay button charges nothing. Without it (and without STRIPE_SECRET_KEY) purchases are off there.
   * An http BASE_URL (development) uses the local checkout either way.
   */
  localCheckout: boolean;
  /**
   * `MCP_ALLOWED_ORIGINS`: comma-separated origins (`https://app.example`) whose browser pages may call
   * `/mcp`, besides the site's own. With an https BASE_URL no other Origin is served.
   */
  mcpAllowedOrigins: string[];
}

function origins(value: string | undefined): string[] {
  const out: string[] = [];
  for (const item of (value ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    const url = URL.parse(item);
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/$/, "")) {
      throw new Error(`MCP_ALLOWED_ORIGINS must list origins such as https://app.example (scheme, host and port only), got "${item}"`);
    }
    out.push(url.origin);
  }
  return out;
}

export function securityConfig(env: NodeJS.ProcessEnv): SecurityConfig {
  const local = (env.LOCAL_CHECKOUT ?? "").trim().toLowerCase();
  if (local && !["on", "off", "true", "false", "1", "0"].includes(local)) throw new Error(`LOCAL_CHECKOUT must be on or off, got "${env.LOCAL_CHECKOUT}"`);
  return { localCheckout: ["on", "true", "1"].includes(local), mcpAllowedOrigins: origins(env.MCP_ALLOWED_ORIGINS) };
}

/** Whether the public origin is https: a deployment, where development conveniences are off. */
export const isHttpsOrigin = (baseUrl: string): boolean => baseUrl.startsWith("https:");
