import { createRequire } from "node:module";
import path from "node:path";
import type { Transform } from "node:stream";
import { describe, expect, it } from "vitest";
import { quickDataStream } from "../../src/integrations/mail/smtp-data-stream.ts";

// nodemailer's own DATA stream, the one every message of the raw pool goes through (not among the
// package's exports: loaded by its file).
const require = createRequire(import.meta.url);
const { default: DataStream } = require(path.resolve("node_modules/nodemailer/dist/cjs/smtp-connection/data-stream.js")) as { default: new () => Transform & { inByteCount: number; outByteCount: number } };

/** What a stream writes to the socket for these chunks, and its counters. */
async function through(stream: Transform & { inByteCount?: number; outByteCount?: number }, chunks: Buffer[]) {
  const out: Buffer[] = [];
  stream.on("data", (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => stream.on("end", resolve));
  for (const c of chunks) stream.write(c);
  stream.end();
  await ended;
  return { bytes: Buffer.concat(out).toString("latin1"), writes: out.length, inByteCount: stream.inByteCount, outByteCount: stream.outByteCount };
}

/** A random message of CRLF lines, some with bare CR or LF, dots at line starts, and so on. */
function message(seed: number): string {
  let x = seed;
  const rnd = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31) % n);
  const any = ["Subject: hi", "a line", ".", "..dots", "=\r\n", "\r", "\n", "\r\n", ".\r\n", "x.y", "\r\n.", "é", ""];
  // One message in three is as a composer writes it (CRLF line ends only): the quick path.
  const pieces = seed % 3 ? any : ["Subject: hi", "a line", ".", "..dots", ".\r\n", "x.y", "=\r\n", "\r\n", "\r\n.", "é", ""];
  let s = "";
  for (let i = rnd(40); i >= 0; i--) s += pieces[rnd(pieces.length)] + (rnd(3) ? "\r\n" : "");
  return s;
}

/** The message cut into chunks at random places (one chunk, as the raw pool writes it, when `cuts` is 0). */
function chunked(text: string, cuts: number, seed: number): Buffer[] {
  const b = Buffer.from(text, "latin1");
  const at = [...new Set(Array.from({ length: cuts }, (_, i) => ((seed * 7919 + i * 104729) % (b.length + 1))))].sort((p, q) => p - q);
  const out: Buffer[] = [];
  let last = 0;
  for (const p of [...at, b.length]) {
    out.push(b.subarray(last, p));
    last = p;
  }
  return out;
}

describe("the quick DATA stream", () => {
  it("writes exactly what nodemailer's DATA stream writes, whatever the message and its chunks", async () => {
    for (let seed = 1; seed <= 400; seed++) {
      const text = message(seed);
      const chunks = chunked(text, seed % 4, seed);
      const want = await through(new DataStream(), chunks);
      const got = await through(quickDataStream(new DataStream()), chunks);
      expect({ ...got, writes: undefined }, JSON.stringify(text)).toEqual({ ...want, writes: undefined });
    }
  });

  it("sends a composed message and its ending in one write", async () => {
    const digest = Buffer.from(`Subject: hi\r\n\r\n${"Partly cloudy, high of 48=C2=B0F=\r\n. Sunrise 6:51 =\r\n".repeat(300)}`, "latin1");
    const want = await through(new DataStream(), [digest]);
    const got = await through(quickDataStream(new DataStream()), [digest]);
    expect(got.bytes).toBe(want.bytes);
    expect(want.writes).toBe(2);
    expect(got.writes).toBe(1);
  });
});
