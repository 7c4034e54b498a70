/**
 * An edition's text with its counted links (/go/{slug}/{date}/{sig}?to=URL, src/core/edition/click-links.ts)
 * read as their targets: for tests about what an edition links to rather than how it counts clicks.
 */
export function untracked(text: string): string {
  return text.replace(/https?:\/\/[^"\s<>]*\/go\/[^"\s<>?]+\?to=([^"\s<>&]+)/g, (_m, to: string) => decodeURIComponent(to));
}
