// XML 1.0 text for the feeds and sitemaps. Characters XML 1.0 forbids cannot be escaped: C0 controls
// other than tab, newline and carriage return, and U+FFFE/U+FFFF are dropped; lone surrogates become U+FFFD.
const INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const SPECIAL: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Escaped for element content and attribute values alike. */
export function xml(text: string): string {
  return text.toWellFormed().replace(INVALID, "").replace(/[&<>"']/g, (c) => SPECIAL[c]);
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
