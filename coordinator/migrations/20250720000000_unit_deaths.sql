-- dancehall coordinator schema, version 8: `units.deaths`, the leases of a unit that ended with
-- their worker's death: expired (except leases granted before a coordinator restart), or
-- ended because the worker was known dead (`end_reason` 'died': a local worker process of
-- `run` that ended, its exit status in the event and the alarm). A unit whose deaths reach
-- the coordinator's deaths limit stays `queued` but is held like a failed one (an alarm
-- `died` names it), so a unit that kills its worker cannot be leased forever.

ALTER TABLE units ADD COLUMN deaths INTEGER NOT NULL DEFAULT 0;
