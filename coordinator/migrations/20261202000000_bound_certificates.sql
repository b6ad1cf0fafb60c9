-- Bounds of the domino benchmark checked outside the solver that proved them
-- (`dancehall domino certify`, cores::domino::Certificate): a claim "`tiles` tiles do not fit"
-- on the instance whose canonical JSON line hashes to `instance_sha256`, settled either by a
-- DRAT proof an independent checker verified ('certified': the optimum is at most tiles - 1)
-- or by a verified placement of at least `tiles` tiles ('fits': the claim is false). The
-- record is kept whole (JSON); the columns are what the report selects by. Never updated:
-- a second check of the same claim is a row of its own.
CREATE TABLE bound_certificates (
    id              INTEGER PRIMARY KEY,
    instance_id     TEXT    NOT NULL,
    instance_sha256 TEXT    NOT NULL,
    tiles           INTEGER NOT NULL CHECK (tiles > 0),
    verdict         TEXT    NOT NULL CHECK (verdict IN ('certified', 'fits')),
    record          TEXT    NOT NULL,
    recorded_at     INTEGER NOT NULL
);
CREATE INDEX bound_certificates_by_instance ON bound_certificates (instance_sha256, tiles);
