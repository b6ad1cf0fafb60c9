-- dancehall coordinator schema, version 10: `units.term`, the class a unit of a count by classes
-- counts, as the JSON of `cores::unit_term::UnitTerm`: an orbit count's conjugacy class
-- (`cores::orbit_term::OrbitTerm`, its JSON unchanged) or a two-band count's class of
-- top-band column configurations (`cores::grids::two_band::TwoBandClass`: r, class, config,
-- class_size; the unit's weight is the class size and its count B(C)^2). Written and read only
-- by `UnitTerm::to_json` and `from_json`. NULL for every other unit. It supersedes
-- `units.orbit_term` (version 9), whose rows are copied here; that column is no longer
-- written. (A RENAME COLUMN failed with "no such column" in the upgrade test of an older
-- database, `store::tests::the_families_migration_keeps_every_stored_domino_record`, so the
-- column is added and copied instead.)

ALTER TABLE units ADD COLUMN term TEXT;
UPDATE units SET term = orbit_term WHERE orbit_term IS NOT NULL;
