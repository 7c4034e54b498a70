import { decodeDict } from "structured-field-values";

// The cheap checks an activity reaching a town's inbox passes before any JSON-LD work (which is
// recursive: 400,000 nested arrays overflowed its stack) and before Fedify sees it. Pure.

/** Nesting an activity may have: Mastodon's deepest (a Create of a Note with a poll's replies) is under 10. */
export const MAX_ACTIVITY_DEPTH = 32;

/**
 * Whether a JSON text nests arrays and objects deeper than `max`, read as text in one pass (no parse,
 * no recursion), brackets inside strings not counted.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * The components an RFC 9421 signature (`label` in `Signature-Input`) covers, lower-cased; empty when
 * the header does not parse or has no such label.
 */
export function coveredComponents(signatureInput: string, label: string): string[] {
  try {
    const entry = (decodeDict(signatureInput) as Record<string, { value: unknown } | undefined>)[label];
    if (!entry || !Array.isArray(entry.value)) return [];
    return entry.value.map((item: { value: unknown }) => (typeof item.value === "string" ? item.value.toLowerCase() : "")).filter(Boolean);
  } catch {
    return [];
  }
}

/** Types of activities that are plainly not a Follow; anything else may be one (a Follow in another spelling). */
const NOT_FOLLOW = new Set(["Accept", "Add", "Announce", "Block", "Create", "Delete", "EmojiReact", "Flag", "Like", "Move", "Reject", "Remove", "TentativeAccept", "TentativeReject", "Undo", "Update"]);

/**
 * Whether an activity (parsed JSON, not expanded) may be a Follow: the Follow limit counts these. A
 * Follow is recognised by its compact type; one spelled otherwise (a full IRI, a context's alias) is
 * counted too, so the limit cannot be stepped round by spelling.
 */
export function mayBeFollow(activity: unknown): boolean {
  const type = (activity as { type?: unknown } | null)?.type;
  const types = Array.isArray(type) ? type : [type];
  return !types.every((t) => typeof t === "string" && NOT_FOLLOW.has(t.replace(/^(as:|https:\/\/www\.w3\.org\/ns\/activitystreams#)/, "")));
}
