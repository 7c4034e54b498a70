// What a person is shown as an AI client's name (consent page, desk): the client_name the client chose
// for itself, which anyone can set to anything. Markup is escaped where it is written; here the name
// loses what could make it pass for something else on the page (control and bidirectional-override
// characters, runs of spaces) and is cut short, so it cannot push the host the browser returns to, or
// the Allow button, out of sight.

/** The most characters of a client's name shown. */
export const CLIENT_NAME_CHARACTERS = 60;

// C0 and C1 controls, zero-width and bidirectional formatting characters (U+200B-U+200F, U+202A-U+202E,
// U+2060-U+206F, U+FEFF).
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;

/** The name to show for a client: its own, tidied and at most CLIENT_NAME_CHARACTERS long (ending in "…"), else its id. */
export function clientDisplayName(name: unknown, clientId: string): string {
  const tidy = typeof name === "string" ? name.replace(HIDDEN, "").replace(/\s+/g, " ").trim() : "";
  const shown = tidy || clientId;
  const chars = Array.from(shown);
  return chars.length > CLIENT_NAME_CHARACTERS ? `${chars.slice(0, CLIENT_NAME_CHARACTERS - 1).join("").trimEnd()}…` : shown;
}
