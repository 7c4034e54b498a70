import MailComposer from "nodemailer/lib/mail-composer";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";
import { type RenderedEmail} from "../../core/edition/email-render.ts";
import { escapeHtml } from "../../lib/html.ts";

/**
 * A message composed once and sent to many: the raw RFC 5322 text of one rendering, with the few
 * values that differ per recipient (address, unsubscribe token, Message-ID, Date) left as slots.
 * Filling it is string concatenation, so no MIME composition or encoding of the body runs per message.
 *
 * Render the message with the MARKS below in place of the recipient's values; every occurrence of
 * a mark becomes a slot. nodemailer's MailComposer writes the headers and the multipart structure
 * once; the two bodies are quoted-printable, encoded here once per template. A slot inside a body
 * sits on a line of its own between soft line breaks ("=\r\n"), so a value of any length keeps
 * every line under 76 characters and the bodies decode to exactly what was rendered.
 */
export const MARKS = {
  /** The recipient's address (To, and the footer's "you get this email because ..."). */
  email: "x0slot0email@x0slot0.invalid",
  /** The unsubscribe token as it appears in links (URI-encoded). */
  token: "x0slot0token",
  messageId: "<x0slot0msgid@x0slot0.invalid>",
  date: "x0slot0date",
  /** The reader's referral code in the share line's subscribe link. */
  ref: "x0slot0ref",
} as const;

export type SlotName = keyof typeof MARKS;
export type SlotValues = Record<SlotName, string>;

const TEXT_BODY = "x0slot0textbody";
const HTML_BODY = "x0slot0htmlbody";
type Context = "header" | "text" | "html";
type Piece = string | { slot: SlotName; context: Context };

const MARK_RE = new RegExp(Object.values(MARKS).map((m) => m.replace(/[.<>]/g, "\\$&")).join("|"), "g");
const SLOT_OF = new Map<string, SlotName>(Object.entries(MARKS).map(([k, v]) => [v, k as SlotName]));

export interface MessageTemplate {
  /** The raw message for one recipient. `token` is URI-encoded; every value must be header-safe ASCII (see `headerSafe`). */
  fill(values: SlotValues): Buffer;
  /** The decoded text and HTML bodies and the headers for these values (what `fill` encodes). */
  plain(values: SlotValues): { text: string; html: string; headers: Record<string, string> };
  /** Envelope sender: the From address. */
  envelopeFrom: string;
}

/** True when the value can go into a header as it is and reads the same in every context (no HTML escaping, no encoding). */
export function headerSafe(value: string): boolean {
  return /^[A-Za-z0-9._+@-]+$/.test(value);
}

/**
 * The same for a Message-ID (it goes only into its header): its right side may also be an address
 * literal, `[127.0.0.1]` or `[ipv6:::1]`, when the sending host is an IP address.
 */
export function messageIdSafe(id: string): boolean {
  return /^<[A-Za-z0-9._+-]+@(?:[A-Za-z0-9.-]+|\[[A-Za-z0-9.:]+\])>$/.test(id);
}

/** Compiles `rendered` (made with MARKS for the recipient's values) into a template. */
export async function compileMessageTemplate(rendered: RenderedEmail): Promise<MessageTemplate> {
  const prepared = (value: string) => ({ prepared: true, value });
  const composer = new MailComposer({
    from: rendered.from,
    to: MARKS.email,
    subject: rendered.subject,
    messageId: MARKS.messageId,
    headers: { ...Object.fromEntries(Object.entries(rendered.headers).map(([k, v]) => [k, prepared(v)])), Date: MARKS.date },
    // Forced quoted-printable: the placeholders are ASCII, the bodies put in their place are not.
    text: { content: TEXT_BODY, contentTransferEncoding: "quoted-printable" },
    html: { content: HTML_BODY, contentTransferEncoding: "quoted-printable" },
  });
  const mail = composer.compile();
  const envelopeFrom = mail.getEnvelope().from || "";
  const skeleton = (await mail.build()).toString("latin1");

  const pieces: Piece[] = [];
  for (const [i, part] of skeleton.split(new RegExp(`(${TEXT_BODY}|${HTML_BODY})`)).entries()) {
    if (i % 2 === 0) pieces.push(...split(part, "header"));
    else pieces.push(...encodedBody(part === TEXT_BODY ? rendered.text : rendered.html, part === TEXT_BODY ? "text" : "html"));
  }
  const textPieces = split(rendered.text, "text");
  const htmlPieces = split(rendered.html, "html");
  const headerPieces = Object.fromEntries(Object.entries(rendered.headers).map(([k, v]) => [k, split(v, "header")]));
  const valueFor = (values: SlotValues, slot: SlotName, context: Context) => (context === "html" ? escapeHtml(values[slot]) : values[slot]);
  const join = (list: Piece[], values: SlotValues) => list.map((p) => (typeof p === "string" ? p : valueFor(values, p.slot, p.context))).join("");

  // The fixed pieces (adjacent ones joined) as bytes once; each slot as the number of its value and
  // context, so a message's few values are encoded once each (an address or a token occurs several
  // times) and written with the fixed bytes into one buffer.
  const kinds: Array<{ slot: SlotName; context: Context }> = [];
  const layout: Array<Buffer | number> = [];
  for (const p of pieces) {
    const last = layout.at(-1);
    if (typeof p !== "string") {
      let k = kinds.findIndex((x) => x.slot === p.slot && x.context === p.context);
      if (k < 0) k = kinds.push({ slot: p.slot, context: p.context }) - 1;
      layout.push(k);
    } else if (Buffer.isBuffer(last)) layout[layout.length - 1] = Buffer.concat([last, Buffer.from(p, "latin1")]);
    else layout.push(Buffer.from(p, "latin1"));
  }
  const fixedLength = layout.reduce<number>((n, p) => n + (typeof p === "number" ? 0 : p.length), 0);
  return {
    envelopeFrom,
    fill(values) {
      const texts = kinds.map(({ slot, context }) => (context === "header" ? values[slot] : `=\r\n${qpWrap(qpEncode(valueFor(values, slot, context)), 75)}=\r\n`));
      let length = fixedLength;
      for (const p of layout) if (typeof p === "number") length += texts[p]!.length;
      // One byte a character: the values are ASCII (header-safe) and quoted-printable is.
      const out = Buffer.allocUnsafe(length);
      let at = 0;
      for (const p of layout) at += typeof p === "number" ? out.write(texts[p]!, at, "latin1") : p.copy(out, at);
      return out;
    },
    plain(values) {
      return {
        text: join(textPieces, values),
        html: join(htmlPieces, values),
        headers: Object.fromEntries(Object.entries(headerPieces).map(([k, list]) => [k, join(list, values)])),
      };
    },
  };
}

/** Splits text at the marks: fixed strings and slots. */
function split(text: string, context: Context): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(MARK_RE)) {
    if (m.index > last) pieces.push(text.slice(last, m.index));
    pieces.push({ slot: SLOT_OF.get(m[0])!, context });
    last = m.index + m[0].length;
  }
  if (last < text.length) pieces.push(text.slice(last));
  return pieces;
}

/**
 * A body as quoted-printable pieces: fixed text encoded and wrapped once (at 75, leaving room for
 * the soft break that follows it), slots between soft breaks. Line ends become CRLF first, as
 * nodemailer does for text parts.
 */
function encodedBody(body: string, context: Context): Piece[] {
  return split(body.replace(/\r?\n/g, "\r\n"), context).map((p) => (typeof p === "string" ? qpWrap(qpEncode(p), 75) : p));
}
