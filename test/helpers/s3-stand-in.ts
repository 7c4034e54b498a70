import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

/**
 * A small S3 stand-in for tests: node:http on 127.0.0.1 (a free port), path-style addressing only
 * (`http://127.0.0.1:PORT/bucket/key`), objects kept in memory. It answers what Litestream 0.3.13
 * (AWS SDK for Go v1) and @aws-sdk/client-s3 v3 send: PutObject (plain, Content-MD5 checked, or
 * aws-chunked bodies decoded), multipart uploads (Go's s3manager switches to them above 5 MiB),
 * GetObject (one byte range at most), HeadObject, DeleteObject, DeleteObjects (POST ?delete),
 * ListObjectsV2 and ListObjects v1 (prefix, delimiter with CommonPrefixes, max-keys,
 * continuation-token / start-after / marker, encoding-type=url), HeadBucket and GetBucketLocation.
 *
 * Any credentials are accepted: signatures are NOT checked. Unlike s3rver, a listing goes through
 * every key under the prefix, however deeply nested, in S3's order (UTF-8 byte order of the keys).
 * Every request is recorded in `requests` (what the clients really sent).
 */
export interface StoredObject {
  body: Buffer;
  etag: string;
  lastModified: Date;
  contentType: string;
  metadata: Record<string, string>;
}

export interface S3Request {
  method: string;
  bucket: string;
  key: string;
  query: URLSearchParams;
  /** The S3 operation as this stand-in understood it (PutObject, ListObjectsV2...). */
  op: string;
  status: number;
  headers: http.IncomingHttpHeaders;
}

interface Upload {
  bucket: string;
  key: string;
  parts: Map<number, Buffer>;
  contentType: string;
  metadata: Record<string, string>;
}

class S3Error extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const NS = "http://s3.amazonaws.com/doc/2006-03-01/";
const xmlEscape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const xmlUnescape = (s: string) =>
  s.replace(/&(#x?[0-9a-f]+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (named[e.toLowerCase()]) return named[e.toLowerCase()];
    return String.fromCodePoint(e[1].toLowerCase() === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
const md5 = (b: Buffer) => crypto.createHash("md5").update(b).digest();
/** S3 sorts keys by their UTF-8 bytes. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * An aws-chunked body (`x-amz-content-sha256: STREAMING-...` or `Content-Encoding: aws-chunked`):
 * `<hex size>[;chunk-signature=...]\r\n<bytes>\r\n` ... `0...\r\n` then optional trailers.
 */
export function decodeAwsChunked(raw: Buffer, trailers: Record<string, string> = {}): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf("\r\n", at);
    if (eol < 0) throw new S3Error(400, "IncompleteBody", "aws-chunked body ends inside a chunk header");
    const size = parseInt(raw.subarray(at, eol).toString("latin1").split(";")[0], 16);
    if (!Number.isFinite(size)) throw new S3Error(400, "InvalidRequest", "aws-chunked chunk size unreadable");
    if (size === 0) {
      for (const line of raw.subarray(eol + 2).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      return Buffer.concat(parts);
    }
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

export class S3StandIn {
  readonly buckets = new Map<string, Map<string, StoredObject>>();
  readonly requests: S3Request[] = [];
  private uploads = new Map<string, Upload>();
  private server = http.createServer((req, res) => void this.handle(req, res));
  url = "";

  constructor(buckets: string[]) {
    for (const b of buckets) this.buckets.set(b, new Map());
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** The keys of a bucket under `prefix`, in S3's order. */
  keys(bucket: string, prefix = ""): string[] {
    return [...(this.buckets.get(bucket)?.keys() ?? [])].filter((k) => k.startsWith(prefix)).sort(byteOrder);
  }

  /** Stores an object directly (as a client's PutObject would). */
  put(bucket: string, key: string, body: Buffer | string, lastModified = new Date()): void {
    const b = Buffer.from(body);
    this.bucket(bucket).set(key, { body: b, etag: `"${md5(b).toString("hex")}"`, lastModified, contentType: "binary/octet-stream", metadata: {} });
  }

  private bucket(name: string): Map<string, StoredObject> {
    const b = this.buckets.get(name);
    if (!b) throw new S3Error(404, "NoSuchBucket", `The specified bucket does not exist: ${name}`);
    return b;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://s3");
    const [, bucket = "", ...rest] = url.pathname.split("/");
    const name = decodeURIComponent(bucket);
    const key = decodeURIComponent(rest.join("/"));
    const entry: S3Request = { method: req.method ?? "", bucket: name, key, query: url.searchParams, op: "", status: 0, headers: req.headers };
    this.requests.push(entry);
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const reply = this.route(req, url, name, key, body, entry);
      entry.status = reply.status;
      res.writeHead(reply.status, { "x-amz-request-id": crypto.randomUUID(), ...reply.headers });
      res.end(req.method === "HEAD" ? undefined : reply.body);
    } catch (err) {
      const e = err instanceof S3Error ? err : new S3Error(500, "InternalError", String(err));
      entry.status = e.status;
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${e.code}</Code><Message>${xmlEscape(e.message)}</Message><Resource>${xmlEscape(url.pathname)}</Resource><RequestId>stand-in</RequestId></Error>`;
      res.writeHead(e.status, { "Content-Type": "application/xml" });
      res.end(req.method === "HEAD" ? undefined : xml);
    }
  }

  private route(req: http.IncomingMessage, url: URL, bucket: string, key: string, body: Buffer, entry: S3Request): Reply {
    const q = url.searchParams;
    const op = (name: string) => (entry.op = name);
    if (!bucket) throw new S3Error(400, "InvalidRequest", "path-style requests only: /bucket/key");
    const objects = this.bucket(bucket);
    if (!key) {
      if (req.method === "HEAD") return op("HeadBucket"), { status: 200 };
      if (req.method === "GET" && q.has("location")) return op("GetBucketLocation"), xml(`<LocationConstraint xmlns="${NS}"></LocationConstraint>`);
      if (req.method === "GET") return op(q.get("list-type") === "2" ? "ListObjectsV2" : "ListObjects"), xml(listObjects(objects, bucket, q));
      if (req.method === "POST" && q.has("delete")) return op("DeleteObjects"), xml(this.deleteObjects(objects, req, body));
      throw new S3Error(405, "MethodNotAllowed", `${req.method} on a bucket`);
    }
    if (req.method === "POST" && q.has("uploads")) {
      op("CreateMultipartUpload");
      const id = crypto.randomUUID();
      this.uploads.set(id, { bucket, key, parts: new Map(), contentType: req.headers["content-type"] ?? "binary/octet-stream", metadata: metadataOf(req) });
      return xml(`<InitiateMultipartUploadResult xmlns="${NS}"><Bucket>${xmlEscape(bucket)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
    }
    if (q.has("uploadId")) return this.multipart(req, q, objects, bucket, key, uploadBody(req, body), op);
    if (req.method === "PUT") {
      op(req.headers["x-amz-copy-source"] ? "CopyObject" : "PutObject");
      if (req.headers["x-amz-copy-source"]) throw new S3Error(501, "NotImplemented", "CopyObject is not supported by the stand-in");
      const data = uploadBody(req, body);
      const stored: StoredObject = {
        body: data, etag: `"${md5(data).toString("hex")}"`, lastModified: new Date(),
        contentType: req.headers["content-type"] ?? "binary/octet-stream", metadata: metadataOf(req),
      };
      objects.set(key, stored);
      return { status: 200, headers: { ETag: stored.etag } };
    }
    if (req.method === "GET" || req.method === "HEAD") {
      op(req.method === "GET" ? "GetObject" : "HeadObject");
      const o = objects.get(key);
      if (!o) throw new S3Error(404, "NoSuchKey", "The specified key does not exist.");
      return getObject(o, req.headers.range);
    }
    if (req.method === "DELETE") {
      op("DeleteObject");
      objects.delete(key);
      return { status: 204 };
    }
    throw new S3Error(405, "MethodNotAllowed", `${req.method} on an object`);
  }

  private multipart(req: http.IncomingMessage, q: URLSearchParams, objects: Map<string, StoredObject>, bucket: string, key: string, body: Buffer, op: (n: string) => void): Reply {
    const id = q.get("uploadId")!;
    const upload = this.uploads.get(id);
    if (!upload || upload.bucket !== bucket || upload.key !== key) throw new S3Error(404, "NoSuchUpload", "The specified upload does not exist.");
    if (req.method === "PUT") {
      op("UploadPart");
      upload.parts.set(Number(q.get("partNumber")), body);
      return { status: 200, headers: { ETag: `"${md5(body).toString("hex")}"` } };
    }
    if (req.method === "DELETE") {
      op("AbortMultipartUpload");
      this.uploads.delete(id);
      return { status: 204 };
    }
    op("CompleteMultipartUpload");
    const numbers = [...body.toString("utf8").matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => Number(m[1]));
    const parts = numbers.map((n) => upload.parts.get(n) ?? Buffer.alloc(0));
    const data = Buffer.concat(parts);
    const etag = `"${md5(Buffer.concat(parts.map(md5))).toString("hex")}-${parts.length}"`;
    objects.set(key, { body: data, etag, lastModified: new Date(), contentType: upload.contentType, metadata: upload.metadata });
    this.uploads.delete(id);
    return xml(`<CompleteMultipartUploadResult xmlns="${NS}"><Bucket>${xmlEscape(bucket)}</Bucket><Key>${xmlEscape(key)}</Key><ETag>${xmlEscape(etag)}</ETag></CompleteMultipartUploadResult>`);
  }

  private deleteObjects(objects: Map<string, StoredObject>, req: http.IncomingMessage, raw: Buffer): string {
    const body = uploadBody(req, raw).toString("utf8");
    const quiet = /<Quiet>\s*true\s*<\/Quiet>/i.test(body);
    const keys = [...body.matchAll(/<Object>\s*<Key>([\s\S]*?)<\/Key>/g)].map((m) => xmlUnescape(m[1]));
    for (const k of keys) objects.delete(k);
    const deleted = quiet ? "" : keys.map((k) => `<Deleted><Key>${xmlEscape(k)}</Key></Deleted>`).join("");
    return `<DeleteResult xmlns="${NS}">${deleted}</DeleteResult>`;
  }
}

interface Reply {
  status: number;
  headers?: Record<string, string | number>;
  body?: Buffer | string;
}

function xml(body: string): Reply {
  return { status: 200, headers: { "Content-Type": "application/xml" }, body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}` };
}

function metadataOf(req: http.IncomingMessage): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const [h, v] of Object.entries(req.headers)) if (h.startsWith("x-amz-meta-") && typeof v === "string") meta[h] = v;
  return meta;
}

/**
 * The object bytes of a PutObject / UploadPart / DeleteObjects body: aws-chunked decoded, Content-MD5
 * and a CRC32 checksum (header or trailer, as @aws-sdk/client-s3 sends by default) checked.
 */
function uploadBody(req: http.IncomingMessage, raw: Buffer): Buffer {
  const sha = String(req.headers["x-amz-content-sha256"] ?? "");
  const chunked = sha.startsWith("STREAMING-") || /aws-chunked/.test(String(req.headers["content-encoding"] ?? ""));
  const trailers: Record<string, string> = {};
  const data = chunked ? decodeAwsChunked(raw, trailers) : raw;
  const crc32 = req.headers["x-amz-checksum-crc32"] ?? trailers["x-amz-checksum-crc32"];
  if (crc32) {
    const want = Buffer.alloc(4);
    want.writeUInt32BE(zlib.crc32(data));
    if (want.toString("base64") !== crc32) throw new S3Error(400, "BadDigest", "The CRC32 you specified did not match the calculated checksum.");
  }
  const decoded = req.headers["x-amz-decoded-content-length"];
  if (chunked && decoded !== undefined && Number(decoded) !== data.length) throw new S3Error(400, "IncompleteBody", `x-amz-decoded-content-length ${decoded}, body ${data.length} bytes`);
  const contentMd5 = req.headers["content-md5"];
  if (contentMd5 && md5(data).toString("base64") !== contentMd5) throw new S3Error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
  return data;
}

function getObject(o: StoredObject, range: string | undefined): Reply {
  const headers: Record<string, string | number> = {
    "Content-Type": o.contentType, ETag: o.etag, "Last-Modified": o.lastModified.toUTCString(), "Accept-Ranges": "bytes", ...o.metadata,
  };
  const m = range ? /^bytes=(\d*)-(\d*)$/.exec(range) : null;
  if (!m || (m[1] === "" && m[2] === "")) return { status: 200, headers: { ...headers, "Content-Length": o.body.length }, body: o.body };
  const size = o.body.length;
  const start = m[1] === "" ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const end = m[1] === "" || m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) throw new S3Error(416, "InvalidRange", "The requested range is not satisfiable");
  const part = o.body.subarray(start, end + 1);
  return { status: 206, headers: { ...headers, "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": part.length }, body: part };
}

/**
 * ListObjects (v1) and ListObjectsV2 over the whole bucket: keys under the prefix after the marker,
 * those holding the delimiter past the prefix rolled up into CommonPrefixes (each counts once
 * toward max-keys). The continuation token is the last key or common prefix returned, base64.
 */
export function listObjects(objects: Map<string, StoredObject>, bucket: string, q: URLSearchParams): string {
  const v2 = q.get("list-type") === "2";
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") ?? "";
  const maxKeys = Math.min(1000, Math.max(0, Number(q.get("max-keys") ?? 1000)));
  const urlEncoded = q.get("encoding-type") === "url";
  const token = q.get("continuation-token");
  const after = v2 ? (token ? Buffer.from(token, "base64").toString("utf8") : q.get("start-after") ?? "") : q.get("marker") ?? "";
  const contents: string[] = [];
  const prefixes: string[] = [];
  let last = "";
  let truncated = false;
  for (const key of [...objects.keys()].filter((k) => k.startsWith(prefix)).sort(byteOrder)) {
    if (after && byteOrder(key, after) <= 0) continue;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    const rolled = cut >= 0 ? key.slice(0, cut + delimiter.length) : null;
    // Keys under a common prefix already returned (here or on an earlier page) are skipped.
    if (rolled && (prefixes.at(-1) === rolled || (after && after.startsWith(rolled)))) continue;
    if (contents.length + prefixes.length >= maxKeys) {
      truncated = true;
      break;
    }
    if (rolled) prefixes.push(rolled);
    else contents.push(key);
    last = rolled ?? key;
  }
  const enc = (s: string) => xmlEscape(urlEncoded ? encodeURIComponent(s).replaceAll("%2F", "/") : s);
  const parts = [`<Name>${xmlEscape(bucket)}</Name>`, `<Prefix>${enc(prefix)}</Prefix>`];
  if (v2) {
    if (token) parts.push(`<ContinuationToken>${xmlEscape(token)}</ContinuationToken>`);
    if (q.has("start-after")) parts.push(`<StartAfter>${enc(q.get("start-after")!)}</StartAfter>`);
    parts.push(`<KeyCount>${contents.length + prefixes.length}</KeyCount>`);
  } else parts.push(`<Marker>${enc(after)}</Marker>`);
  parts.push(`<MaxKeys>${maxKeys}</MaxKeys>`);
  if (delimiter) parts.push(`<Delimiter>${enc(delimiter)}</Delimiter>`);
  if (urlEncoded) parts.push("<EncodingType>url</EncodingType>");
  parts.push(`<IsTruncated>${truncated}</IsTruncated>`);
  if (truncated && v2) parts.push(`<NextContinuationToken>${Buffer.from(last).toString("base64")}</NextContinuationToken>`);
  // S3 gives NextMarker only with a delimiter; without one the client continues from the last key.
  if (truncated && !v2 && delimiter) parts.push(`<NextMarker>${enc(last)}</NextMarker>`);
  for (const key of contents) {
    const o = objects.get(key)!;
    parts.push(`<Contents><Key>${enc(key)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>${xmlEscape(o.etag)}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`);
  }
  for (const p of prefixes) parts.push(`<CommonPrefixes><Prefix>${enc(p)}</Prefix></CommonPrefixes>`);
  return `<ListBucketResult xmlns="${NS}">${parts.join("")}</ListBucketResult>`;
}
