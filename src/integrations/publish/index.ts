import type { PublishTargetConfig } from "../../config/targets.ts";
import type { Logger } from "../../lib/log.ts";
import { localTarget } from "./local.ts";
import type { PublishTarget } from "./types.ts";

export type { PublishTarget, TargetResult } from "./types.ts";

/**
 * The target `PUBLISH_TARGET` names. The S3 client (a large module tree) is loaded only when the
 * target is S3: a morning publishing locally does not pay its load.
 */
export function createPublishTarget(config: PublishTargetConfig, log: Logger): PublishTarget {
  if (config.kind !== "s3") return localTarget();
  return {
    name: `s3://${config.bucket}/${config.prefix}`,
    publish: async (dirs) => (await import("./s3.ts")).s3Target(config, log).publish(dirs),
  };
}
