/**
 * What a mail provider's report about one recipient means for that reader (pure; the provider
 * files in src/integrations/mail/ map their own event formats onto it).
 *
 * - `hard_bounce`: the address does not exist or will never take mail: suppressed.
 * - `soft_bounce`: a full mailbox, a timeout, a deferral: recorded only.
 * - `policy`: the receiving system refused the *sender* (blocklisted IP, throttling, DMARC, content
 *   judged spam): recorded and logged for the operator, never held against the reader.
 * - `complaint`: the reader pressed "report spam": suppressed, every town unsubscribed.
 */
export type FeedbackKind = "hard_bounce" | "soft_bounce" | "policy" | "complaint";

export interface MailFeedback {
  kind: FeedbackKind;
  /** The provider's id of this event (with the provider's name, it keys the replay check). */
  eventId: string;
  /** The recipient as the provider reports it (may be missing or redacted in complaint reports). */
  email: string | null;
  /** Our Message-ID when the provider echoes it (`<digest-123@domain>`): the surest way back to the reader. */
  messageId: string | null;
  /** Our unsubscribe token, when a report quotes the original List-Unsubscribe header. */
  token?: string | null;
  /** What the provider said, for the reader's history (`mail_events.detail`). */
  detail: string;
}

/**
 * Words and statuses that mean the receiver refused the sender, not the address: RFC 3463 X.7.X
 * (security or policy status), and the phrases providers use for blocks, throttling and
 * authentication failures (Gmail's "421 4.7.28 ... rate limited", "550 5.7.26 ... DMARC", Microsoft's
 * "550 5.7.1 ... blocked using Spamhaus", Yahoo's "421 4.7.0 [TSS04] ... temporarily deferred").
 */
const POLICY_STATUS = /\b[45]\.7\.\d{1,3}\b/;
const POLICY_WORDS = /\b(block(ed|list(ed)?)?|black ?list(ed)?|deny ?list(ed)?|spamhaus|throttl(ed|ing)|rate[- ]limit(ed)?|too many|dmarc|spf|dkim|policy|reputation|spam|tss0\d)\b/i;

/** True when a bounce's text says the sender was refused (never suppress the reader on it). */
export function isPolicyRefusal(text: string | null | undefined): boolean {
  if (!text) return false;
  return POLICY_STATUS.test(text) || POLICY_WORDS.test(text);
}

/**
 * A bounce the provider calls permanent: a policy refusal if its text says so, otherwise hard.
 * A temporary one is soft, whatever its text (a 4.7.x is a policy deferral: also not the reader's).
 */
export function classifyBounce(permanent: boolean, text: string | null | undefined): FeedbackKind {
  if (isPolicyRefusal(text)) return "policy";
  return permanent ? "hard_bounce" : "soft_bounce";
}

/** Our Message-IDs (services/mail/sender.ts): `<{kind}-{outbox id}@{sending domain}>`. */
const OUR_MESSAGE_ID = /^<?(welcome|digest|weekly|transactional)-(\d+)@([^>\s]+)>?$/i;

/** The outbox row a Message-ID names, if it is one of ours (`domain`: our sending domain). */
export function outboxIdOf(messageId: string | null | undefined, domain: string): number | undefined {
  const m = messageId ? OUR_MESSAGE_ID.exec(messageId.trim()) : null;
  if (!m || m[3].toLowerCase() !== domain.toLowerCase()) return undefined;
  const id = Number(m[2]);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** The unsubscribe token in a List-Unsubscribe header of ours (`<https://.../unsubscribe/{token}>`). */
export function unsubscribeTokenOf(listUnsubscribe: string | null | undefined): string | undefined {
  const m = listUnsubscribe ? /\/unsubscribe\/([^>\s/?#]+)>/.exec(listUnsubscribe) : null;
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}
