import path from "node:path";

/** The repository's root (this file is src/config/paths.ts). */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..");
export const PLACES_CSV = path.join(PROJECT_ROOT, "content/data/us-places.csv");
