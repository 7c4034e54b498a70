import type { SiteDirs } from "../../publish/site-dir.ts";

/** What one publish did on its target. */
export interface TargetResult {
  target: string;
  /** Objects written: files and their precompressed variants (the manifest not counted). */
  uploaded: number;
  deleted: number;
  /** Files already there with the same content. */
  unchanged: number;
}

/**
 * Where a published site goes once DATA_DIR/site has been swapped to the new generation. Called
 * under the publish lock, so one sync runs at a time; a failure is thrown and the next publish
 * resumes where it stopped.
 */
export interface PublishTarget {
  readonly name: string;
  publish(dirs: SiteDirs): Promise<TargetResult>;
}
