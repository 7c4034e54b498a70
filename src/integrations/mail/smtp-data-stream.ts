import type { Transform } from "node:stream";
import type SMTPConnection from "nodemailer/lib/smtp-connection";

/**
 * nodemailer's DATA stream (smtp-connection/data-stream.js) looks at every byte of every message in
 * JavaScript to stuff dots and mend bare CR and LF: for a 13 KiB digest that loop was the largest
 * single cost of the sender (a quarter of its CPU), although a composed message has CRLF line ends
 * only and few lines that start with a dot. And its ending ".\r\n" went out in a write of its own.
 *
 * `withQuickDataStream` keeps nodemailer's stream, its counters and its conversation, and changes two
 * things on each stream the connection makes: in a chunk with CRLF line ends only, the lines that
 * start with a dot are found by V8's string search and stuffed; any other chunk
 * goes through nodemailer's own loop. And the last chunk is held back and leaves with the ending, in
 * one write. The bytes on the wire are the same (test/unit/smtp-data-stream.test.ts).
 *
 * It reaches into one method nodemailer does not document (`_createSendStream`, which makes the
 * stream for each message): if a release renames it, the connection is left as it is.
 */
export function withQuickDataStream(smtp: SMTPConnection): SMTPConnection {
  const internal = smtp as unknown as { _createSendStream?: (callback: unknown) => Transform };
  const make = internal._createSendStream;
  if (typeof make !== "function") return smtp;
  internal._createSendStream = (callback) => quickDataStream(make.call(smtp, callback));
  return smtp;
}

/** The state nodemailer's DataStream keeps (data-stream.js). */
interface DataStreamState extends Transform {
  inByteCount: number;
  outByteCount: number;
  lastByte: number | false;
}

type Done = (err?: Error | null) => void;

/** Makes nodemailer's DataStream `stream` quick for chunks with CRLF line ends only (see above). */
export function quickDataStream(stream: Transform): Transform {
  const s = stream as DataStreamState;
  if (typeof s.inByteCount !== "number" || typeof s.outByteCount !== "number") return stream;
  const slow = s._transform.bind(s);
  let held: Buffer | undefined;
  const release = () => {
    if (held) s.push(held);
    held = undefined;
  };
  s._transform = (chunk: Buffer | string, encoding: BufferEncoding, done: Done) => {
    const dots = Buffer.isBuffer(chunk) && chunk.length > 0 ? dotsToStuff(chunk, s.lastByte) : undefined;
    release();
    if (!dots) return slow(chunk, encoding, done);
    const c = chunk as Buffer;
    held = dots.length === 0 ? c : stuffed(c, dots);
    s.inByteCount += c.length;
    s.outByteCount += held.length;
    s.lastByte = c[c.length - 1]!;
    done();
  };
  s._flush = (done: Done) => {
    const end = s.lastByte === 0x0a ? ".\r\n" : s.lastByte === 0x0d ? "\n.\r\n" : "\r\n.\r\n";
    s.outByteCount += end.length;
    s.push(held ? Buffer.concat([held, Buffer.from(end)]) : Buffer.from(end));
    held = undefined;
    done();
  };
  return stream;
}

const CR = 0x0d;
const LF = 0x0a;
const DOT = 0x2e;
const STUFFING = Buffer.from(".");

/** A CR not followed by LF, or an LF not preceded by CR (in one chunk). */
const BARE_LINE_END = /\r(?!\n)|(?<!\r)\n/;

/**
 * Where nodemailer's loop would stuff a dot into `chunk` (the stream's last byte before it is
 * `lastByte`, false at the start): the dots that start a line. Undefined when it might also mend a
 * line end (a CR not followed by LF, an LF not preceded by CR): that chunk goes nodemailer's way.
 * Searched in the chunk as a one-byte string, where V8's own search is quickest.
 */
export function dotsToStuff(chunk: Buffer, lastByte: number | false): number[] | undefined {
  const first = chunk[0];
  if ((lastByte === CR && first !== LF) || (first === LF && lastByte !== CR)) return undefined;
  const text = chunk.toString("latin1");
  if (BARE_LINE_END.test(text)) return undefined;
  const dots: number[] = first === DOT && (lastByte === LF || lastByte === false) ? [0] : [];
  for (let i = text.indexOf("\n."); i !== -1; i = text.indexOf("\n.", i + 2)) dots.push(i + 1);
  return dots;
}

/** `chunk` with a dot put before each of `dots`. */
function stuffed(chunk: Buffer, dots: number[]): Buffer {
  const pieces: Buffer[] = [];
  let last = 0;
  for (const at of dots) {
    pieces.push(chunk.subarray(last, at), STUFFING);
    last = at;
  }
  pieces.push(chunk.subarray(last));
  return Buffer.concat(pieces, chunk.length + dots.length);
}
