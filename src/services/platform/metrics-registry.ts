import { Histogram, Registry } from "prom-client";

// The app's Prometheus registry, one per context (never prom-client's global one): the HTTP server
// times requests into it; the metrics server adds the figures read from the database at scrape time
// (services/platform/metrics.ts) and serves it.

export interface AppMetrics {
  registry: Registry;
  /** Request durations by method, route pattern (never a raw path) and status. */
  httpDuration: Histogram<"method" | "route" | "status">;
  /** Set once the scrape-time collectors are registered (they read this context's database). */
  collecting: boolean;
}

/** Buckets from 1 ms (a kept answer) to 10 s (a slow write under a busy disk). */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createAppMetrics(): AppMetrics {
  const registry = new Registry();
  const httpDuration = new Histogram({
    name: "citydaily_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  return { registry, httpDuration, collecting: false };
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Counts one answered request; an unknown method is one label, as an unknown path is. */
export function observeRequest(metrics: AppMetrics, method: string, route: string, status: number, seconds: number): void {
  metrics.httpDuration.observe({ method: METHODS.has(method) ? method : "other", route, status: String(status) }, seconds);
}
