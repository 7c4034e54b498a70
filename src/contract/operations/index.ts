import type { Operation } from "../operation.ts";
import { cityOperations } from "./cities.ts";

/** Every operation of the public API, in the order the OpenAPI document lists them. */
export const operations: Operation[] = [
  ...Object.values(cityOperations),
];
