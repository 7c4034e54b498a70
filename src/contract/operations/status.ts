import { z } from "zod";
import { CACHE, type Operation } from "../operation.ts";

export const StatusResponse = z.object({
  status: z.literal("ok").meta({ description: "`ok` while the API answers and its database can be read" }),
  apiVersion: z.literal("v1"),
  cities: z.int().meta({ description: "Cities with a newsletter" }),
  latestEdition: z.iso.date().nullable().meta({ description: "Date of the most recently stored edition, or null before the first" }),
}).meta({ id: "StatusResponse" });
export type StatusResponse = z.infer<typeof StatusResponse>;

export const statusOperations = {
  getStatus: {
    operationId: "getStatus", method: "GET", path: "/api/status", tags: ["Service"],
    summary: "Service status (the API catalog's `status` link)",
    description: "Answers 200 `ok` once the database has been read; monitors and agents can poll it. Not cached.",
    response: StatusResponse, errors: [], cache: CACHE.none,
  },
} satisfies Record<string, Operation>;
