-- The authorization server operators sign their AI clients in with (src/services/oauth/): what
-- oidc-provider keeps (grants, authorization codes, access and refresh tokens, interactions,
-- sessions, dynamically registered clients), one row per model instance, its payload as JSON.
-- Tokens are looked up by their own value (an opaque token is its id); a grant's tokens share
-- grant_id, so revoking a grant is one statement.
CREATE TABLE oauth_models (
  model       TEXT NOT NULL,              -- oidc-provider's model name: Grant, AccessToken, RefreshToken...
  id          TEXT NOT NULL,
  payload     TEXT NOT NULL,              -- the model's JSON as oidc-provider gave it
  grant_id    TEXT,                       -- tokens and codes: the grant they belong to
  uid         TEXT,                       -- sessions: their fixed uid
  account_id  TEXT,                       -- grants: the operator's email address
  expires_at  INTEGER,                    -- epoch seconds; NULL: kept until destroyed
  consumed_at INTEGER,                    -- epoch seconds a code or refresh token was used
  PRIMARY KEY (model, id)
) WITHOUT ROWID;
CREATE INDEX oauth_models_grant ON oauth_models (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_models_uid ON oauth_models (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_models_account ON oauth_models (account_id) WHERE account_id IS NOT NULL;
CREATE INDEX oauth_models_expiry ON oauth_models (expires_at) WHERE expires_at IS NOT NULL;

-- The authorization server's signing keys (a JWK set with private parts), made on first use.
CREATE TABLE oauth_keys (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  jwks        TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
