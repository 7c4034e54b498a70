import { createRequire } from "node:module";

/**
 * Disposable (throwaway) mailbox providers, from the maintained `disposable-email-domains` package:
 * an exact list (about 120,000 domains) and a wildcard list whose subdomains are disposable too.
 * Loaded once, on first use.
 */
let exact: Set<string> | undefined;
let wildcard: Set<string> | undefined;

function load(): void {
  const require = createRequire(import.meta.url);
  exact = new Set(require("disposable-email-domains") as string[]);
  wildcard = new Set(require("disposable-email-domains/wildcard.json") as string[]);
}

/** True when the address's domain, or a parent domain, is a disposable-mail provider. */
export function isDisposableEmail(email: string): boolean {
  if (!exact) load();
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase().replace(/\.$/, "");
  if (exact!.has(domain)) return true;
  const labels = domain.split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    const parent = labels.slice(i).join(".");
    if (wildcard!.has(parent) || (i > 0 && exact!.has(parent))) return true;
  }
  return false;
}
