import { classifyBounce, type FeedbackKind } from "../../core/mail/feedback.ts";
import { obj, parseSignedJson, safeEqual, str, unauthorized, type FeedbackWebhook } from "./feedback-webhook.ts";

/**
 * Postmark's Bounce and Spam Complaint webhooks (`POST /webhooks/mail/postmark`). Postmark does not
 * sign its posts: the webhook URL carries HTTP basic auth credentials
 * (`https://USER:PASSWORD@host/webhooks/mail/postmark`, `POSTMARK_WEBHOOK_USER`/`_PASSWORD`), which
 * is only safe over HTTPS. Each record's `ID` is kept, so a replayed post changes nothing.
 */
export function createPostmarkWebhook(opts: { user: string; password: string }): FeedbackWebhook {
  const challenge = { "WWW-Authenticate": 'Basic realm="citydaily-postmark"' };
  return {
    provider: "postmark",
    async receive({ raw, headers }) {
      const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(headers.get("authorization") ?? "");
      if (!m) throw unauthorized("The Postmark webhook needs basic auth credentials in its URL.", challenge);
      const decoded = Buffer.from(m[1], "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      // Both compared, whatever the first gives, so timing says nothing about which was wrong.
      const userOk = safeEqual(decoded.slice(0, Math.max(colon, 0)), opts.user);
      const passwordOk = safeEqual(colon < 0 ? "" : decoded.slice(colon + 1), opts.password);
      if (colon < 0 || !userOk || !passwordOk) throw unauthorized("The Postmark webhook credentials are wrong.", challenge);

      const r = obj(parseSignedJson(raw, "Postmark webhook"));
      const kind = r.RecordType === "SpamComplaint" ? "complaint" : r.RecordType === "Bounce" ? postmarkKind(String(r.Type), `${String(r.Description ?? "")} ${String(r.Details ?? "")}`) : undefined;
      if (!kind) return { events: [], ignored: 1 };
      const detail = [r.Type, r.Description, r.Details].filter((v) => typeof v === "string" && v).join(": ");
      return {
        ignored: 0,
        // Postmark's own MessageID is its id, not ours; the address is what maps back to the reader.
        events: [{ kind, eventId: `${String(r.RecordType)}:${String(r.ID)}`, email: str(r.Email), messageId: null, detail: detail.slice(0, 1000) }],
      };
    },
  };
}

/**
 * Postmark's bounce types (its TypeCode table). Hard: the address; soft: a mailbox or DNS trouble
 * that may pass; policy: Postmark or the receiver refusing the sender (Blocked, DMARCPolicy, spam
 * and virus filters). The rest (auto-replies, address changes, subscribe/unsubscribe requests,
 * errors of our own) say nothing about whether the reader can be mailed.
 */
function postmarkKind(type: string, text: string): FeedbackKind | undefined {
  switch (type) {
    case "HardBounce":
    case "BadEmailAddress":
    case "ManuallyDeactivated":
      return classifyBounce(true, text);
    case "SoftBounce":
    case "Transient":
    case "DnsError":
    case "Unknown":
      return classifyBounce(false, text);
    case "Blocked":
    case "DMARCPolicy":
    case "SpamNotification":
    case "VirusNotification":
    case "ChallengeVerification":
      return "policy";
    case "SpamComplaint":
      return "complaint";
    default:
      return undefined;
  }
}
