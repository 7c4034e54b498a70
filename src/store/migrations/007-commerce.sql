-- Commerce: listing orders (events and businesses), town leases, the operators' ledger, the
-- payment-callback log and the local provider's hosted checkout sessions. Money is integer cents.

-- One row per listing order (`lo_` + UUID). Statuses and transitions: src/contract/order-status.ts.
CREATE TABLE listing_orders (
  id                    TEXT PRIMARY KEY,
  product               TEXT NOT NULL CHECK (product IN ('event', 'business')),
  tier                  TEXT NOT NULL CHECK (tier IN ('free', 'standard', 'featured')),
  price_cents           INTEGER NOT NULL CHECK (price_cents >= 0),
  currency              TEXT NOT NULL DEFAULT 'usd',
  place_geoid           TEXT NOT NULL REFERENCES places (geoid),
  buyer_email           TEXT NOT NULL COLLATE NOCASE,
  title                 TEXT NOT NULL,
  description           TEXT NOT NULL,
  url                   TEXT NOT NULL,
  url_host              TEXT,                       -- lowercased host of url (the "seen in rejected orders" rule)
  starts_at             TEXT,                       -- events: YYYY-MM-DD or ISO date-time
  ends_at               TEXT,
  venue                 TEXT,
  address               TEXT,                       -- businesses: street address or area
  category              TEXT,
  status                TEXT NOT NULL CHECK (status IN
                          ('awaiting_review', 'held', 'pending_payment', 'paid', 'published', 'rejected', 'expired', 'ended', 'refunded')),
  rule                  TEXT,                       -- the policy rule that rejected or held it
  reason                TEXT,                       -- the human reason shown to the buyer
  provider              TEXT,                       -- stripe | local, once a payment link exists
  provider_session_id   TEXT,
  provider_payment_id   TEXT,                       -- the payment (intent) id, to match refunds
  checkout_url          TEXT,
  checkout_expires_at   TEXT,
  fee_cents             INTEGER,
  paid_at               TEXT,
  published_at          TEXT,
  run_ends_at           TEXT,                       -- businesses: paid_at + 30 days; events: the day after the event
  ended_at              TEXT,
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL
);
CREATE INDEX listing_orders_place ON listing_orders (place_geoid, status);
CREATE INDEX listing_orders_status ON listing_orders (status, created_at);
CREATE UNIQUE INDEX listing_orders_session ON listing_orders (provider_session_id) WHERE provider_session_id IS NOT NULL;
CREATE INDEX listing_orders_payment ON listing_orders (provider_payment_id) WHERE provider_payment_id IS NOT NULL;
CREATE INDEX listing_orders_rejected_host ON listing_orders (url_host) WHERE status = 'rejected';

-- Town leases (`tl_` + UUID). At most one reserved-or-active lease per town, enforced by the index:
-- of two buyers racing for a town exactly one insert succeeds.
CREATE TABLE leases (
  id                    TEXT PRIMARY KEY,
  place_geoid           TEXT NOT NULL REFERENCES places (geoid),
  status                TEXT NOT NULL CHECK (status IN ('reserved', 'active', 'expired', 'ended')),
  price_cents           INTEGER NOT NULL,
  currency              TEXT NOT NULL DEFAULT 'usd',
  operator_email        TEXT COLLATE NOCASE,        -- the checkout email, once paid: the operator account
  reserved_until        TEXT NOT NULL,
  provider              TEXT,
  provider_session_id   TEXT,
  provider_subscription_id TEXT,
  checkout_url          TEXT,
  activated_at          TEXT,
  ended_at              TEXT,
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL
);
CREATE UNIQUE INDEX leases_one_per_town ON leases (place_geoid) WHERE status IN ('reserved', 'active');
CREATE INDEX leases_operator ON leases (operator_email) WHERE operator_email IS NOT NULL;
CREATE INDEX leases_subscription ON leases (provider_subscription_id) WHERE provider_subscription_id IS NOT NULL;

-- The operators' revenue share: one 'share' row per paid listing in a leased town, one 'reversal'
-- (negative) on refund. Integer cents.
CREATE TABLE ledger_entries (
  id              INTEGER PRIMARY KEY,
  lease_id        TEXT NOT NULL REFERENCES leases (id),
  order_id        TEXT NOT NULL REFERENCES listing_orders (id),
  kind            TEXT NOT NULL CHECK (kind IN ('share', 'reversal')),
  gross_cents     INTEGER NOT NULL,
  fee_cents       INTEGER NOT NULL,
  amount_cents    INTEGER NOT NULL,            -- the operator's part; negative for a reversal
  created_at      TEXT NOT NULL,
  UNIQUE (order_id, kind)
);
CREATE INDEX ledger_lease ON ledger_entries (lease_id, id);

-- Each payment callback's event id, recorded in the same transaction as its effect: a replay is a no-op.
CREATE TABLE payment_events (
  event_id     TEXT PRIMARY KEY,
  provider     TEXT NOT NULL,
  type         TEXT NOT NULL,
  reference    TEXT,
  received_at  TEXT NOT NULL
);

-- The local provider's hosted checkout sessions (the embedded default; Stripe keeps its own).
CREATE TABLE local_checkout_sessions (
  id            TEXT PRIMARY KEY,            -- cs_local_ + UUID: unguessable, it is the page's address
  reference     TEXT NOT NULL,               -- lo_... or tl_...
  mode          TEXT NOT NULL CHECK (mode IN ('payment', 'subscription')),
  description   TEXT NOT NULL,
  amount_cents  INTEGER NOT NULL,
  currency      TEXT NOT NULL,
  email         TEXT NOT NULL,
  success_url   TEXT NOT NULL,
  cancel_url    TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('open', 'complete', 'expired')),
  expires_at    TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  UNIQUE (reference, mode)
);
