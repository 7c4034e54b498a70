-- A town's archive entries with their publication instant, from the index alone. `published_at` lies
-- after the markdown and HTML in each row, so reading it from the table walks the row's overflow
-- pages: the morning's city feeds (which items to keep) and the dated pages' neighbours read only this.
DROP INDEX editions_place_date_subject;
CREATE INDEX editions_town_entries ON editions (place_geoid, date DESC, subject, published_at);
