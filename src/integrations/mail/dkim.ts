/** DKIM settings as nodemailer's signer takes them (`DKIM_DOMAIN`, `DKIM_SELECTOR`, `DKIM_PRIVATE_KEY`). */
export interface DkimOptions {
  domainName: string;
  keySelector: string;
  privateKey: string;
  /** Colon-separated header names to sign (nodemailer's `headerFieldNames`). */
  headerFieldNames?: string;
  /** Colon-separated header names not to sign even if listed (`DKIM_SKIP_FIELDS`). */
  skipFields?: string;
}

/**
 * The headers the signature covers: nodemailer's default list (RFC 6376 section 5.4) plus the two
 * the mailbox providers' sender rules need signed. Gmail honours one-click unsubscribe only when
 * `List-Unsubscribe-Post` is covered by a valid DKIM signature (RFC 8058 section 4), and its
 * feedback loop only reads a signed `Feedback-ID`. A header listed but absent is simply skipped.
 */
export const DKIM_SIGNED_HEADERS = [
  "From", "Sender", "Reply-To", "Subject", "Date", "Message-ID", "To", "Cc", "MIME-Version",
  "Content-Type", "Content-Transfer-Encoding", "Content-ID", "Content-Description",
  "Resent-Date", "Resent-From", "Resent-Sender", "Resent-To", "Resent-Cc", "Resent-Message-ID",
  "In-Reply-To", "References",
  "List-Id", "List-Help", "List-Unsubscribe", "List-Unsubscribe-Post", "List-Subscribe", "List-Post", "List-Owner", "List-Archive",
  "Feedback-ID",
].join(":");

/** The configured key with the header list above (a list set explicitly is kept). */
export function withSignedHeaders(dkim: DkimOptions | undefined): DkimOptions | undefined {
  return dkim && { headerFieldNames: DKIM_SIGNED_HEADERS, ...dkim };
}
