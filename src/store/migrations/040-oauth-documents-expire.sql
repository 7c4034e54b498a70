-- Client metadata documents (rows `document {client_id}` of oauth_models) were kept without a
-- deadline. Now one is kept a day after it was fetched, or, once it led to a grant, as long as the
-- client's registration would be: 30 days after its last grant ends (src/services/oauth/client-documents.ts).
-- The rows stored before get the same deadlines.
UPDATE oauth_models SET expires_at = CASE
    WHEN EXISTS (SELECT 1 FROM oauth_models g WHERE g.model = 'Grant' AND json_extract(g.payload, '$.clientId') = substr(oauth_models.id, 10))
    THEN 30 * 86400 + MAX(CAST(strftime('%s', 'now') AS INTEGER), (SELECT MAX(g.expires_at) FROM oauth_models g
      WHERE g.model = 'Grant' AND json_extract(g.payload, '$.clientId') = substr(oauth_models.id, 10)))
    ELSE CAST(strftime('%s', 'now') AS INTEGER) + 86400
  END
WHERE model = 'Client' AND id LIKE 'document %' AND expires_at IS NULL;
