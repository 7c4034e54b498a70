-- A reader who unsubscribed and subscribes again is welcomed again (issue #18's defect, fixed with
-- #19): the welcome of a reactivated subscription is a second 'welcome' row for the same subscriber,
-- deduplicated by its own key (`welcome:{subscriber}:{reactivated at}`) rather than by the one-per-
-- subscriber index, which now covers rows without a key (every first welcome and every digest).
DROP INDEX outbox_once;
CREATE UNIQUE INDEX outbox_once ON outbox (kind, subscriber_id, IFNULL(edition_id, 0)) WHERE subscriber_id IS NOT NULL AND dedupe_key IS NULL;
