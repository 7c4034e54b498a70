-- Each town with a newsletter is an ActivityPub actor (docs/fediverse.md): who follows it, its keys,
-- the instances staff refused, and the editions waiting to be posted to its followers.

-- A remote actor following a town. `inbox` is the actor's own, `shared_inbox` its server's (preferred
-- for delivery: one request per server, not per follower); `host` is the follower's server.
CREATE TABLE fediverse_followers (
  place_geoid   TEXT NOT NULL REFERENCES places (geoid),
  actor_id      TEXT NOT NULL,
  host          TEXT NOT NULL,
  inbox         TEXT NOT NULL,
  shared_inbox  TEXT,
  follow_id     TEXT,                     -- the Follow activity's id, matched by its Undo
  created_at    TEXT NOT NULL,
  PRIMARY KEY (place_geoid, actor_id)
) WITHOUT ROWID;
CREATE INDEX fediverse_followers_host ON fediverse_followers (host);

-- The town actor's signing keys, made on first use: RSA for HTTP signatures (draft-cavage and RFC 9421),
-- Ed25519 for object integrity proofs. JWK, private parts included: never shown anywhere.
CREATE TABLE fediverse_keys (
  place_geoid   TEXT PRIMARY KEY REFERENCES places (geoid),
  rsa_private   TEXT NOT NULL,
  rsa_public    TEXT NOT NULL,
  ed_private    TEXT NOT NULL,
  ed_public     TEXT NOT NULL,
  created_at    TEXT NOT NULL
);

-- Instances staff refused (`npm run admin -- fediverse block HOST`): their follows are refused and
-- their followers removed.
CREATE TABLE fediverse_blocked_instances (
  host        TEXT PRIMARY KEY,
  reason      TEXT,
  created_at  TEXT NOT NULL
);

-- Editions to post to their town's followers: written by the morning (one row per edition of a town
-- with followers), taken by the server's fediverse worker, which hands the post to the delivery queue.
CREATE TABLE fediverse_posts (
  edition_id    INTEGER PRIMARY KEY REFERENCES editions (id),
  queued_at     TEXT NOT NULL,
  sent_at       TEXT
);
CREATE INDEX fediverse_posts_unsent ON fediverse_posts (edition_id) WHERE sent_at IS NULL;
