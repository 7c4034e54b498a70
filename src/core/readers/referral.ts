// Referral codes of "Forward to a neighbor" links (`?ref=` on a town page). Pure.

/** A referral code as stored (src/store/migrations/010-edition.sql: 12 hex digits); anything else is no code. */
export function referralCode(raw: string | null | undefined): string | null {
  const code = raw?.trim().toLowerCase();
  return code && /^[0-9a-f]{6,32}$/.test(code) ? code : null;
}

/** The `ref` of a page of this site (`origin`) that sent the reader, or null (another site's page counts for nobody). */
export function referralCodeOfPage(page: string | null | undefined, origin: string): string | null {
  if (!page) return null;
  try {
    const from = new URL(page);
    return from.origin === new URL(origin).origin ? referralCode(from.searchParams.get("ref")) : null;
  } catch {
    return null;
  }
}
