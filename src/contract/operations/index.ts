import { isPublic, type Operation } from "../operation.ts";
import { adminOperations } from "./admin.ts";
import { cityOperations } from "./cities.ts";
import { commerceOperations } from "./commerce.ts";
import { eventOperations } from "./events.ts";
import { directorySourceOperations } from "./directory-sources.ts";
import { feedOperations } from "./feeds.ts";
import { mailOperations } from "./mail.ts";
import { oembedOperations } from "./oembed.ts";
import { placeOperations } from "./places.ts";
import { readerOperations } from "./readers.ts";
import { searchOperations } from "./search.ts";
import { statusOperations } from "./status.ts";
import { subscribeOperations } from "./subscribe.ts";
import { weatherOperations } from "./weather.ts";

/** Every operation by id: the keys of the binding table (src/services/operations/bindings.ts). */
export const operationsById = {
  ...cityOperations,
  ...eventOperations,
  ...placeOperations,
  ...searchOperations,
  ...subscribeOperations,
  ...readerOperations,
  ...weatherOperations,
  ...commerceOperations,
  ...oembedOperations,
  ...statusOperations,
  ...mailOperations,
  ...adminOperations,
  ...feedOperations,
  ...directorySourceOperations,
} satisfies Record<string, Operation>;

export type OperationId = keyof typeof operationsById;

/** Every operation, in the order the OpenAPI document lists them. */
export const allOperations: Operation[] = Object.values(operationsById);

/** The public API: what OpenAPI, the developer docs and MCP describe. */
export const operations: Operation[] = allOperations.filter(isPublic);
