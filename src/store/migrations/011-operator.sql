-- The operator desk (issue #19 part B): sign-in by emailed one-time link, sessions, who decided on
-- each listing, cancelling a lease at the end of its paid period, and payouts through Stripe Connect.

-- One-time sign-in links. Only the SHA-256 of the token is kept: a copy of the database cannot sign
-- anyone in. A link works once (used_at) and until expires_at (15 minutes after it was asked for).
CREATE TABLE operator_login_tokens (
  token_hash  TEXT PRIMARY KEY,
  email       TEXT NOT NULL COLLATE NOCASE,
  expires_at  TEXT NOT NULL,
  used_at     TEXT,
  created_at  TEXT NOT NULL
);
CREATE INDEX operator_login_tokens_expiry ON operator_login_tokens (expires_at);

-- Signed-in desks. The cookie carries the session id; only its SHA-256 is stored.
CREATE TABLE operator_sessions (
  id_hash     TEXT PRIMARY KEY,
  email       TEXT NOT NULL COLLATE NOCASE,
  expires_at  TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX operator_sessions_expiry ON operator_sessions (expires_at);

-- Every decision on a listing, by staff (admin CLI and endpoints) or by the town's operator (the desk).
CREATE TABLE listing_decisions (
  id          INTEGER PRIMARY KEY,
  order_id    TEXT NOT NULL REFERENCES listing_orders (id),
  decision    TEXT NOT NULL CHECK (decision IN ('approved', 'released', 'rejected')),
  reason      TEXT,
  by_role     TEXT NOT NULL CHECK (by_role IN ('staff', 'operator')),
  by_who      TEXT NOT NULL,                 -- the operator's email, or the staff channel (cli, http)
  created_at  TEXT NOT NULL
);
CREATE INDEX listing_decisions_order ON listing_decisions (order_id, id);

-- A lease cancelled by its operator stays active until the end of its paid period (cancel_at); the
-- commerce sweep ends it then (local mode; in Stripe mode the subscription's deletion ends it).
ALTER TABLE leases ADD COLUMN cancel_at TEXT;

-- The charge behind a paid listing (Stripe mode): the source_transaction of the operator's transfer.
ALTER TABLE listing_orders ADD COLUMN provider_charge_id TEXT;

-- The operator's payout account (Stripe Connect Express), one per operator email.
CREATE TABLE operator_accounts (
  email             TEXT PRIMARY KEY COLLATE NOCASE,
  connect_account   TEXT NOT NULL UNIQUE,      -- acct_...
  payouts_enabled   INTEGER NOT NULL DEFAULT 0,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL
);

-- What was paid out of each order's share: one transfer per order (idempotency key per order), and
-- its reversal after a refund. The ledger says what is owed; this table says what moved.
CREATE TABLE payout_transfers (
  order_id          TEXT PRIMARY KEY REFERENCES listing_orders (id),
  lease_id          TEXT NOT NULL REFERENCES leases (id),
  connect_account   TEXT NOT NULL,
  amount_cents      INTEGER NOT NULL,
  transfer_id       TEXT NOT NULL,
  reversed_cents    INTEGER NOT NULL DEFAULT 0,
  reversal_id       TEXT,
  created_at        TEXT NOT NULL,
  reversed_at       TEXT
);
CREATE INDEX payout_transfers_lease ON payout_transfers (lease_id, created_at);
