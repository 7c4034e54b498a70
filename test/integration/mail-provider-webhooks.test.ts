import { execFile, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSesWebhook } from "../../src/integrations/mail/ses.ts";
import { subscriberToken } from "../../src/services/readers/unsubscribe.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Each provider's bounce/complaint webhook over real HTTP, with its own signature scheme and keys
// (or a certificate) made here. Payloads follow each provider's documented samples.

const TOPIC = "arn:aws:sns:us-east-1:123456789012:ses-feedback";
const CERT_URL = "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-7ff5318490ec183fbaddaa2a969abfda.pem";
const SUBSCRIBE_URL = `https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f37fb687f5d51e6e2425c464de12884`;
const MAILGUN_KEY = "key-7f3b1c0a9e2d4c6b8a0f1e3d5c7b9a1e";
const NY = { city: "New York", state: "New York", slug: "new-york-new-york" };
const BOSTON = { city: "Boston", state: "Massachusetts", slug: "boston-massachusetts" };

// Amazon SNS: an RSA key and a self-signed certificate for sns.amazonaws.com, as SNS's own is.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-sns-"));
execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(tmp, "key.pem"), "-out", path.join(tmp, "cert.pem"), "-days", "2", "-subj", "/CN=sns.amazonaws.com"], { stdio: "ignore" });
execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(tmp, "other-key.pem"), "-out", path.join(tmp, "other.pem"), "-days", "2", "-subj", "/CN=sns.evil.example"], { stdio: "ignore" });
const SNS_KEY = fs.readFileSync(path.join(tmp, "key.pem"), "utf8");
const SNS_CERT = fs.readFileSync(path.join(tmp, "cert.pem"), "utf8");
const OTHER_CERT = fs.readFileSync(path.join(tmp, "other.pem"), "utf8");
const OTHER_KEY = fs.readFileSync(path.join(tmp, "other-key.pem"), "utf8");
fs.rmSync(tmp, { recursive: true, force: true });

// SendGrid: an ECDSA P-256 key pair; the public key as SendGrid shows it (base64 DER).
const sendgrid = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const SENDGRID_PUBLIC = sendgrid.publicKey.export({ type: "spki", format: "der" }).toString("base64");
const impostor = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });

let server: TestServer;
/** Every GET the SES webhook made (certificate and SubscribeURL): the stand-in for the internet. */
const fetched: string[] = [];

beforeAll(async () => {
  server = await startTestServer({
    MAIL_SENDER: "off", ADMIN_TOKEN: "admin-secret", MAIL_FROM: "citydaily <news@citydaily.example>", SUBSCRIBE_RATE_LIMIT: "1000",
    SES_SNS_TOPIC_ARN: TOPIC, SENDGRID_WEBHOOK_PUBLIC_KEY: SENDGRID_PUBLIC,
    POSTMARK_WEBHOOK_USER: "postmark", POSTMARK_WEBHOOK_PASSWORD: "s3cret-pm", MAILGUN_WEBHOOK_SIGNING_KEY: MAILGUN_KEY,
  });
  // The certificate fetch goes through the injectable fetcher; the SNS host check before it stays as in production.
  server.ctx.mailWebhooks.ses = createSesWebhook({
    topicArn: TOPIC,
    fetchText: async (url) => {
      fetched.push(url);
      if (url === CERT_URL) return SNS_CERT;
      if (url === CERT_URL.replace("7ff5", "0ther")) return OTHER_CERT;
      if (url === SUBSCRIBE_URL) return "<ConfirmSubscriptionResponse/>";
      throw new Error(`unexpected fetch of ${url}`);
    },
  });
});
afterAll(async () => {
  await server?.stop();
});

const db = () => server.ctx.db;
async function subscribe(email: string, town = NY): Promise<void> {
  expect((await server.post("/api/subscribe", { email, ...town })).status).toBe(200);
}
const statuses = (email: string) => db().prepare("SELECT status FROM subscribers WHERE email = ? ORDER BY id").pluck().all(email);
const suppression = (email: string) => db().prepare("SELECT reason, source FROM suppressions WHERE email = ?").get(email);
const events = (email: string) => db().prepare("SELECT kind, source FROM mail_events WHERE email = ? AND kind <> 'subscribed' ORDER BY id").all(email);
const seenRows = () => db().prepare("SELECT COUNT(*) FROM mail_webhook_seen").pluck().get() as number;
const eventRows = () => db().prepare("SELECT COUNT(*) FROM mail_events").pluck().get() as number;
/** Our Message-ID of the reader's welcome (what the provider echoes back). */
const welcomeMessageId = (email: string) => `<welcome-${db().prepare("SELECT o.id FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE s.email = ? AND o.kind = 'welcome' ORDER BY o.id LIMIT 1").pluck().get(email)}@citydaily.example>`;
const post = (p: string, body: string, headers: Record<string, string> = {}) => fetch(server.url + p, { method: "POST", body, headers: { "Content-Type": "application/json", ...headers } });
/** Refused, and nothing stored: no event id, no history line, no suppression. */
async function refused(res: Response, status: number, before: { seen: number; events: number }) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(seenRows()).toBe(before.seen);
  expect(eventRows()).toBe(before.events);
}
const counts = () => ({ seen: seenRows(), events: eventRows() });

// ---------------------------------------------------------------- Amazon SES through SNS

/** The string SNS signs (AWS "Verifying the signatures of Amazon SNS messages"), written out here on its own. */
function snsSign(m: Record<string, string>, version: "1" | "2", key = SNS_KEY): Record<string, string> {
  const names = m.Type === "Notification" ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"] : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  let text = "";
  for (const n of names) if (m[n] !== undefined) text += `${n}\n${m[n]}\n`;
  const signature = crypto.sign(version === "1" ? "sha1" : "sha256", Buffer.from(text), key).toString("base64");
  return { ...m, SignatureVersion: version, Signature: signature, SigningCertURL: m.SigningCertURL ?? CERT_URL };
}

function snsNotification(message: object, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    Type: "Notification", MessageId: crypto.randomUUID(), TopicArn: TOPIC, Message: JSON.stringify(message),
    Timestamp: new Date().toISOString(), UnsubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${TOPIC}:1`, ...overrides,
  };
}

/** SES's documented bounce notification (with the original headers), for one recipient. */
function sesBounce(email: string, bounceType: string, subType: string, diagnosticCode: string, messageId: string) {
  return {
    notificationType: "Bounce",
    bounce: {
      bounceType, bounceSubType: subType, reportingMTA: "dns; email.example.com", timestamp: "2026-11-22T14:59:38.237Z",
      bouncedRecipients: [{ emailAddress: email, status: diagnosticCode.match(/\d\.\d\.\d+/)?.[0] ?? "5.0.0", action: "failed", diagnosticCode }],
      feedbackId: "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa068a-000000", remoteMtaIp: "127.0.2.0",
    },
    mail: {
      timestamp: "2026-11-22T14:59:38.237Z", source: "news@citydaily.example", sourceArn: "arn:aws:ses:us-east-1:123456789012:identity/citydaily.example",
      sourceIp: "127.0.3.0", sendingAccountId: "123456789012", messageId: "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000",
      destination: [email], headersTruncated: false,
      headers: [{ name: "From", value: "citydaily <news@citydaily.example>" }, { name: "To", value: email }, { name: "Message-ID", value: messageId }],
      commonHeaders: { from: ["citydaily <news@citydaily.example>"], to: [email], messageId, subject: "Welcome" },
    },
  };
}

describe("POST /webhooks/mail/ses (Amazon SES through SNS)", () => {
  it("confirms the SNS subscription by a GET on its SubscribeURL", async () => {
    const confirmation = snsSign({
      Type: "SubscriptionConfirmation", MessageId: crypto.randomUUID(), Token: "2336412f37fb687f5d51e6e2425c464de12884", TopicArn: TOPIC,
      Message: `You have chosen to subscribe to the topic ${TOPIC}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
      SubscribeURL: SUBSCRIBE_URL, Timestamp: new Date().toISOString(),
    }, "2");
    const res = await post("/webhooks/mail/ses", JSON.stringify(confirmation), { "Content-Type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": "SubscriptionConfirmation" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ provider: "ses", confirmed: true, suppressed: 0 });
    expect(fetched).toEqual([CERT_URL, SUBSCRIBE_URL]);
  });

  it("a permanent bounce (SignatureVersion 1) suppresses the reader in every town; a complaint (version 2) too", async () => {
    await subscribe("jane@example.org");
    await subscribe("jane@example.org", BOSTON);
    const bounce = snsSign(snsNotification(sesBounce("jane@example.org", "Permanent", "General", "smtp; 550 5.1.1 <jane@example.org>... User unknown", welcomeMessageId("jane@example.org"))), "1");
    const res = await post("/webhooks/mail/ses", JSON.stringify(bounce), { "Content-Type": "text/plain; charset=UTF-8" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ provider: "ses", received: 1, suppressed: 1, recorded: 0, ignored: 0, duplicates: 0, unmatched: 0, confirmed: false });
    expect(statuses("jane@example.org")).toEqual(["bounced", "bounced"]);
    expect(suppression("jane@example.org")).toEqual({ reason: "bounced", source: "ses" });

    await subscribe("angry@example.org");
    await subscribe("angry@example.org", BOSTON);
    const complaint = snsSign(snsNotification({
      notificationType: "Complaint",
      complaint: { userAgent: "AnyCompany Feedback Loop (V0.01)", complainedRecipients: [{ emailAddress: "angry@example.org" }], complaintFeedbackType: "abuse", arrivalDate: "2026-11-22T14:59:38.237Z", timestamp: "2026-11-22T14:59:38.237Z", feedbackId: "000001378603177f-18c07c78-fa81-4a58-9dd1-fedc3cb8f49a-000000" },
      mail: { timestamp: "2026-11-22T14:59:38.237Z", messageId: "000001378603177f-7a5433e7-8edb-42ae-af10-f0181f34d6ee-000000", source: "news@citydaily.example", destination: ["angry@example.org"] },
    }), "2");
    expect(await (await post("/webhooks/mail/ses", JSON.stringify(complaint))).json()).toMatchObject({ suppressed: 1 });
    expect(statuses("angry@example.org")).toEqual(["complained", "complained"]);
    expect(events("angry@example.org")).toEqual([{ kind: "complained", source: "ses" }]);
  });

  it("a transient bounce is only recorded, and a policy refusal (blocked, DMARC) never suppresses", async () => {
    await subscribe("full@example.org");
    await subscribe("blocked@example.org");
    const soft = snsSign(snsNotification(sesBounce("full@example.org", "Transient", "MailboxFull", "smtp; 452 4.2.2 Mailbox full", "<x@elsewhere.example>")), "2");
    const policy = snsSign(snsNotification(sesBounce("blocked@example.org", "Permanent", "General", "smtp; 550 5.7.1 Service unavailable; Client host [127.0.3.0] blocked using Spamhaus", "<y@elsewhere.example>")), "2");
    const dmarc = snsSign(snsNotification(sesBounce("blocked@example.org", "Permanent", "General", "smtp; 550 5.7.26 Unauthenticated email from citydaily.example is not accepted due to domain's DMARC policy", "<z@elsewhere.example>")), "2");
    for (const n of [soft, policy, dmarc]) expect(await (await post("/webhooks/mail/ses", JSON.stringify(n))).json()).toMatchObject({ suppressed: 0, recorded: 1 });
    expect(statuses("full@example.org")).toEqual(["active"]);
    expect(statuses("blocked@example.org")).toEqual(["active"]);
    expect(suppression("blocked@example.org")).toBeUndefined();
    expect(events("full@example.org")).toEqual([{ kind: "soft_bounce", source: "ses" }]);
    expect(events("blocked@example.org")).toEqual([{ kind: "policy_refusal", source: "ses" }, { kind: "policy_refusal", source: "ses" }]);
  });

  it("refuses (401) unsigned, tampered, stale and foreign-certificate messages, and stores nothing", async () => {
    await subscribe("victim@example.org");
    const good = snsSign(snsNotification(sesBounce("victim@example.org", "Permanent", "General", "smtp; 550 5.1.1 unknown", "<v@elsewhere.example>")), "2");
    const before = counts();
    const { Signature: _drop, ...unsigned } = good;
    await refused(await post("/webhooks/mail/ses", JSON.stringify(unsigned)), 401, before);
    await refused(await post("/webhooks/mail/ses", JSON.stringify({ ...good, Message: good.Message.replace("Permanent", "Permanent ") })), 401, before);
    await refused(await post("/webhooks/mail/ses", JSON.stringify(snsSign(snsNotification(JSON.parse(good.Message), { Timestamp: new Date(Date.now() - 2 * 3600_000).toISOString() }), "2"))), 401, before);
    // Signed by a key that is not the certificate's.
    await refused(await post("/webhooks/mail/ses", JSON.stringify(snsSign(snsNotification(JSON.parse(good.Message)), "2", OTHER_KEY))), 401, before);
    // A certificate at a genuine SNS address but not issued to sns.amazonaws.com.
    await refused(await post("/webhooks/mail/ses", JSON.stringify(snsSign({ ...snsNotification(JSON.parse(good.Message)), SigningCertURL: CERT_URL.replace("7ff5", "0ther") }, "2", OTHER_KEY))), 401, before);
    // Certificate addresses off the SNS hosts are refused before anything is fetched.
    const fetchedBefore = fetched.length;
    for (const url of ["https://sns.us-east-1.amazonaws.com.evil.example/SimpleNotificationService-1.pem", "http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem", "https://evil.example/SimpleNotificationService-1.pem", "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem"]) {
      await refused(await post("/webhooks/mail/ses", JSON.stringify(snsSign({ ...snsNotification(JSON.parse(good.Message)), SigningCertURL: url }, "2"))), 401, before);
    }
    expect(fetched.length).toBe(fetchedBefore);
    // Another topic's message, however well signed: 403.
    await refused(await post("/webhooks/mail/ses", JSON.stringify(snsSign(snsNotification(JSON.parse(good.Message), { TopicArn: "arn:aws:sns:us-east-1:999999999999:other" }), "2"))), 403, before);
    await refused(await post("/webhooks/mail/ses", "not json"), 401, before);
    expect(statuses("victim@example.org")).toEqual(["active"]);
  });

  it("a replayed (or retried) notification is a duplicate: nothing happens twice", async () => {
    await subscribe("twice@example.org");
    const soft = JSON.stringify(snsSign(snsNotification(sesBounce("twice@example.org", "Transient", "General", "smtp; 451 4.3.0 try later", "<t@elsewhere.example>")), "2"));
    expect(await (await post("/webhooks/mail/ses", soft)).json()).toMatchObject({ recorded: 1, duplicates: 0 });
    expect(await (await post("/webhooks/mail/ses", soft)).json()).toMatchObject({ recorded: 0, duplicates: 1 });
    expect(events("twice@example.org")).toHaveLength(1);
  });

  it("answers 503 when SES_SNS_TOPIC_ARN is not set", async () => {
    const ses = server.ctx.mailWebhooks.ses;
    server.ctx.mailWebhooks.ses = undefined;
    try {
      const res = await post("/webhooks/mail/ses", "{}");
      expect(res.status).toBe(503);
      expect((await res.json()).detail).toContain("SES_SNS_TOPIC_ARN");
    } finally {
      server.ctx.mailWebhooks.ses = ses;
    }
  });
});

// ---------------------------------------------------------------- SendGrid

function sendgridPost(events: object[], opts: { key?: crypto.KeyObject; timestamp?: number; body?: string } = {}) {
  const body = opts.body ?? `${JSON.stringify(events)}\r\n`;
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = crypto.sign("sha256", Buffer.from(timestamp + body), opts.key ?? sendgrid.privateKey).toString("base64");
  return { body, headers: { "X-Twilio-Email-Event-Webhook-Signature": signature, "X-Twilio-Email-Event-Webhook-Timestamp": timestamp } };
}

describe("POST /webhooks/mail/sendgrid (Signed Event Webhook, ECDSA)", () => {
  it("maps bounce, blocked, dropped, deferred and spamreport events; finds the reader by our Message-ID in smtp-id", async () => {
    for (const e of ["sg-hard@example.org", "sg-blocked@example.org", "sg-spam@example.org", "sg-late@example.org"]) await subscribe(e);
    await subscribe("sg-spam@example.org", BOSTON);
    const base = { timestamp: Math.floor(Date.now() / 1000), sg_message_id: "14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0", category: ["digest"] };
    const { body, headers } = sendgridPost([
      // The address SendGrid reports was rewritten on the way; our Message-ID names the reader.
      { ...base, email: "SG-Hard@Forward.example", "smtp-id": welcomeMessageId("sg-hard@example.org"), event: "bounce", type: "bounce", bounce_classification: "Invalid Address", status: "5.1.1", reason: "550 5.1.1 The email account that you tried to reach does not exist.", sg_event_id: "sg-1" },
      { ...base, email: "sg-blocked@example.org", event: "bounce", type: "blocked", bounce_classification: "Reputation", status: "5.7.1", reason: "550 5.7.1 Blocked by recipient policy", sg_event_id: "sg-2" },
      { ...base, email: "sg-spam@example.org", event: "spamreport", sg_event_id: "sg-3" },
      { ...base, email: "sg-late@example.org", event: "deferred", attempt: "1", response: "400 try again later", sg_event_id: "sg-4" },
      { ...base, email: "sg-late@example.org", event: "delivered", response: "250 OK", sg_event_id: "sg-5" },
    ]);
    const res = await post("/webhooks/mail/sendgrid", body, headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ provider: "sendgrid", received: 5, suppressed: 2, recorded: 2, ignored: 1, duplicates: 0, unmatched: 0, confirmed: false });
    expect(statuses("sg-hard@example.org")).toEqual(["bounced"]);
    expect(statuses("sg-blocked@example.org")).toEqual(["active"]);
    expect(statuses("sg-spam@example.org")).toEqual(["complained", "complained"]);
    expect(statuses("sg-late@example.org")).toEqual(["active"]);
    expect(events("sg-late@example.org")).toEqual([{ kind: "soft_bounce", source: "sendgrid" }]);
  });

  it("refuses (401) unsigned, wrongly signed, tampered, stale and replayed posts", async () => {
    await subscribe("sg-victim@example.org");
    const events = [{ email: "sg-victim@example.org", event: "bounce", type: "bounce", status: "5.1.1", reason: "550 5.1.1 unknown", sg_event_id: "sg-v1", timestamp: 1 }];
    const before = counts();
    const good = sendgridPost(events);
    await refused(await post("/webhooks/mail/sendgrid", good.body), 401, before);
    const forged = sendgridPost(events, { key: impostor.privateKey });
    await refused(await post("/webhooks/mail/sendgrid", forged.body, forged.headers), 401, before);
    await refused(await post("/webhooks/mail/sendgrid", good.body.replace("sg-victim", "sg-victin"), good.headers), 401, before);
    await refused(await post("/webhooks/mail/sendgrid", good.body, { ...good.headers, "X-Twilio-Email-Event-Webhook-Signature": "bm90IGEgc2lnbmF0dXJl" }), 401, before);
    const stale = sendgridPost(events, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    await refused(await post("/webhooks/mail/sendgrid", stale.body, stale.headers), 401, before);
    expect(statuses("sg-victim@example.org")).toEqual(["active"]);

    expect((await post("/webhooks/mail/sendgrid", good.body, good.headers)).status).toBe(200);
    expect(statuses("sg-victim@example.org")).toEqual(["bounced"]);
    // The very same signed request again: a replay.
    const replay = await post("/webhooks/mail/sendgrid", good.body, good.headers);
    expect(replay.status).toBe(401);
    expect((await replay.json()).detail).toMatch(/replay/);
    // The same event signed afresh (SendGrid retrying): a duplicate, nothing twice.
    const retry = sendgridPost(events, { timestamp: Math.floor(Date.now() / 1000) + 1 });
    expect(await (await post("/webhooks/mail/sendgrid", retry.body, retry.headers)).json()).toMatchObject({ duplicates: 1, suppressed: 0 });
  });
});

// ---------------------------------------------------------------- Postmark

const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });

/** Postmark's documented Bounce webhook sample, for one address. */
function postmarkBounce(email: string, type: string, typeCode: number, details: string, id: number) {
  return {
    RecordType: "Bounce", MessageStream: "outbound", ID: id, Type: type, TypeCode: typeCode, Name: type, Tag: "digest",
    MessageID: "883953f4-6105-42a2-a16a-77a8eac79483", Metadata: {}, ServerID: 23, Description: "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
    Details: details, Email: email, From: "news@citydaily.example", BouncedAt: "2026-11-22T16:33:54.9070259Z", DumpAvailable: true, Inactive: true, CanActivate: true, Subject: "Welcome", Content: "",
  };
}

describe("POST /webhooks/mail/postmark (basic auth in the webhook URL)", () => {
  it("a HardBounce suppresses, a SpamComplaint suppresses and unsubscribes every town, Blocked and SoftBounce do not", async () => {
    for (const e of ["pm-hard@example.org", "pm-spam@example.org", "pm-blocked@example.org", "pm-soft@example.org"]) await subscribe(e);
    await subscribe("pm-spam@example.org", BOSTON);
    const auth = basic("postmark", "s3cret-pm");
    const send = async (record: object) => (await post("/webhooks/mail/postmark", JSON.stringify(record), auth)).json();
    expect(await send(postmarkBounce("pm-hard@example.org", "HardBounce", 1, "smtp;550 5.1.1 The email account that you tried to reach does not exist.", 4323372036))).toMatchObject({ suppressed: 1 });
    expect(await send({ ...postmarkBounce("pm-spam@example.org", "SpamComplaint", 512, "", 4323372037), RecordType: "SpamComplaint", Description: "The subscriber explicitly marked this message as spam." })).toMatchObject({ suppressed: 1 });
    expect(await send(postmarkBounce("pm-blocked@example.org", "Blocked", 100001, "smtp;550 5.7.1 Message rejected due to local policy", 4323372038))).toMatchObject({ suppressed: 0, recorded: 1 });
    expect(await send(postmarkBounce("pm-soft@example.org", "SoftBounce", 4096, "smtp;452 4.2.2 mailbox full", 4323372039))).toMatchObject({ suppressed: 0, recorded: 1 });
    expect(await send({ RecordType: "Delivery", ServerID: 23, MessageStream: "outbound", MessageID: "x", Recipient: "pm-soft@example.org", Tag: "", DeliveredAt: "2026-11-22T16:33:54Z", Details: "Test delivery webhook details" })).toMatchObject({ ignored: 1, received: 1 });
    expect(statuses("pm-hard@example.org")).toEqual(["bounced"]);
    expect(statuses("pm-spam@example.org")).toEqual(["complained", "complained"]);
    expect(suppression("pm-spam@example.org")).toEqual({ reason: "complained", source: "postmark" });
    expect(statuses("pm-blocked@example.org")).toEqual(["active"]);
    expect(events("pm-blocked@example.org")).toEqual([{ kind: "policy_refusal", source: "postmark" }]);
    expect(statuses("pm-soft@example.org")).toEqual(["active"]);
    // Postmark retrying the same bounce: a duplicate.
    expect(await send(postmarkBounce("pm-soft@example.org", "SoftBounce", 4096, "smtp;452 4.2.2 mailbox full", 4323372039))).toMatchObject({ duplicates: 1, recorded: 0 });
  });

  it("refuses (401) posts without or with wrong credentials, asking for basic auth", async () => {
    await subscribe("pm-victim@example.org");
    const body = JSON.stringify(postmarkBounce("pm-victim@example.org", "HardBounce", 1, "smtp;550 5.1.1 unknown", 4323372040));
    const before = counts();
    const none = await post("/webhooks/mail/postmark", body);
    await refused(none, 401, before);
    expect(none.headers.get("www-authenticate")).toMatch(/^Basic /);
    await refused(await post("/webhooks/mail/postmark", body, basic("postmark", "wrong")), 401, before);
    await refused(await post("/webhooks/mail/postmark", body, basic("someone", "s3cret-pm")), 401, before);
    await refused(await post("/webhooks/mail/postmark", body, { Authorization: "Bearer s3cret-pm" }), 401, before);
    expect(statuses("pm-victim@example.org")).toEqual(["active"]);
  });
});

// ---------------------------------------------------------------- Mailgun

function mailgunBody(eventData: object, opts: { key?: string; timestamp?: number; token?: string } = {}) {
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const token = opts.token ?? crypto.randomBytes(25).toString("hex");
  const signature = crypto.createHmac("sha256", opts.key ?? MAILGUN_KEY).update(timestamp + token).digest("hex");
  return JSON.stringify({ signature: { timestamp, token, signature }, "event-data": eventData });
}

/** Mailgun's documented "failed" event sample, for one address. */
function mailgunFailed(email: string, severity: string, code: number, message: string, messageId = "20260122192638.000be97f99f8cea1@sample.mailgun.com") {
  return {
    id: crypto.randomBytes(11).toString("base64url"), timestamp: Date.now() / 1000, "log-level": "error", event: "failed", severity, reason: severity === "permanent" ? "bounce" : "generic",
    envelope: { sender: "news@citydaily.example", transport: "smtp", targets: email },
    "delivery-status": { "attempt-no": 1, message, code, description: "", "session-seconds": 0.1 },
    flags: { "is-routed": false, "is-authenticated": true, "is-system-test": false, "is-test-mode": false },
    message: { headers: { to: email, "message-id": messageId, from: "citydaily <news@citydaily.example>", subject: "Welcome" }, attachments: [], size: 111 },
    recipient: email, "recipient-domain": email.split("@")[1], "user-variables": {},
  };
}

describe("POST /webhooks/mail/mailgun (HMAC with the webhook signing key)", () => {
  it("failed permanent suppresses (reader found by our Message-ID), temporary and policy failures only record, complained suppresses", async () => {
    for (const e of ["mg-hard@example.org", "mg-temp@example.org", "mg-policy@example.org", "mg-spam@example.org"]) await subscribe(e);
    const send = async (data: object) => (await post("/webhooks/mail/mailgun", mailgunBody(data))).json();
    const ours = welcomeMessageId("mg-hard@example.org").slice(1, -1); // Mailgun echoes it without brackets
    expect(await send(mailgunFailed("mg-hard@example.org", "permanent", 550, "5.1.1 The email account that you tried to reach does not exist.", ours))).toMatchObject({ suppressed: 1 });
    expect(await send(mailgunFailed("mg-temp@example.org", "temporary", 452, "4.2.2 The email account that you tried to reach is over quota."))).toMatchObject({ recorded: 1 });
    expect(await send(mailgunFailed("mg-policy@example.org", "permanent", 550, "5.7.1 [192.0.2.1] Our system has detected that this message is likely unsolicited mail. To reduce the amount of spam, this message has been blocked."))).toMatchObject({ recorded: 1, suppressed: 0 });
    expect(await send({ id: "-Agny091SquKnsrW2NEKUA", timestamp: Date.now() / 1000, "log-level": "warn", event: "complained", recipient: "mg-spam@example.org", message: { headers: { "message-id": "x@citydaily.example" } } })).toMatchObject({ suppressed: 1 });
    expect(await send({ id: "d1", timestamp: Date.now() / 1000, event: "delivered", recipient: "mg-temp@example.org" })).toMatchObject({ ignored: 1 });
    expect(statuses("mg-hard@example.org")).toEqual(["bounced"]);
    expect(statuses("mg-temp@example.org")).toEqual(["active"]);
    expect(statuses("mg-policy@example.org")).toEqual(["active"]);
    expect(statuses("mg-spam@example.org")).toEqual(["complained"]);
    expect(events("mg-policy@example.org")).toEqual([{ kind: "policy_refusal", source: "mailgun" }]);
  });

  it("refuses (401) unsigned, wrongly signed, stale and re-used-token posts", async () => {
    await subscribe("mg-victim@example.org");
    const data = mailgunFailed("mg-victim@example.org", "permanent", 550, "5.1.1 unknown");
    const before = counts();
    await refused(await post("/webhooks/mail/mailgun", JSON.stringify({ "event-data": data })), 401, before);
    await refused(await post("/webhooks/mail/mailgun", mailgunBody(data, { key: "key-not-ours" })), 401, before);
    await refused(await post("/webhooks/mail/mailgun", mailgunBody(data, { timestamp: Math.floor(Date.now() / 1000) - 3600 })), 401, before);
    expect(statuses("mg-victim@example.org")).toEqual(["active"]);
    const good = mailgunBody(data, { token: "a".repeat(50) });
    expect((await post("/webhooks/mail/mailgun", good)).status).toBe(200);
    const again = counts();
    // The same token again, even on another body: a replay.
    await refused(await post("/webhooks/mail/mailgun", good), 401, again);
    await refused(await post("/webhooks/mail/mailgun", mailgunBody(mailgunFailed("mg-victim@example.org", "temporary", 452, "4.2.2 full"), { token: "a".repeat(50) })), 401, again);
    expect(statuses("mg-victim@example.org")).toEqual(["bounced"]);
  });
});

// ---------------------------------------------------------------- ARF feedback-loop reports

/** An RFC 5965 report (its section B.2 example, reshaped) about one of our messages. */
function arfReport(opts: { rcpt: string; original: string; inline?: boolean; reportId: string; type?: string }) {
  return [
    "From: <staff@fbl.example.net>", "Date: Sun, 22 Nov 2026 17:40:36 -0500", "Subject: FW: New York, Sunday November 22",
    "To: <fbl@citydaily.example>", "MIME-Version: 1.0", `Message-ID: <${opts.reportId}@fbl.example.net>`,
    'Content-Type: multipart/report; report-type=feedback-report; boundary="part1_13d.2e68ed54_boundary"', "",
    "--part1_13d.2e68ed54_boundary", 'Content-Type: text/plain; charset="US-ASCII"', "Content-Transfer-Encoding: 7bit", "",
    "This is an email abuse report for an email message received from IP 192.0.2.1 on Sun, 22 Nov 2026 14:00:00 -0500.", "",
    "--part1_13d.2e68ed54_boundary", "Content-Type: message/feedback-report", "",
    `Feedback-Type: ${opts.type ?? "abuse"}`, "User-Agent: SomeGenerator/1.0", "Version: 1", "Original-Mail-From: <bounces@citydaily.example>",
    `Original-Rcpt-To: <${opts.rcpt}>`, "Arrival-Date: Sun, 22 Nov 2026 14:00:00 -0500", "Reporting-MTA: dns; mail.fbl.example.net", "Source-IP: 192.0.2.1", "",
    "--part1_13d.2e68ed54_boundary", "Content-Type: message/rfc822", ...(opts.inline ? ["Content-Disposition: inline"] : []), "",
    opts.original, "--part1_13d.2e68ed54_boundary--", "",
  ].join("\r\n");
}

function original(opts: { messageId?: string; listUnsubscribe?: string; body: string }) {
  return [
    "From: citydaily <news@citydaily.example>", "To: redacted@fbl.example.net", "Subject: New York, Sunday November 22",
    ...(opts.messageId ? [`Message-ID: ${opts.messageId}`] : []), ...(opts.listUnsubscribe ? [`List-Unsubscribe: ${opts.listUnsubscribe}`] : []),
    "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "", opts.body, "",
  ].join("\r\n");
}

describe("POST /webhooks/mail/arf (complaint feedback loops, RFC 5965)", () => {
  const admin = { Authorization: "Bearer admin-secret", "Content-Type": "message/rfc822" };
  const idOf = (email: string) => db().prepare("SELECT id FROM subscribers WHERE email = ? ORDER BY id LIMIT 1").pluck().get(email) as number;

  it("a report with a redacted recipient suppresses the reader its original's Message-ID names, in every town", async () => {
    await subscribe("arf-one@example.org");
    await subscribe("arf-one@example.org", BOSTON);
    const report = arfReport({ rcpt: "redacted@fbl.example.net", reportId: "r1", original: original({ messageId: welcomeMessageId("arf-one@example.org"), body: "Good morning." }) });
    const res = await post("/webhooks/mail/arf", report, admin);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ provider: "arf", received: 1, suppressed: 1, unmatched: 0 });
    expect(statuses("arf-one@example.org")).toEqual(["complained", "complained"]);
    expect(suppression("arf-one@example.org")).toEqual({ reason: "complained", source: "arf" });
    expect(suppression("redacted@fbl.example.net")).toBeUndefined();
    // The same report again: nothing more.
    expect(await (await post("/webhooks/mail/arf", report, admin)).json()).toMatchObject({ duplicates: 1, suppressed: 0 });
  });

  it("finds the reader through the List-Unsubscribe token, or the footer link of an inlined original, when the Message-ID is not ours", async () => {
    await subscribe("arf-two@example.org");
    await subscribe("arf-three@example.org");
    const token = (email: string) => subscriberToken(server.ctx, idOf(email), email);
    const withHeader = arfReport({ rcpt: "redacted@fbl.example.net", reportId: "r2", original: original({ messageId: "<rewritten@relay.example>", listUnsubscribe: `<${server.url}/unsubscribe/${token("arf-two@example.org")}>, <mailto:unsubscribe@citydaily.example>`, body: "Good morning." }) });
    expect(await (await post("/webhooks/mail/arf", withHeader, admin)).json()).toMatchObject({ suppressed: 1 });
    expect(statuses("arf-two@example.org")).toEqual(["complained"]);
    const inlined = arfReport({ rcpt: "", reportId: "r3", inline: true, original: original({ body: `Good morning.\r\n--\r\nUnsubscribe from New York: ${server.url}/unsubscribe/${token("arf-three@example.org")}` }) });
    expect(await (await post("/webhooks/mail/arf", inlined, admin)).json()).toMatchObject({ suppressed: 1 });
    expect(statuses("arf-three@example.org")).toEqual(["complained"]);
  });

  it("falls back to Original-Rcpt-To; a not-spam report changes nothing; a non-report is 400; credentials are required", async () => {
    await subscribe("arf-four@example.org");
    await subscribe("arf-five@example.org");
    const plain = arfReport({ rcpt: "arf-four@example.org", reportId: "r4", original: original({ body: "Good morning." }) });
    const before = counts();
    await refused(await post("/webhooks/mail/arf", plain, { "Content-Type": "message/rfc822" }), 401, before);
    await refused(await post("/webhooks/mail/arf", plain, { Authorization: "Bearer wrong", "Content-Type": "message/rfc822" }), 403, before);
    // Basic auth with ADMIN_TOKEN as the password: what an inbound-mail service can put in a URL.
    expect(await (await post("/webhooks/mail/arf", plain, basic("inbound", "admin-secret"))).json()).toMatchObject({ suppressed: 1 });
    expect(statuses("arf-four@example.org")).toEqual(["complained"]);
    const notSpam = arfReport({ rcpt: "arf-five@example.org", reportId: "r5", type: "not-spam", original: original({ body: "Good morning." }) });
    expect(await (await post("/webhooks/mail/arf", notSpam, admin)).json()).toMatchObject({ ignored: 1, suppressed: 0 });
    expect(statuses("arf-five@example.org")).toEqual(["active"]);
    const notAReport = await post("/webhooks/mail/arf", original({ body: "hello" }), admin);
    expect(notAReport.status).toBe(400);
  });

  it("reports saved from a mailbox go through `npm run admin -- arf FILE...` the same way", async () => {
    await subscribe("arf-six@example.org");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-arf-"));
    try {
      const report = path.join(dir, "1700000000.M1P1.host:2,S");
      fs.writeFileSync(report, arfReport({ rcpt: "redacted@fbl.example.net", reportId: "r6", original: original({ messageId: welcomeMessageId("arf-six@example.org"), body: "Good morning." }) }));
      fs.writeFileSync(path.join(dir, "junk.eml"), original({ body: "not a report" }));
      const run = (files: string[]) => promisify(execFile)(process.execPath, ["scripts/admin.ts", "arf", ...files], {
        cwd: path.resolve(import.meta.dirname, "../.."), env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "silent", BASE_URL: server.url, MAIL_FROM: "citydaily <news@citydaily.example>" },
      }).catch((err: { stdout: string; code: number }) => ({ stdout: err.stdout, code: err.code }));
      const out = await run([report, path.join(dir, "junk.eml")]);
      expect(out.stdout).toContain(`${report}: 1 suppressed`);
      expect(out.stdout).toMatch(/junk\.eml: The body is not a feedback report/);
      expect((out as { code?: number }).code).toBe(1);
      expect(statuses("arf-six@example.org")).toEqual(["complained"]);
      expect(suppression("arf-six@example.org")).toEqual({ reason: "complained", source: "arf" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
