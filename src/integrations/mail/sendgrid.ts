import crypto from "node:crypto";
import { classifyBounce, type FeedbackKind, type MailFeedback } from "../../core/mail/feedback.ts";
import { bracketed, fresh, obj, parseSignedJson, str, unauthorized, type FeedbackWebhook, type Obj } from "./feedback-webhook.ts";

export const SIGNATURE_HEADER = "x-twilio-email-event-webhook-signature";
export const TIMESTAMP_HEADER = "x-twilio-email-event-webhook-timestamp";

/**
 * SendGrid's signed Event Webhook (`POST /webhooks/mail/sendgrid`). SendGrid signs
 * `timestamp + raw body` with ECDSA P-256 / SHA-256; the verification key
 * (`SENDGRID_WEBHOOK_PUBLIC_KEY`) is shown base64 DER (SubjectPublicKeyInfo) in its settings.
 * Timestamps outside 5 minutes are refused, and a signature seen before is a replay.
 *
 * Events: `bounce` (its `type` is `bounce` or `blocked`), `dropped`, `deferred`, `spamreport`;
 * the others (processed, delivered, open, click...) are counted and ignored. SMTP-relayed mail
 * carries our Message-ID back in `smtp-id`.
 */
export function createSendgridWebhook(opts: { publicKey: string }): FeedbackWebhook {
  const key = sendgridPublicKey(opts.publicKey);
  return {
    provider: "sendgrid",
    async receive({ raw, headers, nowMs }) {
      const signature = headers.get(SIGNATURE_HEADER);
      const timestamp = headers.get(TIMESTAMP_HEADER);
      if (!signature || !timestamp) throw unauthorized("The request has no X-Twilio-Email-Event-Webhook-Signature and -Timestamp headers.");
      let ok = false;
      try {
        ok = crypto.verify("sha256", Buffer.from(timestamp + raw, "utf8"), key, Buffer.from(signature, "base64"));
      } catch {
        ok = false; // not a DER signature at all
      }
      if (!ok) throw unauthorized("The SendGrid signature does not match the body.");
      if (!fresh(Number(timestamp), nowMs)) throw unauthorized("The SendGrid signature is stale (its timestamp is more than 5 minutes away).");
      const body = parseSignedJson(raw, "SendGrid event");
      const list = Array.isArray(body) ? (body as unknown[]).map(obj) : [obj(body)];
      const events: MailFeedback[] = [];
      let ignored = 0;
      for (const e of list) {
        const kind = sendgridKind(e);
        if (!kind) {
          ignored++;
          continue;
        }
        const detail = [e.event, e.type, e.bounce_classification, e.status, e.reason].filter((v) => typeof v === "string" && v).join(" / ");
        events.push({
          kind, eventId: str(e.sg_event_id) ?? `${String(e.sg_message_id)}:${String(e.event)}:${String(e.email)}`,
          email: str(e.email), messageId: bracketed(e["smtp-id"]), detail: detail.slice(0, 1000),
        });
      }
      // The replay key is the signature as decoded, not as sent: base64 readers skip stray characters
      // (`!`, a leading `.`) and padding, and ECDSA accepts (r, n - s) as well as (r, s), so the raw
      // header could be re-spelled into a "new" signature that verifies alike.
      return { events, ignored, nonce: signatureKey(Buffer.from(signature, "base64")) };
    },
  };
}

/** P-256's group order: of the two valid signatures (r, s) and (r, n - s), the key takes the smaller s. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** The integers of a DER ECDSA signature (SEQUENCE of two INTEGERs), already verified well-formed. */
function derIntegers(der: Buffer): bigint[] {
  const out: bigint[] = [];
  let at = der[1] & 0x80 ? 2 + (der[1] & 0x7f) : 2; // past the SEQUENCE header
  while (at < der.length && out.length < 2) {
    const len = der[at + 1];
    out.push(BigInt(`0x${der.subarray(at + 2, at + 2 + len).toString("hex") || "0"}`));
    at += 2 + len;
  }
  return out;
}

/** One spelling per signature: r and the low s as hex. */
function signatureKey(der: Buffer): string {
  const [r, s] = derIntegers(der);
  const low = s > P256_ORDER / 2n ? P256_ORDER - s : s;
  return `${r.toString(16)}.${low.toString(16)}`;
}

/** The key as SendGrid shows it (base64 DER), or PEM. */
function sendgridPublicKey(text: string): crypto.KeyObject {
  const t = text.trim();
  try {
    return t.startsWith("-----BEGIN") ? crypto.createPublicKey(t) : crypto.createPublicKey({ key: Buffer.from(t, "base64"), format: "der", type: "spki" });
  } catch (err) {
    throw new Error(`SENDGRID_WEBHOOK_PUBLIC_KEY is not a public key (base64 DER or PEM): ${(err as Error).message}`);
  }
}

/**
 * SendGrid's bounce classifications (2023+): Invalid Address and Mailbox Unavailable are the
 * address; Reputation, Content and Frequency or Volume Too High are the sender; Technical and
 * Unclassified are neither for sure.
 */
const SENDER_CLASSES = new Set(["reputation", "content", "frequency or volume too high"]);
const SOFT_CLASSES = new Set(["technical", "unclassified"]);

function sendgridKind(e: Obj): FeedbackKind | undefined {
  const text = `${String(e.status ?? "")} ${String(e.reason ?? "")}`;
  const cls = String(e.bounce_classification ?? "").toLowerCase();
  switch (e.event) {
    case "spamreport":
      return "complaint";
    case "bounce":
      if (e.type === "blocked" || SENDER_CLASSES.has(cls)) return "policy";
      if (SOFT_CLASSES.has(cls)) return classifyBounce(false, text);
      return classifyBounce(true, text);
    case "dropped":
      // Dropped by SendGrid itself: its suppression lists say why.
      if (/^bounced address$/i.test(String(e.reason))) return "hard_bounce";
      if (/^spam reporting address$/i.test(String(e.reason))) return "complaint";
      return "soft_bounce";
    case "deferred":
      return classifyBounce(false, text);
    default:
      return undefined;
  }
}
