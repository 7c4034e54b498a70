import type { PublishTargetConfig } from "../../config/targets.ts";
import type { Logger } from "../../lib/log.ts";
import { localTarget } from "./local.ts";
import { s3Target } from "./s3.ts";
import type { PublishTarget } from "./types.ts";

export type { PublishTarget, TargetResult } from "./types.ts";

/** The target `PUBLISH_TARGET` names. */
export function createPublishTarget(config: PublishTargetConfig, log: Logger): PublishTarget {
  return config.kind === "s3" ? s3Target(config, log) : localTarget();
}
