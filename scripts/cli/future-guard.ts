import type { Config } from "../../src/config/load.ts";
import { runningServers } from "../../src/services/platform/running-servers.ts";

/** Lets a morning dated ahead of the clock publish where the site is live (tests, or on purpose). */
export const ALLOW_FUTURE = "--allow-future";

/** Where this command's publish would be live, in words, or undefined when nothing serves it. */
function liveSite(config: Config): string | undefined {
  const server = runningServers(config.dataDir)[0];
  if (server) return `the server at ${server.url} (pid ${server.pid}) serves DATA_DIR ${config.dataDir}`;
  const t = config.publishTarget;
  if (t.kind === "s3") return `PUBLISH_TARGET sends the site to s3://${t.bucket}/${t.prefix}`;
  return undefined;
}

/**
 * A morning whose NOW is ahead of the real clock composes editions dated ahead, publishes them and
 * queues their email: into a site a running server serves (or that goes to PUBLISH_TARGET), that is
 * the live site and its readers ("Latest edition: December 12" on December 7). Such a morning runs in
 * a DATA_DIR of its own, or with --allow-future; otherwise it says why in one line and exits 1.
 */
export function refuseFutureMorning(config: Config, argv: readonly string[], command: string): void {
  const now = config.now();
  if (argv.includes(ALLOW_FUTURE) || now.getTime() <= Date.now()) return;
  const live = liveSite(config);
  if (!live) return;
  console.error(`citydaily: NOW (${now.toISOString()}) is ahead of the clock and ${live}: this run would publish editions dated ahead on the live site and queue their emails. ` +
    `To try a future morning, give it a data directory of its own (NOW=${now.toISOString()} DATA_DIR=var-future npm run demo: sample towns and that morning's editions), or pass ${ALLOW_FUTURE} (${command} -- ${ALLOW_FUTURE}) to publish here anyway.`);
  process.exit(1);
}
