import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppContext } from "../../src/services/platform/context.ts";
import { registerCollectors } from "../../src/services/platform/metrics.ts";

// `/metrics` on a port of its own (METRICS_PORT), bound to METRICS_HOST (127.0.0.1 by default): the
// figures are for the operator's Prometheus, not for the public site and its CDN.

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** The metrics server METRICS_PORT and METRICS_HOST ask for, if any; a port it cannot take is an error that says which setting. */
export async function startConfiguredMetrics(ctx: AppContext): Promise<MetricsServer | undefined> {
  const { metricsPort: port, metricsHost: host } = ctx.config.monitoring;
  if (port === undefined) return undefined;
  try {
    return await startMetricsServer(ctx, port, host);
  } catch (err) {
    throw Object.assign(new Error(`citydaily: the metrics server cannot listen on ${host}:${port} (METRICS_PORT, METRICS_HOST): ${(err as Error).message}`), { cause: err });
  }
}

export async function startMetricsServer(ctx: AppContext, port: number, host: string): Promise<MetricsServer> {
  const registry = registerCollectors(ctx);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(path === "/metrics" ? 405 : 404, { "Content-Type": "text/plain; charset=utf-8" }).end(path === "/metrics" ? "GET /metrics\n" : "Only /metrics here.\n");
      return;
    }
    registry.metrics().then((body) => {
      res.writeHead(200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" }).end(req.method === "HEAD" ? undefined : body);
    }, (err: unknown) => {
      ctx.log.error({ err }, "collecting the metrics failed");
      res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("collecting the metrics failed; see the log\n");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}/metrics`;
  ctx.log.info({ url }, "metrics listening");
  return {
    url,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
