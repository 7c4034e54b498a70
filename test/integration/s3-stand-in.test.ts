import { Readable } from "node:stream";
import {
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsCommand,
  ListObjectsV2Command, NoSuchKey, NotFound, PutObjectCommand, S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3StandIn } from "../helpers/s3-stand-in.ts";

// The S3 stand-in as @aws-sdk/client-s3 sees it: what it stores is what comes back, listings page
// and roll up nested folders as S3 does (test/integration/replication-s3.test.ts has Litestream's side).

let s3: S3StandIn;
let client: S3Client;
beforeAll(async () => {
  s3 = await new S3StandIn(["b"]).start();
  client = new S3Client({ region: "us-east-1", endpoint: s3.url, forcePathStyle: true, credentials: { accessKeyId: "any", secretAccessKey: "any" } });
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

describe("the S3 stand-in", () => {
  it("stores, returns, heads and deletes objects; a streamed upload arrives aws-chunked and is decoded", async () => {
    await client.send(new PutObjectCommand({ Bucket: "b", Key: "a b/ü.txt", Body: "hello", ContentType: "text/plain", Metadata: { sha256: "x" } }));
    const got = await client.send(new GetObjectCommand({ Bucket: "b", Key: "a b/ü.txt" }));
    expect(await got.Body!.transformToString()).toBe("hello");
    expect(got).toMatchObject({ ContentType: "text/plain", ETag: '"5d41402abc4b2a76b9719d911017c592"', Metadata: { sha256: "x" } });
    const part = await client.send(new GetObjectCommand({ Bucket: "b", Key: "a b/ü.txt", Range: "bytes=1-3" }));
    expect(await part.Body!.transformToString()).toBe("ell");
    expect((await client.send(new HeadObjectCommand({ Bucket: "b", Key: "a b/ü.txt" }))).ContentLength).toBe(5);

    const big = Buffer.alloc(200_000, 7);
    await client.send(new PutObjectCommand({ Bucket: "b", Key: "stream", Body: Readable.from([big.subarray(0, 70_000), big.subarray(70_000)]), ContentLength: big.length }));
    const put = s3.requests.filter((r) => r.op === "PutObject").at(-1)!;
    expect(s3.buckets.get("b")!.get("stream")!.body.equals(big)).toBe(true);
    // What the SDK sent, for the record: a stream goes aws-chunked with a trailing checksum.
    expect(String(put.headers["content-encoding"] ?? "") + String(put.headers["x-amz-content-sha256"])).toMatch(/aws-chunked|STREAMING-/);

    await client.send(new DeleteObjectCommand({ Bucket: "b", Key: "stream" }));
    await expect(client.send(new GetObjectCommand({ Bucket: "b", Key: "stream" }))).rejects.toBeInstanceOf(NoSuchKey);
    await expect(client.send(new HeadObjectCommand({ Bucket: "b", Key: "stream" }))).rejects.toBeInstanceOf(NotFound);
    await client.send(new HeadBucketCommand({ Bucket: "b" }));
    await expect(client.send(new HeadBucketCommand({ Bucket: "nope" }))).rejects.toThrow();
    const del = await client.send(new DeleteObjectsCommand({ Bucket: "b", Delete: { Objects: [{ Key: "a b/ü.txt" }, { Key: "never" }] } }));
    expect(del.Deleted?.map((d) => d.Key)).toEqual(["a b/ü.txt", "never"]);
    expect(s3.keys("b")).toEqual([]);
  });

  it("lists v2 and v1 in pages, nested keys included, folders rolled up with a delimiter", async () => {
    for (let i = 0; i < 7; i++) s3.put("b", `r/generations/g${i % 2}/wal/${String(i).padStart(4, "0")}.lz4`, "x");
    s3.put("b", "r/top.txt", "x");
    const v2 = async (input: { Prefix?: string; Delimiter?: string; MaxKeys?: number; StartAfter?: string }) => {
      const keys: string[] = [];
      const prefixes: string[] = [];
      let pages = 0;
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: "b", ...input, ContinuationToken: token }));
        pages++;
        expect(page.KeyCount).toBe((page.Contents?.length ?? 0) + (page.CommonPrefixes?.length ?? 0));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        prefixes.push(...(page.CommonPrefixes ?? []).map((p) => p.Prefix!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return { keys, prefixes, pages };
    };
    const all = await v2({ Prefix: "r/", MaxKeys: 3 });
    expect(all.keys).toHaveLength(8);
    expect(all.pages).toBe(3);
    expect(all.keys).toEqual([...all.keys].sort());
    expect(await v2({ Prefix: "r/generations/", Delimiter: "/", MaxKeys: 1 })).toEqual({ keys: [], prefixes: ["r/generations/g0/", "r/generations/g1/"], pages: 2 });
    expect((await v2({ Prefix: "r/", Delimiter: "/" }))).toMatchObject({ keys: ["r/top.txt"], prefixes: ["r/generations/"] });
    expect((await v2({ Prefix: "r/generations/g0/wal/", StartAfter: "r/generations/g0/wal/0002.lz4" })).keys).toEqual(["r/generations/g0/wal/0004.lz4", "r/generations/g0/wal/0006.lz4"]);
    const page = await client.send(new ListObjectsV2Command({ Bucket: "b", Prefix: "r/top" }));
    expect(page.Contents![0]).toMatchObject({ Key: "r/top.txt", Size: 1, StorageClass: "STANDARD", ETag: '"9dd4e461268c8034f5c8564e155c67a6"' });
    expect(page.Contents![0].LastModified).toBeInstanceOf(Date);

    const v1keys: string[] = [];
    let marker: string | undefined;
    for (;;) {
      const p = await client.send(new ListObjectsCommand({ Bucket: "b", Prefix: "r/", MaxKeys: 5, Marker: marker }));
      v1keys.push(...(p.Contents ?? []).map((o) => o.Key!));
      if (!p.IsTruncated) break;
      marker = p.NextMarker ?? p.Contents!.at(-1)!.Key;
    }
    expect(v1keys).toEqual(all.keys);
  });
});
