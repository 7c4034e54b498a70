// How long the authorization server keeps a client it did not make itself. Anyone may register a
// client or name one by a metadata document, so neither is kept forever: one never used (no grant)
// is gone a day after it was stored, one whose grants have all ended 30 days after the last ended.
// The deadline is the row's expiry (src/store/oauth/models.ts), so an expired registration is
// refused at once and its row goes with the other expired rows.

/** A registration or a metadata document that led to no grant is kept this long. */
export const UNUSED_CLIENT_SECONDS = 86_400;
/** A client is kept this long after its last grant expires or is revoked. */
export const CLIENT_AFTER_GRANTS_SECONDS = 30 * 86_400;
