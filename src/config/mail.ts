import fs from "node:fs";
import { int, positiveInt } from "./parse.ts";

/** Email settings. The From address defaults to `news@` the BASE_URL host (see `mailFrom`). */
export interface MailConfig {
  /** `MAIL_FROM`, e.g. `citydaily <news@example.com>`. */
  from?: string;
  /** Shown in every email footer (`POSTAL_ADDRESS`); anti-spam law wants a real one. */
  postalAddress: string;
  /** `skipFields` (`DKIM_SKIP_FIELDS`): headers left out of the signature, for relays that rewrite them (Amazon SES: `Message-ID:Date`). */
  dkim?: { domainName: string; keySelector: string; privateKey: string; skipFields?: string };
  /** `UNSUBSCRIBE_SECRET`; unset: a random secret generated once and kept in the database. */
  unsubscribeSecret?: string;
  /** `MAIL_SENDER=off` stops the server's background sender (tests drive it by hand). */
  senderEnabled: boolean;
  /** `MAIL_SEND_INTERVAL_MS`: how often the server's sender looks for due mail. */
  sendIntervalMs: number;
  /** `MAIL_BATCH_SIZE`: outbox rows claimed at once; `MAIL_CONCURRENCY`: SMTP connections (twice as many messages in flight). */
  batchSize: number;
  concurrency: number;
  /** `MAIL_LEASE_SECONDS`: how long a claimed row stays with its sender before another may take it. */
  leaseSeconds: number;
  /** `MAIL_RETRY_BASE_SECONDS` doubled on each temporary failure, up to `MAIL_MAX_ATTEMPTS`. */
  retryBaseSeconds: number;
  maxAttempts: number;
  /** `SUBSCRIBE_RATE_LIMIT`: subscribe requests per client address per `SUBSCRIBE_RATE_WINDOW_SECONDS`. */
  subscribeRateLimit: number;
  subscribeRateWindowSeconds: number;
  /** `TRUST_PROXY_HOPS`: proxies in front of the server whose X-Forwarded-For entries are trusted (0: use the socket address). */
  trustProxyHops: number;
  /** The mail providers' bounce/complaint webhooks (docs/mail.md); a provider left unset answers 503. */
  webhooks: MailWebhookSecrets;
}

export interface MailWebhookSecrets {
  /** `SES_SNS_TOPIC_ARN`: the SNS topic SES publishes bounces and complaints to (no other is accepted). */
  sesTopicArn?: string;
  /** `SENDGRID_WEBHOOK_PUBLIC_KEY`: the Signed Event Webhook's verification key (base64 DER, as SendGrid shows it). */
  sendgridPublicKey?: string;
  /** `POSTMARK_WEBHOOK_USER`, `POSTMARK_WEBHOOK_PASSWORD`: the basic auth credentials put in Postmark's webhook URL. */
  postmarkUser?: string;
  postmarkPassword?: string;
  /** `MAILGUN_WEBHOOK_SIGNING_KEY`: Mailgun's HTTP webhook signing key. */
  mailgunSigningKey?: string;
}

export function mailConfig(env: NodeJS.ProcessEnv): MailConfig {
  const positive = (name: string, fallback: number) => positiveInt(env, name, fallback);
  let dkim: MailConfig["dkim"];
  const dkimKey = env.DKIM_PRIVATE_KEY || (env.DKIM_PRIVATE_KEY_FILE ? fs.readFileSync(env.DKIM_PRIVATE_KEY_FILE, "utf8") : "");
  if (dkimKey) {
    if (!env.DKIM_DOMAIN || !env.DKIM_SELECTOR) throw new Error("DKIM_PRIVATE_KEY needs DKIM_DOMAIN and DKIM_SELECTOR");
    dkim = { domainName: env.DKIM_DOMAIN, keySelector: env.DKIM_SELECTOR, privateKey: dkimKey.replace(/\\n/g, "\n"), ...(env.DKIM_SKIP_FIELDS ? { skipFields: env.DKIM_SKIP_FIELDS } : {}) };
  }
  // The From address's domain is the sending domain (Message-IDs, the unsubscribe mailbox): it must have one.
  if (env.MAIL_FROM && !/@(\[[^\]\s]+\]|[^\s>@]+)>?\s*$/.test(env.MAIL_FROM)) throw new Error(`MAIL_FROM must be an address such as "citydaily <news@example.com>", got "${env.MAIL_FROM}"`);
  return {
    from: env.MAIL_FROM || undefined,
    postalAddress: env.POSTAL_ADDRESS || "citydaily (postal address not configured: set POSTAL_ADDRESS)",
    dkim,
    unsubscribeSecret: env.UNSUBSCRIBE_SECRET || undefined,
    senderEnabled: env.MAIL_SENDER !== "off",
    sendIntervalMs: positive("MAIL_SEND_INTERVAL_MS", 5000),
    batchSize: positive("MAIL_BATCH_SIZE", 200),
    concurrency: positive("MAIL_CONCURRENCY", 5),
    leaseSeconds: positive("MAIL_LEASE_SECONDS", 120),
    retryBaseSeconds: int(env.MAIL_RETRY_BASE_SECONDS, 60, "MAIL_RETRY_BASE_SECONDS"),
    maxAttempts: positive("MAIL_MAX_ATTEMPTS", 8),
    subscribeRateLimit: positive("SUBSCRIBE_RATE_LIMIT", 10),
    subscribeRateWindowSeconds: positive("SUBSCRIBE_RATE_WINDOW_SECONDS", 600),
    trustProxyHops: int(env.TRUST_PROXY_HOPS, 0, "TRUST_PROXY_HOPS"),
    webhooks: {
      sesTopicArn: env.SES_SNS_TOPIC_ARN || undefined,
      sendgridPublicKey: env.SENDGRID_WEBHOOK_PUBLIC_KEY || undefined,
      postmarkUser: env.POSTMARK_WEBHOOK_USER || undefined,
      postmarkPassword: env.POSTMARK_WEBHOOK_PASSWORD || undefined,
      mailgunSigningKey: env.MAILGUN_WEBHOOK_SIGNING_KEY || undefined,
    },
  };
}

/**
 * The From header: `MAIL_FROM`, or `citydaily <news@host>` with the BASE_URL host. An IP host is
 * written as an RFC 5322 address literal (`news@[127.0.0.1]`, `news@[IPv6:::1]`): the mail then
 * names the machine that sends it, and Message-IDs stay on that sending domain, never `localhost`.
 */
export function mailFrom(config: { baseUrl: string; mail: Pick<MailConfig, "from"> }): string {
  if (config.mail.from) return config.mail.from;
  return `citydaily <news@${mailDomainOf(config.baseUrl)}>`;
}

/** The domain part of a mailbox on the BASE_URL host: its name, or an address literal for an IP. */
export function mailDomainOf(baseUrl: string): string {
  const host = new URL(baseUrl).hostname; // WHATWG URL: IPv6 in brackets, IPv4 normalised
  if (host.startsWith("[")) return `[IPv6:${host.slice(1, -1)}]`;
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) ? `[${host}]` : host;
}
