import crypto from "node:crypto";
import type { H3Event } from "h3";
import { AppError } from "../../src/core/errors.ts";
import type { AppContext } from "../../src/services/platform/context.ts";

/**
 * Staff endpoints (outside the public API) take `Authorization: Bearer ADMIN_TOKEN`: missing 401
 * `unauthorized`, wrong 403 `forbidden`, no token configured 503 `service_misconfigured`.
 */
export function requireAdmin(ctx: AppContext, event: H3Event): void {
  const expected = ctx.config.adminToken;
  if (!expected) throw new AppError("service_misconfigured", "ADMIN_TOKEN is not configured on this server.");
  const header = event.req.headers.get("authorization");
  const m = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!m) throw new AppError("unauthorized", "This endpoint needs an Authorization: Bearer token.", { headers: { "WWW-Authenticate": 'Bearer realm="citydaily-admin"' } });
  // Compared as digests so neither the length nor the content leaks through timing.
  const digest = (s: string) => crypto.createHash("sha256").update(s).digest();
  if (!crypto.timingSafeEqual(digest(m[1]), digest(expected))) throw new AppError("forbidden", "This token may not use this endpoint.");
}
