-- The edition worth opening (issue #18, part B).

-- The operator's note for one town and date, shown under the greeting. `markdown` is the canonical
-- subset written by src/core/edition/note.ts (never the raw text typed), so it is safe to compose as it is.
CREATE TABLE town_notes (
  place_geoid  TEXT NOT NULL REFERENCES places (geoid),
  date         TEXT NOT NULL,            -- YYYY-MM-DD in the town's timezone
  markdown     TEXT NOT NULL,
  author_name  TEXT NOT NULL,            -- the signature readers see
  updated_by   TEXT NOT NULL,            -- who saved it (an operator's email, "admin")
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  PRIMARY KEY (place_geoid, date)
) WITHOUT ROWID;

-- Forward to a neighbor: each subscription has a referral code that its digests carry in the
-- subscribe link (`ref`); a subscription made through it records the referring subscription.
ALTER TABLE subscribers ADD COLUMN referral_code TEXT;
ALTER TABLE subscribers ADD COLUMN referred_by INTEGER REFERENCES subscribers (id);
UPDATE subscribers SET referral_code = lower(hex(randomblob(6))) WHERE referral_code IS NULL;
CREATE UNIQUE INDEX subscribers_referral_code ON subscribers (referral_code);
-- Every new subscription gets its code however it is inserted (the service, the demo, a seed).
CREATE TRIGGER subscribers_referral_code_new AFTER INSERT ON subscribers WHEN NEW.referral_code IS NULL
BEGIN
  UPDATE subscribers SET referral_code = lower(hex(randomblob(6))) WHERE id = NEW.id;
END;
CREATE INDEX subscribers_referred_by ON subscribers (referred_by) WHERE referred_by IS NOT NULL;

-- Which town fact an edition told (src/core/edition/did-you-know.ts), so no fact repeats within 30 mornings.
ALTER TABLE editions ADD COLUMN fact_key TEXT;
