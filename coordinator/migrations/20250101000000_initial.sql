-- dancehall coordinator schema, version 1. Times are milliseconds since the Unix epoch;
-- solution counts are decimal TEXT (u128, never summed in SQL); prefixes are option ids
-- separated by spaces; `remaining` lists such prefixes separated by ';'.

-- One row per submitted counting job.
CREATE TABLE jobs (
    id                  INTEGER PRIMARY KEY,
    name                TEXT    NOT NULL,
    state               TEXT    NOT NULL CHECK (state IN ('running', 'done', 'cancelled')),
    prefix              TEXT    NOT NULL,            -- the job's givens
    symmetry_factor     TEXT    NOT NULL,            -- decimal u128
    unit_node_limit     INTEGER,                     -- NULL: none
    unit_time_budget_ms INTEGER,                     -- NULL: no dynamic re-split
    audit_share         REAL    NOT NULL,
    seed                TEXT    NOT NULL,            -- decimal u64
    dlx                 TEXT    NOT NULL,            -- the problem, Knuth's DLX format
    dlx_sha256          TEXT    NOT NULL,
    spec                TEXT    NOT NULL,            -- the submitted spec, for the record
    created_at          INTEGER NOT NULL,
    finished_at         INTEGER
);

-- Every worker that registered (a restarted worker registers anew).
CREATE TABLE workers (
    id               INTEGER PRIMARY KEY,
    name             TEXT    NOT NULL,
    host             TEXT    NOT NULL,
    threads          INTEGER NOT NULL,
    software_version TEXT    NOT NULL,
    registered_at    INTEGER NOT NULL,
    last_seen        INTEGER NOT NULL
);

-- Work units (and audit re-runs): a prefix of option choices below the job's problem.
CREATE TABLE units (
    id               INTEGER PRIMARY KEY,
    job_id           INTEGER NOT NULL REFERENCES jobs (id),
    parent_id        INTEGER REFERENCES units (id),  -- split from (or audited unit)
    audit_of         INTEGER REFERENCES units (id),  -- set for audit re-runs only
    prefix           TEXT    NOT NULL,               -- full prefix (includes the job's)
    state            TEXT    NOT NULL
                     CHECK (state IN ('queued', 'leased', 'done', 'split', 'cancelled')),
    est_nodes        REAL,                           -- Monte Carlo estimate; NULL: none
    est_nodes_se     REAL,
    est_updates      REAL,
    est_solutions    REAL,
    attempts         INTEGER NOT NULL DEFAULT 0,     -- leases granted so far
    lease_worker     INTEGER REFERENCES workers (id),
    lease_token      TEXT,
    lease_granted_at INTEGER,
    lease_deadline   INTEGER,
    created_at       INTEGER NOT NULL,
    CHECK ((state = 'leased') = (lease_token IS NOT NULL))
);
CREATE INDEX units_by_job ON units (job_id, state);

-- Every lease ever granted; `ended_at`/`end_reason` once it ended
-- (expired, released, reported, rejected, cancelled).
CREATE TABLE leases (
    token      TEXT    PRIMARY KEY,
    unit_id    INTEGER NOT NULL REFERENCES units (id),
    job_id     INTEGER NOT NULL REFERENCES jobs (id),
    attempt    INTEGER NOT NULL,
    worker_id  INTEGER NOT NULL REFERENCES workers (id),
    granted_at INTEGER NOT NULL,
    ended_at   INTEGER,
    end_reason TEXT
);
CREATE INDEX leases_by_unit ON leases (unit_id);

-- The accepted result of a unit: at most one per unit (the primary key), never updated.
CREATE TABLE unit_results (
    unit_id        INTEGER PRIMARY KEY REFERENCES units (id),
    job_id         INTEGER NOT NULL REFERENCES jobs (id),
    worker_id      INTEGER REFERENCES workers (id),  -- NULL: counted at partition time
    solutions      TEXT    NOT NULL,                 -- decimal u128
    nodes          INTEGER NOT NULL,
    updates        INTEGER NOT NULL,
    estimate_nodes REAL    NOT NULL,
    wall_seconds   REAL    NOT NULL,
    cpu_seconds    REAL    NOT NULL,
    host           TEXT    NOT NULL,
    remaining      TEXT    NOT NULL,                 -- subtrees handed back ('' = none)
    accepted_at    INTEGER NOT NULL
);
CREATE INDEX unit_results_by_job ON unit_results (job_id);

-- Every report, accepted or not, with the verdict and why.
CREATE TABLE report_audit (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    at              INTEGER NOT NULL,
    worker_id       INTEGER NOT NULL,
    lease_token     TEXT    NOT NULL,
    unit_id         INTEGER,                         -- NULL: unknown token
    job_id          INTEGER,
    claimed_unit_id INTEGER NOT NULL,
    verdict         TEXT    NOT NULL
                    CHECK (verdict IN ('accepted', 'duplicate', 'stale', 'mismatch', 'rejected')),
    reason          TEXT    NOT NULL,
    solutions       TEXT    NOT NULL,
    nodes           INTEGER NOT NULL,
    updates         INTEGER NOT NULL,
    wall_seconds    REAL    NOT NULL,
    cpu_seconds     REAL    NOT NULL,
    host            TEXT    NOT NULL,
    remaining       TEXT    NOT NULL
);
CREATE INDEX report_audit_by_unit ON report_audit (unit_id);

-- The event log.
CREATE TABLE events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      INTEGER NOT NULL,
    job_id  INTEGER,
    unit_id INTEGER,
    kind    TEXT    NOT NULL,
    message TEXT    NOT NULL
);

-- Alarms raised on jobs: mismatch, audit-mismatch, rejected, attempts.
CREATE TABLE alarms (
    id        INTEGER PRIMARY KEY,
    job_id    INTEGER NOT NULL REFERENCES jobs (id),
    unit_id   INTEGER,
    kind      TEXT    NOT NULL,
    message   TEXT    NOT NULL,
    raised_at INTEGER NOT NULL
);
