import crypto from "node:crypto";
import fs from "node:fs";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import type { S3TargetConfig } from "../../config/targets.ts";
import { s3Client } from "../publish/s3.ts";
import { PRIVATE_FILE_MODE } from "../../lib/private-files.ts";

/**
 * Database backups in an S3-compatible bucket (the publish target's client and settings): each a
 * whole SQLite file under `{prefix}citydaily-<UTC stamp>.db`, its SHA-256 in `x-amz-meta-sha256`
 * (checked again on download). Names sort by time, so the newest is the last listed.
 */
export interface BackupStore {
  upload(file: string, name: string): Promise<{ key: string; bytes: number }>;
  /** Backup names, oldest first. */
  list(): Promise<string[]>;
  /** Downloads one backup to `file`; rejects if its SHA-256 does not match the one recorded at upload. */
  download(name: string, file: string): Promise<void>;
  remove(name: string): Promise<void>;
}

const NAME = /^citydaily-\d{8}T\d{6}Z\.db$/;

export function s3BackupStore(config: S3TargetConfig): BackupStore {
  const client = s3Client(config);
  const key = (name: string) => `${config.prefix}${name}`;
  const sha256 = async (file: string) => {
    const hash = crypto.createHash("sha256");
    await pipeline(fs.createReadStream(file), hash);
    return hash.digest("hex");
  };
  return {
    async upload(file, name) {
      const bytes = fs.statSync(file).size;
      const digest = await sha256(file);
      // Uploaded under a temporary key, then copied into place (a copy is whole or absent): an upload
      // cut midway (the server stopping, a crash) never leaves a half backup under a backup's name on a
      // store that keeps what it received. Temporary keys are not backup names, so listing skips them.
      const partial = `${key(name)}.partial`;
      await client.send(new PutObjectCommand({
        Bucket: config.bucket, Key: partial, Body: fs.createReadStream(file), ContentLength: bytes,
        ContentType: "application/vnd.sqlite3", Metadata: { sha256: digest },
      }));
      await client.send(new CopyObjectCommand({
        Bucket: config.bucket, Key: key(name), CopySource: `${config.bucket}/${partial.split("/").map(encodeURIComponent).join("/")}`, MetadataDirective: "COPY",
      }));
      await client.send(new DeleteObjectCommand({ Bucket: config.bucket, Key: partial }));
      return { key: key(name), bytes };
    },
    async list() {
      const names: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: config.bucket, Prefix: config.prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) {
          const name = (o.Key ?? "").slice(config.prefix.length);
          if (NAME.test(name)) names.push(name);
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return names.sort();
    },
    async download(name, file) {
      const got = await client.send(new GetObjectCommand({ Bucket: config.bucket, Key: key(name) }));
      const tmp = `${file}.download`;
      await pipeline(got.Body as Readable, fs.createWriteStream(tmp, { mode: PRIVATE_FILE_MODE }));
      const expected = got.Metadata?.sha256;
      if (expected && (await sha256(tmp)) !== expected) {
        fs.rmSync(tmp, { force: true });
        throw new Error(`backup ${name}: SHA-256 does not match the one recorded at upload`);
      }
      fs.renameSync(tmp, file);
    },
    async remove(name) {
      await client.send(new DeleteObjectCommand({ Bucket: config.bucket, Key: key(name) }));
    },
  };
}
