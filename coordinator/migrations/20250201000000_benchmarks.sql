-- dancehall coordinator schema, version 2: benchmark jobs (issue 4). A benchmark job's units
-- are (instance, configuration) runs; each accepted run has a row in bench_runs beside its
-- unit_results row (solutions 0), holding the run record the coordinator verified.

ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'count'
    CHECK (kind IN ('count', 'benchmark'));
-- SHA-256 over the frozen files and the tasks (benchmark jobs; NULL for counting jobs).
ALTER TABLE jobs ADD COLUMN manifest_sha256 TEXT;

-- A benchmark unit's task as JSON (instance_id, instance_json, instance_sha256, batch, config,
-- time_limit_seconds, memory_limit_bytes); NULL for counting units. A unit whose parent_id is
-- set re-runs its parent's task (`dancehall retry`).
ALTER TABLE units ADD COLUMN task TEXT;

-- What a worker sent for a benchmark unit, accepted or not.
ALTER TABLE report_audit ADD COLUMN run_record TEXT NOT NULL DEFAULT '';

-- The files a benchmark job was submitted with, frozen: batch files and model files.
CREATE TABLE bench_files (
    job_id INTEGER NOT NULL REFERENCES jobs (id),
    kind   TEXT    NOT NULL CHECK (kind IN ('batch', 'model')),
    name   TEXT    NOT NULL,
    sha256 TEXT    NOT NULL,
    text   TEXT    NOT NULL,
    PRIMARY KEY (job_id, kind, name)
);

-- One row per accepted benchmark run: the verified record and the columns reports query.
-- Never updated; a re-run is a new unit with its own row (view bench_current: the latest).
CREATE TABLE bench_runs (
    unit_id            INTEGER PRIMARY KEY REFERENCES unit_results (unit_id),
    job_id             INTEGER NOT NULL REFERENCES jobs (id),
    instance_id        TEXT    NOT NULL,
    instance_sha256    TEXT    NOT NULL,
    batch              TEXT    NOT NULL,
    difficulty         TEXT    NOT NULL,
    config             TEXT    NOT NULL,
    status             TEXT    NOT NULL CHECK (status IN
                       ('optimal', 'feasible', 'timeout', 'unavailable', 'error', 'wrong')),
    termination        TEXT    NOT NULL,
    objective          INTEGER,
    bound              INTEGER,
    wall_seconds       REAL    NOT NULL,
    cpu_seconds        REAL,
    peak_memory_bytes  INTEGER,
    time_limit_seconds REAL    NOT NULL,
    solver             TEXT    NOT NULL,
    solver_version     TEXT    NOT NULL,
    host               TEXT    NOT NULL,
    cpu_model          TEXT    NOT NULL,
    cores              INTEGER NOT NULL,
    memory_bytes       INTEGER NOT NULL,
    kernel             TEXT    NOT NULL,
    dancehall_version  TEXT    NOT NULL,
    record             TEXT    NOT NULL,              -- the full run record (JSON)
    accepted_at        INTEGER NOT NULL
);
CREATE INDEX bench_runs_by_job ON bench_runs (job_id, instance_id, config);

-- The current run of every task: runs that no later unit re-runs.
CREATE VIEW bench_current AS
    SELECT r.* FROM bench_runs r
    WHERE NOT EXISTS (SELECT 1 FROM units c WHERE c.parent_id = r.unit_id AND c.task IS NOT NULL);
