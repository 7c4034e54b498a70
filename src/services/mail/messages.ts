import { mailFrom } from "../../config/mail.ts";
import { renderTransactional } from "../../core/commerce/emails.ts";
import { renderResubscribeConfirm, RESUBSCRIBE_TEMPLATE } from "../../core/edition/resubscribe-email.ts";
import { prepareEdition, renderDigest, renderWelcome, type PreparedEdition } from "../../core/edition/email-render.ts";
import { senderDomain, type CityInfo, type Recipient, type Sender } from "../../core/edition/email-headers.ts";
import { compileMessageTemplate, headerSafe, MARKS, messageIdSafe, type MessageTemplate } from "../../integrations/mail/message-template.ts";
import { withoutSections } from "../../core/edition/hidden-sections.ts";
import { hiddenKeys } from "../../core/readers/preferences.ts";
import type { ClaimedRow, ClaimedSubscriberRow, EditionForMail } from "../../store/mail/outbox.ts";
import type { AppContext } from "../platform/context.ts";
import { subscriberToken } from "../readers/unsubscribe.ts";
import type { MailBatch } from "./batch.ts";
import { deliver } from "./deliver.ts";
import { digestEdition, digestTemplate } from "./digest-cache.ts";
import { cancel } from "./settle.ts";
import { weeklySender } from "./weekly-send.ts";

export function mailSenderIdentity(ctx: AppContext): Sender {
  return { from: mailFrom(ctx.config), baseUrl: ctx.config.baseUrl, postalAddress: ctx.config.mail.postalAddress };
}

/**
 * What sends one claimed row: its message composed (or the row cancelled: subscription ended,
 * address suppressed, edition gone) and handed to `deliver`.
 */
export function rowSender(b: MailBatch): (row: ClaimedRow) => Promise<void> {
  const { ctx } = b;
  const sender = mailSenderIdentity(ctx);
  const domain = senderDomain(sender.from);
  // One Message-ID per outbox row: a re-send after a crash is recognisably the same message.
  const messageIdOf = (row: ClaimedRow) => `<${row.kind}-${row.id}@${domain}>`;
  const digest = digestSender(b, sender, domain, messageIdOf);
  const weekly = weeklySender(b, sender, messageIdOf);
  return async (row) => {
    if (row.kind === "transactional") {
      // The one email asking a suppressed address to confirm a new subscription goes to it on purpose.
      const confirm = row.template === RESUBSCRIBE_TEMPLATE;
      if (row.suppressed && !confirm) return cancel(b, row, "address suppressed (bounced or complained)");
      const message = confirm ? renderResubscribeConfirm(sender, row.email, JSON.parse(row.payload)) : renderTransactional(sender, row.email, row.template, JSON.parse(row.payload));
      return deliver(b, row, () => ctx.mailer.send({ ...message, messageId: messageIdOf(row), date: new Date(b.now()) }), undefined);
    }
    if (row.subscriber_status !== "active" || row.suppressed) {
      return cancel(b, row, `subscription ${row.subscriber_status}${row.suppressed ? ", address suppressed" : ""}`);
    }
    const to = { email: row.email, token: subscriberToken(ctx, row.subscriber_id, row.email), ref: row.referral_code ?? "" };
    const city = { name: row.name, state: row.state_name, slug: row.slug };
    if (row.kind === "welcome") {
      const message = renderWelcome(sender, to, city, row.has_digest ? "today" : "next", row.frequency === "weekly" ? row.weekly_day : undefined);
      return deliver(b, row, () => ctx.mailer.send({ ...message, messageId: messageIdOf(row), date: new Date(b.now()) }), row.subscriber_id);
    }
    if (row.kind === "weekly") return weekly(row, to, city);
    return digest(row, to, city);
  };
}

/**
 * Sends one reader's digest. A digest is composed once per edition (message-template.ts) and filled
 * in per reader with the address, the unsubscribe token, the Message-ID and the date; an address
 * that would need encoding in a header goes the per-message way (renderDigest and nodemailer's composer).
 */
function digestSender(b: MailBatch, sender: Sender, domain: string, messageIdOf: (row: ClaimedRow) => string) {
  const { ctx } = b;
  // Each edition's text part, styled HTML and preheader, and its whole message per town, are made once
  // (digest-cache.ts), not once per reader: once per edition and set of sections its readers hid
  // ("" for the whole edition, most readers).
  const prepare = (hidden: string) => (row: EditionForMail) => prepareEdition(hidden ? { ...row, html: withoutSections(row.html, hiddenKeys(hidden)) } : row);
  return async (row: ClaimedSubscriberRow, to: Recipient & { ref: string }, city: CityInfo): Promise<void> => {
    const entry = row.edition_id === null ? undefined : digestEdition(b.cache, ctx.db, row.edition_id, row.hidden_sections, prepare(row.hidden_sections));
    const e = entry?.prepared;
    if (!entry || !e) return cancel(b, row, "edition no longer exists");
    const messageId = messageIdOf(row);
    const token = encodeURIComponent(to.token);
    const template = headerSafe(to.email) && headerSafe(token) && /^[0-9a-f]+$/.test(to.ref) && messageIdSafe(messageId)
      ? await digestTemplate(entry, row.slug, () => compileDigest(ctx, sender, city, e, to, `<digest-${row.id}@${domain}>`))
      : undefined;
    const date = new Date(b.now());
    if (template) {
      const raw = template.fill({ email: to.email, token, messageId, date: mailDate(date), ref: to.ref });
      return deliver(b, row, () => ctx.mailer.sendRaw({ raw, envelope: { from: template.envelopeFrom, to: to.email }, messageId }), row.subscriber_id);
    }
    const message = renderDigest(sender, to, city, e);
    return deliver(b, row, () => ctx.mailer.send({ ...message, messageId, date }), row.subscriber_id);
  };
}

/**
 * The per-edition template of a digest, checked against renderDigest for the batch's first reader:
 * if the template does not reproduce that message exactly, digests go the per-message way.
 */
async function compileDigest(ctx: AppContext, sender: Sender, city: CityInfo, e: PreparedEdition, first: Recipient, firstMessageId: string): Promise<MessageTemplate | undefined> {
  try {
    const template = await compileMessageTemplate(renderDigest(sender, { email: MARKS.email, token: MARKS.token, ref: MARKS.ref }, city, e));
    const expected = renderDigest(sender, first, city, e);
    const got = template.plain({ email: first.email, token: encodeURIComponent(first.token), messageId: firstMessageId, date: "", ref: first.ref ?? "" });
    if (got.text === expected.text && got.html === expected.html && JSON.stringify(got.headers) === JSON.stringify(expected.headers)) return template;
    ctx.log.warn({ city: city.slug, date: e.date }, "digest template does not match the rendered digest; composing each message");
  } catch (err) {
    ctx.log.warn({ err, city: city.slug, date: e.date }, "digest template failed; composing each message");
  }
  return undefined;
}

/** The Date header as nodemailer writes it. */
function mailDate(date: Date): string {
  return date.toUTCString().replace(/GMT/, "+0000");
}
