import { positiveInt } from "./parse.ts";

/** The towns' ActivityPub actors and the delivery of editions to their followers (docs/fediverse.md). */
export interface FederationConfig {
  /**
   * `FEDERATION_ALLOW_PRIVATE=true`: deliveries and key fetches may reach private, loopback and
   * link-local addresses. Tests only: otherwise a remote actor could name an inbox inside our network.
   */
  allowPrivate: boolean;
  /** `FEDERATION_SENDER=off` leaves the delivery queue undrained in the server (a test, or another process drains it). */
  senderEnabled: boolean;
  /** `FEDERATION_POLL_MS`: how often the server's worker looks for due posts and deliveries when idle. */
  pollMs: number;
  /** `FEDERATION_CONCURRENCY`: deliveries in flight at once (one per inbox; a shared inbox serves a whole server). */
  concurrency: number;
}

export function federationConfig(env: NodeJS.ProcessEnv): FederationConfig {
  return {
    allowPrivate: env.FEDERATION_ALLOW_PRIVATE === "true",
    senderEnabled: env.FEDERATION_SENDER !== "off",
    pollMs: positiveInt(env, "FEDERATION_POLL_MS", 500),
    concurrency: positiveInt(env, "FEDERATION_CONCURRENCY", 16),
  };
}
