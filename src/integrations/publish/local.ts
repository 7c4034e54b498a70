import type { PublishTarget } from "./types.ts";

/** The default: the server serves DATA_DIR/site itself, so the local swap is the whole publish. */
export function localTarget(): PublishTarget {
  return {
    name: "local",
    publish: async () => ({ target: "local", uploaded: 0, deleted: 0, unchanged: 0 }),
  };
}
