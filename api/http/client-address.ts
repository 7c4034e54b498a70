import type { H3Event } from "h3";

/**
 * The client address: the socket peer, or, behind `trustProxyHops` proxies that each append to
 * X-Forwarded-For, the entry that many places from the right (left entries can be forged by the client).
 */
export function clientAddress(event: H3Event, trustProxyHops: number): string {
  const peer = event.req.ip ?? (event.req as { context?: { clientAddress?: string } }).context?.clientAddress ?? "unknown";
  if (trustProxyHops <= 0) return peer;
  const chain = (event.req.headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return chain[chain.length - trustProxyHops] ?? chain[0] ?? peer;
}
