-- The site lists each city's archive (date and subject) on its page and twin. Editions are wide rows
-- (markdown, HTML, weather), so reading subjects from the table touches one page per edition; this
-- covering index lets a city's archive be read from the index alone, however old the city gets.
CREATE INDEX editions_place_date_subject ON editions (place_geoid, date DESC, subject);
