import { positiveInt } from "./parse.ts";

/** Time limits that keep slow or stalled clients from holding the server. */
export interface HttpConfig {
  /** `HEADERS_TIMEOUT_MS`: a client has this long to send the request line and headers (then 408). */
  headersTimeoutMs: number;
  /** `REQUEST_TIMEOUT_MS`: ... and this long for the whole request, body included (then 408). */
  requestTimeoutMs: number;
  /** `SHUTDOWN_TIMEOUT_MS`: on SIGTERM, in-flight requests get this long to finish before their connections are cut. */
  shutdownTimeoutMs: number;
}

export function httpConfig(env: NodeJS.ProcessEnv): HttpConfig {
  const positive = (name: string, fallback: number) => positiveInt(env, name, fallback);
  return {
    headersTimeoutMs: positive("HEADERS_TIMEOUT_MS", 10_000),
    requestTimeoutMs: positive("REQUEST_TIMEOUT_MS", 30_000),
    shutdownTimeoutMs: positive("SHUTDOWN_TIMEOUT_MS", 10_000),
  };
}
