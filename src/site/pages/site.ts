/**
 * The site's pages the server renders on request (src/pages/on-request/site/): the place finder
 * without JavaScript, the oEmbed card, and the pages of a refusal (a full disk, a request the HTTP
 * parser refused).
 */
export interface PlacesView {
  typed: string;
  /** The search as run (absent when it was too short to run; `error` says why). */
  q?: string;
  error?: string;
  results: Array<{ slug: string; where: string; people: string; name: string; hasNewsletter: boolean }>;
  /** Where the subscribe forms say the reader came from. */
  landing: string;
}

/** The card an oEmbed iframe shows (its own small document, not the site's layout). */
export interface EmbedView {
  pageUrl: string;
  title: string;
  kicker: string;
  subject: string;
  excerpt: string;
  width: number;
  height: number;
}

/** A refusal that is not the page's own: a full disk (503), a request the HTTP parser refused (4xx). */
export type RefusalView =
  | { kind: "storage-full" }
  | { kind: "bad-request"; title: string; detail: string };

declare module "./on-request.ts" {
  interface OnRequestViews {
    "site/places": PlacesView;
    "site/embed": EmbedView;
    "site/refusal": RefusalView;
  }
}
