-- dancehall coordinator schema, version 9: `units.orbit_term`, set for a unit of an orbit
-- count (the essentially different grids of a Sudoku, by Burnside's lemma): the term of one
-- conjugacy class of the variant's symmetry group, as the JSON of `cores::orbit_term::OrbitTerm`
-- (class, class size, representative, group), written and read only by its `to_json` and
-- `from_json`. The unit's weight is the class size and its count the class's term; the
-- identity's unit is imported (its count is the total grid count over side!, from the total's
-- ledger). NULL for every other unit.

ALTER TABLE units ADD COLUMN orbit_term TEXT;
