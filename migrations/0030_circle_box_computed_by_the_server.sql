-- The box of a radius's circle for the nearby query is computed by the server
-- (`domain::geo::circle_box`, the same box search covers with grid cells) and bound as four
-- numbers, so one definition of the box remains.
DROP FUNCTION dwithin_box(float8, float8, float8);
