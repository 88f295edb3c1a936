-- The analyser stage (mendel.stages) owns the passages' full-text lexemes (migration 0016): lexemes_version is
-- the analyser version that made them, so a changed analyser re-analyses exactly the lexemes another version
-- made. NULL on a row with lexemes: made before versions were recorded (re-analysed like another version's).
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS lexemes_version text;
