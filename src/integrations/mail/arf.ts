import { simpleParser, type ParsedMail } from "mailparser";
import { unsubscribeTokenOf, type MailFeedback } from "../../core/mail/feedback.ts";

/**
 * A complaint feedback-loop report (ARF, RFC 5965) as mailbox providers send it by mail (Yahoo's
 * and AOL's CFL, Microsoft's JMRP, Comcast...): `multipart/report; report-type=feedback-report`
 * with a human part, a `message/feedback-report` part and the original message
 * (`message/rfc822`) or its headers (`text/rfc822-headers`). Parsed with mailparser.
 *
 * Reports often redact the recipient, so the reader is found through our own headers first: the
 * original's Message-ID (`<digest-123@our domain>`, an outbox row) or its List-Unsubscribe token;
 * `Original-Rcpt-To` only when neither is there.
 */
export interface ArfReport {
  /** `abuse`, `fraud`, `virus`, `not-spam`, `other`... (lowercased). */
  feedbackType: string;
  userAgent: string | null;
  originalRcptTo: string | null;
  /** The original message's Message-ID, with brackets. */
  messageId: string | null;
  /** Our unsubscribe token, from the original's List-Unsubscribe header or, when only its body was kept, its footer link. */
  token: string | null;
  /** The report's own Message-ID (a resent report is the same report). */
  reportId: string | null;
}

/** Parses a raw report; undefined when the message holds no `message/feedback-report` part. */
export async function parseArf(raw: string | Buffer): Promise<ArfReport | undefined> {
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  const report = mail.attachments.find((a) => a.contentType === "message/feedback-report");
  if (!report) return undefined;
  const fields = reportFields(report.content.toString("utf8"));
  const original = mail.attachments.find((a) => a.contentType === "message/rfc822" || a.contentType === "text/rfc822-headers");
  let originalMail: ParsedMail | undefined;
  if (original) originalMail = await simpleParser(original.content, { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  // The raw line: mailparser turns List-* headers into structures.
  const header = (name: string) => {
    const line = originalMail?.headerLines.find((h) => h.key === name)?.line;
    return line ? line.slice(line.indexOf(":") + 1).replace(/\r?\n[ \t]+/g, " ").trim() : null;
  };
  const messageId = originalMail?.messageId ?? null;
  // An original marked `Content-Disposition: inline` is shown in the report's text (mailparser
  // inlines it, headers and all but a few): our footer's unsubscribe link is still there.
  const token = unsubscribeTokenOf(header("list-unsubscribe")) ?? unsubscribeTokenOf(footerLink(originalMail?.text ?? mail.text ?? "")) ?? null;
  return {
    feedbackType: (fields.get("feedback-type") ?? "").toLowerCase(),
    userAgent: fields.get("user-agent") ?? null,
    originalRcptTo: angleless(fields.get("original-rcpt-to") ?? null),
    messageId,
    token,
    reportId: mail.messageId ?? null,
  };
}

/** The fields of a message/feedback-report part (RFC 5965 section 3.1; header syntax, folded lines joined). */
function reportFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
    // Original-Rcpt-To may repeat; the first is kept (a report is about one recipient).
    if (m && !fields.has(m[1].toLowerCase())) fields.set(m[1].toLowerCase(), m[2].trim());
  }
  return fields;
}

/** Our footer's unsubscribe link as a List-Unsubscribe-like `<...>` value, for unsubscribeTokenOf. */
function footerLink(text: string): string | null {
  const m = /(https?:\/\/\S+\/unsubscribe\/[^\s>/?#]+)/.exec(text);
  return m ? `<${m[1]}>` : null;
}

function angleless(address: string | null): string | null {
  const a = address?.replace(/^<|>$/g, "").trim();
  return a || null;
}

/** The report as feedback: an `abuse` (or `fraud`) report is a complaint; the others are not acted on. */
export function arfFeedback(report: ArfReport): MailFeedback[] {
  if (report.feedbackType !== "abuse" && report.feedbackType !== "fraud") return [];
  const detail = `feedback loop report (${report.feedbackType})${report.userAgent ? ` from ${report.userAgent}` : ""}`;
  return [{
    kind: "complaint",
    eventId: report.reportId ?? `${report.messageId ?? ""}:${report.originalRcptTo ?? ""}:${report.token ?? ""}`,
    email: report.originalRcptTo, messageId: report.messageId, token: report.token, detail,
  }];
}
