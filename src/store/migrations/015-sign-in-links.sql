-- Each request for an operator's sign-in link cancels the links that could not be delivered in time
-- and empties the sent ones (src/store/commerce/operator-sessions.ts). Without this, both statements scanned
-- the whole outbox, which holds every digest ever queued.
CREATE INDEX outbox_sign_in_links ON outbox (status, created_at) WHERE kind = 'transactional' AND template = 'operator_sign_in';
