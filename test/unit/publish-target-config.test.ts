import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { publishTargetConfig } from "../../src/config/targets.ts";

describe("PUBLISH_TARGET", () => {
  it("defaults to the local directory", () => {
    expect(loadConfig({}).publishTarget).toEqual({ kind: "local" });
    expect(publishTargetConfig({ PUBLISH_TARGET: "local" })).toEqual({ kind: "local" });
  });

  it("reads s3://bucket/prefix with the usual AWS settings", () => {
    expect(publishTargetConfig({
      PUBLISH_TARGET: "s3://citydaily-site/www/", AWS_REGION: "auto", S3_ENDPOINT: "https://acct.r2.example",
      S3_FORCE_PATH_STYLE: "true", AWS_ACCESS_KEY_ID: "id", AWS_SECRET_ACCESS_KEY: "secret", S3_CONCURRENCY: "4",
    })).toEqual({
      kind: "s3", bucket: "citydaily-site", prefix: "www/", region: "auto", endpoint: "https://acct.r2.example",
      forcePathStyle: true, credentials: { accessKeyId: "id", secretAccessKey: "secret" }, concurrency: 4,
    });
    const bare = publishTargetConfig({ PUBLISH_TARGET: "s3://citydaily-site" });
    expect(bare).toMatchObject({ bucket: "citydaily-site", prefix: "", region: "us-east-1", forcePathStyle: false, credentials: undefined });
  });

  it("refuses what it cannot use, with the setting's name", () => {
    expect(() => publishTargetConfig({ PUBLISH_TARGET: "gs://bucket" })).toThrow(/PUBLISH_TARGET/);
    expect(() => publishTargetConfig({ PUBLISH_TARGET: "s3://Bad_Bucket" })).toThrow(/PUBLISH_TARGET/);
    expect(() => publishTargetConfig({ PUBLISH_TARGET: "s3://bucket", AWS_ENDPOINT_URL: "minio:9000" })).toThrow(/AWS_ENDPOINT_URL/);
    expect(() => publishTargetConfig({ PUBLISH_TARGET: "s3://bucket", S3_CONCURRENCY: "0" })).toThrow(/S3_CONCURRENCY/);
  });
});
