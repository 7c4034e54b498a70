// Content negotiation: markdown twins for `.md` paths and for clients that prefer `text/markdown`.

/** Whether the client prefers markdown: `text/markdown` listed with a q at least that of `text/html`. */
export function prefersMarkdown(accept: string | null): boolean {
  if (!accept) return false;
  let md = -1, html = -1;
  for (const part of accept.split(",")) {
    const [type, ...params] = part.trim().toLowerCase().split(";");
    const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith("q="))?.slice(2) ?? 1);
    if (type === "text/markdown") md = Math.max(md, q);
    if (type === "text/html") html = Math.max(html, q);
  }
  return md > 0 && md >= html;
}

/** Rough token estimate for `X-Markdown-Tokens`: about four characters a token. */
export function markdownTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function markdownHeaders(markdown: string): Record<string, string> {
  return { "X-Markdown-Tokens": String(markdownTokens(markdown)), Vary: "Accept" };
}


