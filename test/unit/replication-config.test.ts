import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replicaConfig } from "../../src/config/replication.ts";
import { litestreamBinary, litestreamYaml, writeLitestreamConfig } from "../../src/integrations/backup/litestream.ts";

describe("replication settings", () => {
  it("without REPLICA_URL nothing is configured; the defaults are 72 h of retention, hourly snapshots, 1 s syncs", () => {
    expect(replicaConfig({})).toEqual({ retention: "72h", snapshotInterval: "1h", syncInterval: "1s", failAfterSeconds: 60, logLevel: "warn" });
  });

  it("file:// and s3:// replicas; the bucket settings are the publish target's (endpoint, path style)", () => {
    expect(replicaConfig({ REPLICA_URL: "file:///var/lib/citydaily-replica/" }).target).toEqual({ kind: "file", path: "/var/lib/citydaily-replica" });
    const s3 = replicaConfig({ REPLICA_URL: "s3://citydaily-db/replica", AWS_ENDPOINT_URL: "http://127.0.0.1:9000", S3_FORCE_PATH_STYLE: "true", AWS_REGION: "auto" });
    expect(s3.target).toMatchObject({ kind: "s3", bucket: "citydaily-db", prefix: "replica/", endpoint: "http://127.0.0.1:9000", forcePathStyle: true, region: "auto" });
  });

  it("refuses what it cannot use, naming the setting", () => {
    expect(() => replicaConfig({ REPLICA_URL: "ftp://x/y" })).toThrow(/REPLICA_URL must be file:\/\/\/path or s3:\/\/bucket\/prefix/);
    expect(() => replicaConfig({ REPLICA_URL: "file:///" })).toThrow(/REPLICA_URL must name a folder/);
    expect(() => replicaConfig({ REPLICA_RETENTION: "3 days" })).toThrow(/REPLICA_RETENTION must be a duration/);
    expect(() => replicaConfig({ REPLICA_FAIL_AFTER_SECONDS: "0" })).toThrow(/REPLICA_FAIL_AFTER_SECONDS/);
  });

  it("the config file names the database and its replica, holds no credentials, and Litestream 0.3.13 reads it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-ls-config-"));
    try {
      const env = { REPLICA_URL: "s3://citydaily-db/replica", AWS_ENDPOINT_URL: "http://127.0.0.1:9000", S3_FORCE_PATH_STYLE: "true", AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret-example", REPLICA_RETENTION: "24h" };
      const yaml = litestreamYaml(path.join(dir, "citydaily.db"), replicaConfig(env));
      expect(yaml).toContain('bucket: "citydaily-db"');
      expect(yaml).toContain('path: "replica"');
      expect(yaml).toContain('endpoint: "http://127.0.0.1:9000"');
      expect(yaml).toContain("force-path-style: true");
      expect(yaml).toContain('retention: "24h"');
      expect(yaml).not.toMatch(/AKIDEXAMPLE|secret-example/);
      const file = writeLitestreamConfig(dir, path.join(dir, "citydaily.db"), replicaConfig(env));
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const run = spawnSync(litestreamBinary(), ["databases", "-config", file], { encoding: "utf8" });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`${path.join(dir, "citydaily.db").replaceAll(".", "\\.")}\\s+s3`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
