import { blockFediverseInstance, fediverseBlocks, unblockFediverseInstance } from "../../src/services/fediverse/blocks.ts";
import type { AppContext } from "../../src/services/platform/context.ts";

export const FEDIVERSE_USAGE = "npm run admin -- fediverse block HOST [--reason \"...\"] | unblock HOST | blocks";

/**
 * `npm run admin -- fediverse ...`: the instances refused. A blocked instance's follows get a Reject
 * and its followers are removed at once (docs/fediverse.md). Returns the exit code; undefined for a
 * command it does not know (the caller prints the usage).
 */
export function fediverseCommand(ctx: AppContext, sub: string | undefined, args: string[]): number | undefined {
  if (sub === "blocks") {
    const blocks = fediverseBlocks(ctx);
    for (const b of blocks) console.log(`${b.host}  ${b.createdAt.slice(0, 10)}${b.reason ? `  ${JSON.stringify(b.reason)}` : ""}`);
    console.log(`${blocks.length} instance(s) blocked`);
    return 0;
  }
  const host = args[0];
  if (!host || host.startsWith("--")) return undefined;
  if (sub === "block") {
    const r = args.indexOf("--reason");
    const { host: blocked, removedFollowers } = blockFediverseInstance(ctx, host, r >= 0 ? args[r + 1] ?? null : null);
    console.log(`blocked ${blocked}; ${removedFollowers} follower(s) removed`);
    return 0;
  }
  if (sub === "unblock") {
    console.log(unblockFediverseInstance(ctx, host) ? `unblocked ${host}` : `${host} was not blocked`);
    return 0;
  }
  return undefined;
}
