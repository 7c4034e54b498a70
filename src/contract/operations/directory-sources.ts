import { DirectoryBlockBody, DirectoryBlockList, DirectoryBlockResult, DirectoryTownParams, DirectoryUnblockResult, DirectoryVerifyResult } from "../directory-sources.ts";
import { CACHE, type Operation } from "../operation.ts";

// Staff verify a town's directory candidates now, and block a source or a host everywhere:
// `Authorization: Bearer ADMIN_TOKEN` over HTTP, and `npm run admin -- directory verify|block|unblock|blocks`.
const ADMIN_ERRORS = ["unauthorized", "forbidden", "service_misconfigured", "validation_error"] as const;

export const directorySourceOperations = {
  adminVerifyDirectory: {
    operationId: "adminVerifyDirectory", method: "POST", path: "/admin/towns/{slug}/directory/verify", tags: ["Admin"],
    summary: "Try a town's directory candidates now (feeds that pass become sources of the town)",
    description: "Each candidate's recorded feeds, then its home page's announced feeds, then its platform's conventions (CivicPlus, WordPress, Legistar), under the feed fetching rules and robots.txt. Answers the outcome of each.",
    params: DirectoryTownParams, response: DirectoryVerifyResult,
    errors: [...ADMIN_ERRORS, "invalid_slug", "city_not_found"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminListDirectoryBlocks: {
    operationId: "adminListDirectoryBlocks", method: "GET", path: "/admin/directory/blocks", tags: ["Admin"],
    summary: "Sources and hosts blocked from the directory everywhere",
    response: DirectoryBlockList, errors: [...ADMIN_ERRORS], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminBlockDirectorySource: {
    operationId: "adminBlockDirectorySource", method: "POST", path: "/admin/directory/blocks", tags: ["Admin"],
    summary: "Block a source or a whole host from the directory everywhere (its directory feeds are removed now)",
    body: DirectoryBlockBody, response: DirectoryBlockResult,
    errors: [...ADMIN_ERRORS, "invalid_json", "payload_too_large"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminUnblockDirectorySource: {
    operationId: "adminUnblockDirectorySource", method: "POST", path: "/admin/directory/unblock", tags: ["Admin"],
    summary: "Lift a block (the next check may add the source again)",
    body: DirectoryBlockBody, response: DirectoryUnblockResult,
    errors: [...ADMIN_ERRORS, "invalid_json", "payload_too_large"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
} satisfies Record<string, Operation>;
