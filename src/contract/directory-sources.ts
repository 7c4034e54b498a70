import { z } from "zod";
import { Slug } from "./common.ts";

// The town directory's verification: what trying a town's candidate sources found, and the
// staff blocks that keep a source or a whole host out everywhere.

export const CandidateCheckStatus = z.enum(["verified", "no_feed", "stale", "failed", "refused", "blocked"]).meta({
  id: "CandidateCheckStatus",
  description: "`verified`: at least one feed parses and has items of the last three weeks (it is now a source of the town); `no_feed`: none found; `stale`: feeds found but nothing recent; `failed`: the site could not be reached; `refused`: an address outside the public internet (or a redirect to one); `blocked`: blocked by staff.",
});

export const CandidateCheck = z.object({
  id: z.int().positive(),
  name: z.string(),
  url: z.string().meta({ description: "The candidate's home page" }),
  kind: z.enum(["government", "gov_domain", "news", "civic"]),
  scope: z.enum(["town", "county"]).meta({ description: "`county`: a county-wide outlet, whose items reach the town only when they name it" }),
  status: CandidateCheckStatus,
  detail: z.string(),
  feeds: z.array(z.object({
    id: z.int().positive(),
    url: z.string(),
    title: z.string(),
    kind: z.string(),
    action: z.enum(["added", "verified", "dropped", "kept"]).meta({ description: "`added` as a source of the town now; `verified` again; `dropped` after failing for a week (or blocked); `kept` while it has failed for less than a week" }),
  })),
  tried: z.array(z.object({
    url: z.string(),
    via: z.enum(["recorded", "home page", "platform"]),
    outcome: z.enum(["ok", "stale", "failed", "refused", "robots", "blocked", "removed", "empty"]),
    detail: z.string(),
  })).meta({ description: "Every address tried, in order: recorded feeds, the home page's announced feeds, the platform's conventions" }),
}).meta({ id: "CandidateCheck" });

export const DirectoryVerifyResult = z.object({
  town: z.object({ slug: z.string(), name: z.string(), state: z.string() }),
  candidates: z.array(CandidateCheck),
}).meta({ id: "DirectoryVerifyResult" });

export const DirectoryTownParams = z.object({ slug: Slug });

export const DirectoryBlock = z.object({
  kind: z.enum(["host", "source"]).meta({ description: "`host`: every address on that host name (and its subdomains); `source`: one address" }),
  value: z.string(),
  reason: z.string().nullable(),
  createdAt: z.string(),
}).meta({ id: "DirectoryBlock" });

export const DirectoryBlockBody = z.object({
  kind: z.enum(["host", "source"]),
  value: z.string().trim().min(1).max(2000).meta({ description: "A host name (`news.example.com`) or an absolute http(s) address" }),
  reason: z.string().trim().max(500).optional(),
});
export const DirectoryBlockList = z.object({ blocks: z.array(DirectoryBlock) });
export const DirectoryBlockResult = z.object({ block: DirectoryBlock, removedFeeds: z.int().nonnegative().meta({ description: "Directory feeds (every town's) the block removed" }) });
export const DirectoryUnblockResult = z.object({ unblocked: z.boolean() });
