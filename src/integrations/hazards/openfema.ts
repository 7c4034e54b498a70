import { z } from "zod";
import { DECLARATION_WINDOW_DAYS, type Declaration } from "../../core/hazards/town-hazards.ts";
import { getJsonConditional, SourceError, type ConditionalItems, type Validators } from "../http-json.ts";

// OpenFEMA's Disaster Declarations Summaries (www.fema.gov/api/open, public domain, no key): one row
// per declaration and designated area (county, tribal area or "Statewide"). The morning asks once
// per run for every declaration of the last week and matches rows to towns by county FIPS. The
// window starts at a UTC midnight, so the query (and so the validators) stays the same all day.

export interface DeclarationsProvider {
  /** Declarations since the start of the window, newest first; "not-modified" when unchanged. Rejects with SourceError. */
  recent(now: Date, validators: Validators | null, signal?: AbortSignal): Promise<ConditionalItems<Declaration>>;
}

export interface OpenFemaOptions {
  /** `OPENFEMA_API_URL`, e.g. `https://www.fema.gov/api/open` (no trailing slash). */
  baseUrl: string;
  userAgent: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export const OPENFEMA_PATH = "/v2/DisasterDeclarationsSummaries";
/** More rows than a week of declarations has ever had (a hurricane's DR names a few hundred counties). */
const TOP = 5000;
const FIELDS = ["disasterNumber", "state", "declarationType", "declarationDate", "incidentType", "declarationTitle", "fipsStateCode", "fipsCountyCode", "designatedArea"];

const Row = z.object({
  disasterNumber: z.number().int(),
  state: z.string(),
  declarationType: z.enum(["DR", "EM", "FM"]),
  declarationDate: z.string().refine((s) => Number.isFinite(Date.parse(s))),
  incidentType: z.string().nullish(),
  declarationTitle: z.string().nullish(),
  fipsStateCode: z.string().regex(/^\d{1,2}$/),
  fipsCountyCode: z.string().regex(/^\d{1,3}$/),
  designatedArea: z.string().nullish(),
}).loose();
const Body = z.object({ DisasterDeclarationsSummaries: z.array(z.unknown()) }).loose();

export function openFemaUrl(baseUrl: string, now: Date): URL {
  const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - DECLARATION_WINDOW_DAYS));
  const url = new URL(`${baseUrl}${OPENFEMA_PATH}`);
  url.search = new URLSearchParams({
    $filter: `declarationDate ge '${since.toISOString()}'`,
    $orderby: "declarationDate desc",
    $select: FIELDS.join(","),
    $top: String(TOP),
  }).toString();
  return url;
}

/** The answer's declaration rows; a row that does not read as one is skipped. */
export function parseDeclarations(body: unknown): Declaration[] {
  const parsed = Body.safeParse(body);
  if (!parsed.success) throw new SourceError("invalid", "OpenFEMA's answer had no DisasterDeclarationsSummaries");
  return parsed.data.DisasterDeclarationsSummaries.flatMap((raw) => {
    const r = Row.safeParse(raw);
    if (!r.success) return [];
    const d = r.data;
    return [{
      disasterNumber: d.disasterNumber,
      state: d.state,
      declarationType: d.declarationType,
      declarationDate: d.declarationDate,
      incidentType: d.incidentType ?? "",
      declarationTitle: d.declarationTitle ?? "",
      fipsStateCode: d.fipsStateCode.padStart(2, "0"),
      fipsCountyCode: d.fipsCountyCode.padStart(3, "0"),
      designatedArea: d.designatedArea ?? "",
    }];
  });
}

export function createOpenFemaProvider(options: OpenFemaOptions): DeclarationsProvider {
  const { baseUrl, userAgent, timeoutMs = 8000, fetch } = options;
  return {
    async recent(now, validators, signal) {
      const answer = await getJsonConditional(openFemaUrl(baseUrl, now), { name: "OpenFEMA", timeoutMs, signal, fetch, headers: { "User-Agent": userAgent, Accept: "application/json" } }, validators ?? undefined);
      return answer.status === "ok" ? { status: "ok", items: parseDeclarations(answer.body), validators: { etag: answer.etag, lastModified: answer.lastModified } } : answer;
    },
  };
}
