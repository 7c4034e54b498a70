import crypto from "node:crypto";
import { AppError } from "../../core/errors.ts";
import { classifyBounce, type MailFeedback } from "../../core/mail/feedback.ts";
import { bracketed, obj, parseSignedJson, str, unauthorized, type FeedbackWebhook, type Obj, type WebhookDelivery } from "./feedback-webhook.ts";

/**
 * Amazon SES bounce and complaint notifications, delivered by Amazon SNS to an HTTPS subscription
 * (`POST /webhooks/mail/ses`, topic `SES_SNS_TOPIC_ARN`).
 *
 * Every SNS message is verified as AWS documents it: the topic must be ours; the signing
 * certificate's URL must be `https://sns.<region>.amazonaws.com/SimpleNotificationService-*.pem`
 * in the topic's region (checked before anything is fetched, so a forged post cannot make us fetch
 * an address of its choosing); the certificate, fetched over HTTPS and kept, must be issued to
 * sns.amazonaws.com and current; the signature (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA)
 * must match the string to sign, whose fields differ between notifications and (un)subscription
 * confirmations. A subscription confirmation is confirmed by a GET on its SubscribeURL (held to
 * the same host rule). SNS messages older than an hour are refused; their MessageIds are kept for
 * two days, so a replay inside that hour is a duplicate that changes nothing.
 */
export interface SesWebhookOptions {
  /** `SES_SNS_TOPIC_ARN`: the only topic accepted. */
  topicArn: string;
  /**
   * GET over HTTPS, the body as text (certificates and SubscribeURL). Only ever called with an
   * address that passed the SNS host check; tests inject a stand-in here instead of loosening it.
   */
  fetchText?: (url: string) => Promise<string>;
}

/** How old an SNS message may be (its Timestamp is signed): SNS retries within minutes, not hours. */
export const SNS_MAX_AGE_MS = 3600_000;

const SNS_HOST = /^sns\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;
const CERT_PATH = /^\/SimpleNotificationService-[A-Za-z0-9]+\.pem$/;

/** The SNS host's region when `url` is an https address on `sns.<region>.amazonaws.com`, else undefined. */
export function snsRegionOf(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== "https:" || u.port !== "" || u.username !== "" || u.password !== "") return undefined;
  return SNS_HOST.exec(u.hostname)?.[1];
}

/** The string SNS signs: fixed fields in a fixed order, "Name\nvalue\n" each (Subject only when present). */
export function snsStringToSign(m: Obj): string {
  const fields = m.Type === "Notification"
    ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
    : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return fields.filter((f) => typeof m[f] === "string").map((f) => `${f}\n${m[f]}\n`).join("");
}

export async function httpsGetText(url: string): Promise<string> {
  const res = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  const text = await res.text();
  if (text.length > 64 * 1024) throw new Error(`GET ${url}: answer too large`);
  return text;
}

export function createSesWebhook(opts: SesWebhookOptions): FeedbackWebhook {
  const fetchText = opts.fetchText ?? httpsGetText;
  const topicRegion = opts.topicArn.split(":")[3];
  // Signing certificates by URL: SNS signs with a handful, for months.
  const certificates = new Map<string, Promise<crypto.X509Certificate>>();
  const certificate = (url: string) => {
    let c = certificates.get(url);
    if (!c) {
      c = fetchText(url).then((pem) => new crypto.X509Certificate(pem));
      c.catch(() => certificates.delete(url)); // a failed fetch is tried again next time
      certificates.set(url, c);
    }
    return c;
  };

  return {
    provider: "ses",
    async receive({ raw, nowMs }) {
      let m: Obj;
      try {
        m = obj(JSON.parse(raw));
      } catch {
        throw unauthorized("The body is not a signed SNS message (not JSON).");
      }
      const type = m.Type;
      if (type !== "Notification" && type !== "SubscriptionConfirmation" && type !== "UnsubscribeConfirmation") throw unauthorized("The body is not a signed SNS message (no known Type).");
      if (typeof m.Signature !== "string" || typeof m.SigningCertURL !== "string" || typeof m.MessageId !== "string" || typeof m.Timestamp !== "string") {
        throw unauthorized("The SNS message is not signed (Signature, SigningCertURL, MessageId or Timestamp missing).");
      }
      if (m.TopicArn !== opts.topicArn) throw new AppError("forbidden", `SNS topic ${String(m.TopicArn)} is not the one configured (SES_SNS_TOPIC_ARN).`);
      const algorithm = m.SignatureVersion === "1" ? "sha1" : m.SignatureVersion === "2" ? "sha256" : undefined;
      if (!algorithm) throw unauthorized(`Unknown SNS SignatureVersion ${String(m.SignatureVersion)}.`);
      if (snsRegionOf(m.SigningCertURL) !== topicRegion || !/^[^?#]*$/.test(m.SigningCertURL) || !CERT_PATH.test(new URL(m.SigningCertURL).pathname)) {
        throw unauthorized("The SNS SigningCertURL is not an Amazon SNS certificate address in the topic's region.");
      }
      let cert: crypto.X509Certificate;
      try {
        cert = await certificate(m.SigningCertURL);
      } catch (err) {
        throw new AppError("upstream_error", `The SNS signing certificate could not be fetched: ${(err as Error).message}`);
      }
      const validNow = Date.parse(cert.validFrom) <= nowMs && nowMs <= Date.parse(cert.validTo);
      if (!cert.checkHost("sns.amazonaws.com") || !validNow) throw unauthorized("The SNS signing certificate is not a current sns.amazonaws.com certificate.");
      const ok = crypto.verify(algorithm, Buffer.from(snsStringToSign(m), "utf8"), cert.publicKey, Buffer.from(m.Signature, "base64"));
      if (!ok) throw unauthorized("The SNS message signature does not match.");
      const sentAt = Date.parse(m.Timestamp);
      if (!(Math.abs(nowMs - sentAt) <= SNS_MAX_AGE_MS)) throw unauthorized("The SNS message is stale (its Timestamp is over an hour away).");

      if (type === "SubscriptionConfirmation") {
        const url = str(m.SubscribeURL);
        if (!url || snsRegionOf(url) !== topicRegion) throw unauthorized("The SubscribeURL is not an Amazon SNS address in the topic's region.");
        return { events: [], ignored: 0, confirm: async () => void (await fetchText(url)) };
      }
      if (type === "UnsubscribeConfirmation") return { events: [], ignored: 1 };
      return sesEvents(m.MessageId, parseSignedJson(String(m.Message ?? ""), "SNS Message"));
    },
  };
}

/** SES's notification (or event-publishing record) as bounce/complaint feedback, one per recipient. */
export function sesEvents(snsMessageId: string, message: unknown): WebhookDelivery {
  const n = obj(message);
  const type = n.notificationType ?? n.eventType;
  const mail = obj(n.mail);
  const headers = Array.isArray(mail.headers) ? (mail.headers as Obj[]) : [];
  const messageId = bracketed(obj(mail.commonHeaders).messageId ?? headers.find((h) => String(h.name).toLowerCase() === "message-id")?.value);
  const events: MailFeedback[] = [];
  if (type === "Bounce") {
    const b = obj(n.bounce);
    const permanent = b.bounceType === "Permanent";
    for (const r of Array.isArray(b.bouncedRecipients) ? (b.bouncedRecipients as Obj[]) : []) {
      const diagnostic = str(r.diagnosticCode) ?? "";
      const detail = `${String(b.bounceType)}/${String(b.bounceSubType)}${r.status ? ` ${String(r.status)}` : ""}${diagnostic ? `: ${diagnostic}` : ""}`;
      events.push({ kind: classifyBounce(permanent, diagnostic || (b.bounceSubType === "ContentRejected" ? "content rejected as spam" : "")), eventId: `${snsMessageId}:${String(r.emailAddress)}`, email: str(r.emailAddress), messageId, detail: detail.slice(0, 1000) });
    }
  } else if (type === "Complaint") {
    const c = obj(n.complaint);
    // "not-spam" is a recipient taking a message back out of spam: not a complaint.
    if (c.complaintFeedbackType === "not-spam") return { events: [], ignored: 1 };
    for (const r of Array.isArray(c.complainedRecipients) ? (c.complainedRecipients as Obj[]) : []) {
      const detail = `complaint${c.complaintFeedbackType ? ` (${String(c.complaintFeedbackType)})` : ""}${c.userAgent ? ` via ${String(c.userAgent)}` : ""}`;
      events.push({ kind: "complaint", eventId: `${snsMessageId}:${String(r.emailAddress)}`, email: str(r.emailAddress), messageId, detail });
    }
  } else {
    return { events: [], ignored: 1 }; // Delivery, Send, Open...: nothing to do
  }
  return { events, ignored: 0 };
}
