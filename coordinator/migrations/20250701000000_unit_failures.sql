-- dancehall coordinator schema, version 7: `units.failures`, the leases of a unit that ended
-- with a failed run (its worker released it with a failure; an expired lease is not one).
-- A unit whose failures reach the coordinator's failures limit stays `queued` but is held:
-- it is not leased again (an alarm `failed` names it), so a run that fails on every worker
-- cannot be leased forever. Leases that end so have `end_reason` 'failed'.

ALTER TABLE units ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
