// Where the town actors live on the site (docs/fediverse.md): the paths the CDN sends to the origin.

export const ACTOR_PATH = "/fediverse/towns/{identifier}";
export const INBOX_PATH = "/fediverse/towns/{identifier}/inbox";
export const OUTBOX_PATH = "/fediverse/towns/{identifier}/outbox";
export const FOLLOWERS_PATH = "/fediverse/towns/{identifier}/followers";
export const ARTICLE_PATH = "/fediverse/towns/{identifier}/editions/{date}";
export const SHARED_INBOX_PATH = "/fediverse/inbox";
export const NODEINFO_PATH = "/nodeinfo/2.1";
/** The actors' picture (Mastodon shows PNG, not the site's SVG). */
export const ICON_PATH = "/fediverse/icon.png";

/** A town actor's id, as the pages link it. */
export function actorUrl(baseUrl: string, slug: string): string {
  return `${baseUrl}/fediverse/towns/${slug}`;
}
