import type { Operation } from "../operation.ts";
import { cityOperations } from "./cities.ts";
import { searchOperations } from "./search.ts";
import { subscribeOperations } from "./subscribe.ts";
import { weatherOperations } from "./weather.ts";

/** Every operation of the public API, in the order the OpenAPI document lists them. */
export const operations: Operation[] = [
  ...Object.values(cityOperations),
  ...Object.values(searchOperations),
  ...Object.values(subscribeOperations),
  ...Object.values(weatherOperations),
];
