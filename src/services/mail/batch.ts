import { enhancedStatus } from "../../integrations/mail/smtp.ts";
import type { MailSendError } from "../../integrations/mail/types.ts";
import type { ClaimedRow } from "../../store/mail/outbox.ts";
import type { AppContext } from "../platform/context.ts";
import type { DigestCache } from "./digest-cache.ts";

// One batch of the mail sender (sender.ts), as its steps share it: claim.ts leases the rows,
// messages.ts and deliver.ts hand them to the relay, settle.ts records what came of each.

export interface SendOptions {
  /** Rows claimed at once (default MAIL_BATCH_SIZE). */
  batchSize?: number;
  /** SMTP connections (default MAIL_CONCURRENCY); twice as many messages are in flight, so a connection that finishes one finds the next already waiting. */
  concurrency?: number;
  /** Epoch ms clock; defaults to the configured clock. Tests move it forward to pass a backoff. */
  now?: () => number;
  /**
   * Stops the batch (SIGTERM): no new message is started, and what is not sent is put back as
   * pending, due at once, its attempt not counted. Close the mailer as well to cut sends in flight.
   */
  signal?: AbortSignal;
  /**
   * What carries over from batch to batch (each edition's prepared parts and digest template): give
   * the same one to every batch of a run (drainDueMail does); without it each batch makes its own.
   */
  cache?: DigestCache;
}

export interface SendResult {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
  cancelled: number;
  /** Rows put back untouched by a delivery fault (the relay, not the recipient), due again when the pause ends. */
  deferred: number;
}

/** A refusal at RCPT TO, held until the batch ends says whether it was the reader's or the relay's. */
export interface HeldRefusal {
  row: ClaimedRow;
  e: MailSendError;
  subscriberId: number | undefined;
}

export interface MailBatch {
  ctx: AppContext;
  cfg: AppContext["config"]["mail"];
  opts: SendOptions;
  now: () => number;
  owner: string;
  /** The claimed rows' ids, in order: their rows are read a slice at a time as delivery reaches them (claim.ts). */
  ids: number[];
  /** The slice of rows read last: those of `ids` from `start` on. */
  slice: { start: number; end: number; rows: Map<number, ClaimedRow> };
  cache: DigestCache;
  result: SendResult;
  /**
   * The lease runs until `until` by this process's clock: until then no other sender can claim
   * these rows, so the per-row check needs no read. After a renewal came too late (this process
   * stalled), `certain` is false and every row is checked in the database.
   */
  lease: { ms: number; until: number; certain: boolean };
  /**
   * A write that failed (a full disk): from then on nothing more is handed to the relay, since no
   * delivery could be recorded; the batch ends and the error is thrown (DeliveryRecordError).
   */
  writeFailed: unknown;
  unrecorded: number;
  /** Acceptances waiting for their commit (one transaction per event-loop turn). */
  accepted: Array<{ id: number; messageId: string; at: string }>;
  /** The first delivery fault of this batch: no new message is started after it. */
  fault: MailSendError | undefined;
  /**
   * Refusals at RCPT TO, settled when the batch ends: the same reply for most of the batch (or for
   * RELAY_ALIKE recipients before any acceptance) is the relay's, a fault like any other.
   */
  held: HeldRefusal[];
  alike: Map<string, number>;
  relayRefusal: { kind: string; n: number; e: MailSendError } | undefined;
  /** Anything else thrown (a bug) also stops the batch, and is thrown once it has ended. */
  crashed: { err: unknown } | undefined;
  /** Rows (of `ids`) handed to delivery so far, in order: those after them were not tried. */
  started: number;
}

export const emptyResult = (): SendResult => ({ claimed: 0, sent: 0, retried: 0, failed: 0, cancelled: 0, deferred: 0 });

const MAX_BACKOFF_MS = 6 * 3600_000;
/** The longest pause after delivery faults in a row: a relay that comes back is used again within this. */
const MAX_PAUSE_MS = 5 * 60_000;

/**
 * Refusals at RCPT TO of this many recipients with the same reply (code and enhanced status), when
 * they are most of a batch or come before any acceptance, are the relay speaking, not the readers.
 */
export const RELAY_ALIKE = 5;

/** The pause after `faults` delivery faults in a row: from the retry base (at most 10 s), doubling, capped at 5 minutes. */
export function pauseMs(retryBaseSeconds: number, faults: number): number {
  return Math.min(MAX_PAUSE_MS, Math.min(retryBaseSeconds * 1000, 10_000) * 2 ** Math.max(0, faults - 1));
}

/** Exponential backoff: base, 2x base, 4x base... capped at 6 hours. */
export function backoffMs(baseSeconds: number, attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, baseSeconds * 1000 * 2 ** Math.max(0, attempts - 1));
}

/** What a refusal says, for telling one reader's refusal from the same one for everybody: its code and enhanced status. */
export function replyKind(e: MailSendError): string {
  return [e.responseCode ?? "", enhancedStatus(e.message)?.status ?? ""].join(" ").trim();
}
