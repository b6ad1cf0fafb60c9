-- dancehall coordinator schema, version 10: `units.orbit_term` becomes `units.term`, the class
-- a unit of a count by classes counts, as the JSON of `cores::unit_term::UnitTerm`: an orbit
-- count's conjugacy class (`cores::orbit_term::OrbitTerm`, its JSON unchanged, so rows written
-- before read back as they were) or a two-band count's class of top-band column
-- configurations (`cores::grids::two_band::TwoBandClass`: r, class, config, class_size; the
-- unit's weight is the class size and its count B(C)^2). Written and read only by
-- `UnitTerm::to_json` and `from_json`. NULL for every other unit.

ALTER TABLE units RENAME COLUMN orbit_term TO term;
