import { int, positiveInt } from "./parse.ts";

/** What the service tells about itself: Prometheus metrics and the readiness probe's limits. */
export interface MonitoringConfig {
  /** `METRICS_PORT`: where `/metrics` answers (a server of its own); unset: no metrics server. `0` picks a free port (tests). */
  metricsPort?: number;
  /** `METRICS_HOST`: the interface of the metrics server (default 127.0.0.1: scraped from this machine or through a tunnel). */
  metricsHost: string;
  /** `READYZ_MIN_FREE_BYTES`: `/readyz` fails when the disk under DATA_DIR has less free than this, and warns under four times it (default 256 MiB). */
  minFreeBytes: number;
  /** `READYZ_MAIL_STALL_SECONDS`: due mail this long unsent while the sender runs is a stalled sender (default 900). */
  mailStallSeconds: number;
}

export function monitoringConfig(env: NodeJS.ProcessEnv): MonitoringConfig {
  const port = env.METRICS_PORT === undefined || env.METRICS_PORT === "" ? undefined : int(env.METRICS_PORT, 0, "METRICS_PORT");
  if (port !== undefined && (port < 0 || port > 65535)) throw new Error("METRICS_PORT must be 0-65535");
  return {
    metricsPort: port,
    metricsHost: env.METRICS_HOST || "127.0.0.1",
    minFreeBytes: positiveInt(env, "READYZ_MIN_FREE_BYTES", 256 * 1024 * 1024),
    mailStallSeconds: positiveInt(env, "READYZ_MAIL_STALL_SECONDS", 900),
  };
}
