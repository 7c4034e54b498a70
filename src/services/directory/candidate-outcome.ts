import type { CandidateRow, CandidateStatus } from "../../store/directory/candidates.ts";

// What checking one directory candidate found (src/services/directory/verify.ts): every address tried
// and how it went, the town feeds it touched, and the status recorded on the candidate.

export interface TriedAddress {
  url: string;
  /** Where the address came from. */
  via: "recorded" | "home page" | "platform";
  outcome: "ok" | "stale" | "failed" | "refused" | "robots" | "blocked" | "removed" | "empty";
  detail: string;
}

export interface CandidateOutcome {
  id: number;
  name: string;
  url: string;
  kind: CandidateRow["kind"];
  scope: CandidateRow["scope"];
  status: CandidateStatus;
  detail: string;
  /** Town feeds added, verified again, or dropped by this check. */
  feeds: Array<{ id: number; url: string; title: string; kind: string; action: "added" | "verified" | "dropped" | "kept" }>;
  tried: TriedAddress[];
}

/** The candidate's status from the addresses tried (a feed kept wins; a site that is down says so), and what to say about it. */
export function candidateStatus(tried: readonly TriedAddress[]): [CandidateStatus, string] {
  const ok = tried.filter((t) => t.outcome === "ok");
  if (ok.length > 0) return ["verified", ok.map((t) => `${t.url}: ${t.detail}`).join("; ")];
  const worst = (o: TriedAddress["outcome"]) => tried.filter((t) => t.outcome === o);
  if (worst("stale").length + worst("empty").length > 0) return ["stale", [...worst("stale"), ...worst("empty")].map((t) => `${t.url}: ${t.detail}`).join("; ")];
  if (worst("refused").length > 0 && worst("failed").length === 0) return ["refused", worst("refused").map((t) => `${t.url}: ${t.detail}`).join("; ")];
  const down = tried.find((t) => t.via === "home page" && t.outcome === "failed" && !/answered 4\d\d/.test(t.detail));
  if (down) return ["failed", `the site could not be reached: ${down.detail}`];
  if (tried.some((t) => t.outcome === "refused")) return ["refused", worst("refused").map((t) => `${t.url}: ${t.detail}`).join("; ")];
  return ["no_feed", tried.length ? tried.map((t) => `${t.url}: ${t.detail}`).join("; ") : "no feed recorded, announced or known for its platform"];
}
