-- A board run by a public body no municipality is (a police directorate, the Ministry of the Interior) is linked to
-- that body by its notices' file numbers (mendel.public_bodies): the unit's name and its scope (national |
-- regional; a regional body's kraj is the board's kraj). Its notices inherit the body as they inherit the place.
ALTER TABLE boards ADD COLUMN IF NOT EXISTS body text;
ALTER TABLE boards ADD COLUMN IF NOT EXISTS body_scope text;
