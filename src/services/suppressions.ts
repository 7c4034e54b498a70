import { recordMailEvent, suppressAddress, type SuppressionReason } from "../store/subscribers.ts";
import type { AppContext } from "./context.ts";

export interface MailNotification {
  type: "bounce" | "complaint";
  email: string;
  /** Bounces only: a hard (permanent) bounce suppresses; a soft one is only recorded. Default true. */
  permanent?: boolean;
  detail?: string;
}

/** Puts an address on the suppression list; its history is kept. Returns false if it already was. */
export function suppress(ctx: AppContext, email: string, reason: SuppressionReason, source: string, detail: string | null = null): boolean {
  const added = suppressAddress(ctx.db, email.trim().toLowerCase(), reason, source, detail, ctx.config.now().toISOString());
  ctx.log.info({ reason, source, added }, "address suppressed");
  return added;
}

/** A bounce or complaint reported by the mail provider: hard bounces and complaints suppress the address. */
export function handleMailNotification(ctx: AppContext, n: MailNotification): { suppressed: boolean } {
  const email = n.email.trim().toLowerCase();
  if (n.type === "bounce" && n.permanent === false) {
    recordMailEvent(ctx.db, { email, kind: "soft_bounce", source: "webhook", detail: n.detail ?? null, now: ctx.config.now().toISOString() });
    return { suppressed: false };
  }
  suppress(ctx, email, n.type === "complaint" ? "complained" : "bounced", "webhook", n.detail ?? null);
  return { suppressed: true };
}
