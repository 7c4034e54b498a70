// The public collection written out in full in the documents we serve. Fedify compacts it to
// `as:Public` when it serialises an object (the Article a server fetches by its id), while what it
// delivers has the full URI; some servers (Lemmy among them) compare the address as a plain string,
// so both say the full one. Pure.

export const PUBLIC_URI = "https://www.w3.org/ns/activitystreams#Public";
const ADDRESSING = new Set(["to", "cc", "bto", "bcc", "audience"]);
/** Deep enough for a collection page of activities of objects; ours nest four or five levels. */
const MAX_DEPTH = 16;

const isCompactPublic = (v: unknown) => v === "as:Public" || v === "Public";

/** The document with `as:Public` and `Public` in addressing properties written as the full URI. */
export function withFullPublicUri(doc: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH || typeof doc !== "object" || doc === null) return doc;
  if (Array.isArray(doc)) return doc.map((item) => withFullPublicUri(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key === "@context") out[key] = value;
    else if (ADDRESSING.has(key)) out[key] = Array.isArray(value) ? value.map((v) => (isCompactPublic(v) ? PUBLIC_URI : withFullPublicUri(v, depth + 1))) : isCompactPublic(value) ? PUBLIC_URI : withFullPublicUri(value, depth + 1);
    else out[key] = withFullPublicUri(value, depth + 1);
  }
  return out;
}
