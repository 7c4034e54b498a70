import { z } from "zod";

// `/livez` and `/readyz`: the IETF health-check response format (draft-inadarei-api-health-check),
// `application/health+json`. Outside the API (no problem+json, no /api/v1 twin): what load
// balancers, Kubernetes and monitors ask.

export const HEALTH_TYPE = "application/health+json";

export const HealthStatus = z.enum(["pass", "warn", "fail"]).meta({ description: "`pass`, `warn` (answered 200; worth a look) or `fail` (answered 503)" });
export type HealthStatus = z.infer<typeof HealthStatus>;

export const HealthCheck = z.object({
  componentType: z.enum(["datastore", "system", "component"]).optional(),
  observedValue: z.number().optional().meta({ description: "What was measured, in `observedUnit`" }),
  observedUnit: z.string().optional().meta({ description: "`s` (seconds) or `bytes`" }),
  status: HealthStatus,
  time: z.iso.datetime().meta({ description: "When the check ran (each request runs every check afresh)" }),
  output: z.string().optional().meta({ description: "Why a check warns or fails, in words; set on `warn` and `fail`" }),
}).meta({ id: "HealthCheck" });
export type HealthCheck = z.infer<typeof HealthCheck>;

export const HealthResponse = z.object({
  status: HealthStatus,
  checks: z.record(z.string(), z.array(HealthCheck)).meta({
    description: "By `component:measurement`: `sqlite:writable` (a real read and committed write), `replication:lag` (the replica keeps up), `disk:free` (under DATA_DIR), `mail:sender` (due mail goes out), and where the server imports the town directory at its start (TOWN_DIRECTORY_IMPORT=start) `directory:import` (its progress; warns when it failed). Empty for `/livez`.",
  }),
}).meta({ id: "HealthResponse" });
export type HealthResponse = z.infer<typeof HealthResponse>;

/** The two probes as OpenAPI paths (they are not operations: no envelope, no /api/v1 twin, no MCP tool). */
export const HEALTH_PATHS = {
  "/livez": {
    summary: "Liveness: 200 while the process runs",
    description: "Answers `{\"status\":\"pass\",\"checks\":{}}` without touching the database or the disk, so a slow disk never gets the process restarted. Not cached.",
    codes: [200],
  },
  "/readyz": {
    summary: "Readiness: 200 `pass` or `warn`, 503 `fail`",
    description: "Runs every check on each request (nothing cached): the database is read and written (a committed write), the replica keeps up when REPLICA_URL is set (fails when a change has waited over a minute), the disk under DATA_DIR has room (READYZ_MIN_FREE_BYTES), and due mail goes out while the sender runs (READYZ_MAIL_STALL_SECONDS). The answer is the worst check.",
    codes: [200, 503],
  },
} as const;
