// A remote server's host, as blocks name it and as followers are stored, written one way whatever
// spelling reached us: `Mastodon.Example.`, `mastodon.example:443` and `https://MASTODON.example/` are
// all `mastodon.example`. Pure.

const DEFAULT_PORTS: Record<string, string> = { "https:": "443", "http:": "80" };

/**
 * The host a block names: lower case (IDNs as punycode), no trailing dot, no default port; another
 * port is kept (`127.0.0.1:8080`). Accepts a bare host, `host:port` or a URL.
 */
export function instanceHost(raw: string): string {
  const trimmed = raw.trim().toLowerCase();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    return trimmed.replace(/\.+$/, "");
  }
  const hostname = url.hostname.replace(/\.+$/, "");
  const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? url.port : "";
  return port ? `${hostname}:${port}` : hostname;
}

/** The host of an actor's, inbox's or key's URL, written as `instanceHost` writes it. */
export function urlHost(url: URL | string): string {
  return instanceHost(typeof url === "string" ? url : url.href);
}

/**
 * The blocks that would cover a host (already normalised): itself, its name without the port (a
 * block of a name covers every port of it) and each parent domain (a block of `example.social`
 * covers `eu.example.social`, as Mastodon's domain blocks do). An IP address covers only itself.
 */
export function blockCandidates(host: string): string[] {
  const name = host.replace(/:\d+$/, "");
  const candidates = new Set([host, name]);
  const isIp = /^[\d.]+$/.test(name) || name.startsWith("[");
  if (!isIp) {
    const labels = name.split(".");
    for (let i = 1; i < labels.length - 1; i++) candidates.add(labels.slice(i).join("."));
  }
  return [...candidates];
}

/** Whether a block of `blocked` covers `host` (both as `instanceHost` writes them). */
export function blockCovers(blocked: string, host: string): boolean {
  return blockCandidates(host).includes(blocked);
}
