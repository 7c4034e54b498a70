import crypto from "node:crypto";
import { classifyBounce, type FeedbackKind } from "../../core/mail/feedback.ts";
import { bracketed, fresh, obj, parseSignedJson, safeEqual, str, unauthorized, type FeedbackWebhook, type Obj } from "./feedback-webhook.ts";

/**
 * Mailgun's webhooks (`POST /webhooks/mail/mailgun`, JSON). The signature travels in the body:
 * `signature: {timestamp, token, signature}`, the hex HMAC-SHA256 of `timestamp + token` with the
 * webhook signing key (`MAILGUN_WEBHOOK_SIGNING_KEY`). As Mailgun advises, a token is used once
 * (kept two days) and timestamps outside 5 minutes are refused.
 *
 * Events: `failed` (severity `permanent` or `temporary`, with `delivery-status`) and `complained`;
 * the others are counted and ignored. Mailgun echoes our Message-ID (without brackets) in
 * `message.headers.message-id`.
 */
export function createMailgunWebhook(opts: { signingKey: string }): FeedbackWebhook {
  return {
    provider: "mailgun",
    async receive({ raw, nowMs }) {
      let body: Obj;
      try {
        body = obj(JSON.parse(raw));
      } catch {
        throw unauthorized("The body is not a signed Mailgun webhook (not JSON).");
      }
      const sig = obj(body.signature);
      const timestamp = str(sig.timestamp) ?? (typeof sig.timestamp === "number" ? String(sig.timestamp) : null);
      const token = str(sig.token);
      const signature = str(sig.signature);
      if (!timestamp || !token || !signature) throw unauthorized("The Mailgun webhook is not signed (signature.timestamp, token and signature).");
      const expected = crypto.createHmac("sha256", opts.signingKey).update(timestamp + token).digest("hex");
      if (!safeEqual(expected, signature.toLowerCase())) throw unauthorized("The Mailgun signature does not match.");
      if (!fresh(Number(timestamp), nowMs)) throw unauthorized("The Mailgun signature is stale (its timestamp is more than 5 minutes away).");

      const e = obj(body["event-data"]);
      const kind = mailgunKind(e);
      if (!kind) return { events: [], ignored: 1, nonce: token };
      const status = obj(e["delivery-status"]);
      const detail = [e.event, e.severity, e.reason, status.code, status["enhanced-code"], status.message, status.description]
        .filter((v) => (typeof v === "string" && v) || typeof v === "number").join(" / ");
      return {
        nonce: token,
        ignored: 0,
        events: [{
          kind, eventId: str(e.id) ?? token, email: str(e.recipient),
          messageId: bracketed(obj(obj(e.message).headers)["message-id"]), detail: detail.slice(0, 1000),
        }],
      };
    },
  };
}

function mailgunKind(e: Obj): FeedbackKind | undefined {
  if (e.event === "complained") return "complaint";
  if (e.event !== "failed") return undefined;
  const status = obj(e["delivery-status"]);
  const text = [status.code, status["enhanced-code"], status.message, status.description, e.reason === "generic" ? "" : e.reason].filter(Boolean).join(" ");
  return classifyBounce(e.severity === "permanent", text);
}
