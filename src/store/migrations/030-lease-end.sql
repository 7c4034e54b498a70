-- What an operator sets belongs to the lease they set it under: when that lease ends (cancelled,
-- its subscription ended, ended by staff), the notes dated after its end and the feeds they added
-- stop (kept for staff to see). NULL: set by staff (or by the directory, for feeds), under no lease.
-- (No foreign key: a row whose lease is unknown names one that does not exist, below.)
ALTER TABLE town_notes ADD COLUMN lease_id TEXT;
ALTER TABLE town_feeds ADD COLUMN lease_id TEXT;

-- Rows written before this column existed were written at the desk, by an operator of the town: the
-- lease is that operator's latest of the town. A row whose writer matches no lease keeps a lease id
-- that names no lease, so it is withheld rather than printed with nobody's authority.
UPDATE town_notes SET lease_id = COALESCE((SELECT l.id FROM leases l
    WHERE l.place_geoid = town_notes.place_geoid AND l.operator_email = town_notes.updated_by AND l.activated_at IS NOT NULL
    ORDER BY l.activated_at DESC LIMIT 1), 'tl_unknown');
UPDATE town_feeds SET lease_id = COALESCE((SELECT l.id FROM leases l
    WHERE l.place_geoid = town_feeds.place_geoid AND l.operator_email = town_feeds.added_by AND l.activated_at IS NOT NULL
    ORDER BY l.activated_at DESC LIMIT 1), 'tl_unknown')
  WHERE added_by NOT IN ('staff', 'directory');

-- Who holds an unpaid reservation: a keyed hash of the client's address (never the address), so
-- one client holds at most a few towns at once (src/services/commerce/territories.ts).
ALTER TABLE leases ADD COLUMN reserved_by TEXT;
CREATE INDEX leases_reserved_by ON leases (reserved_by, reserved_until) WHERE status = 'reserved';
