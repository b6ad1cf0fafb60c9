-- dancehall coordinator schema, version 5: benchmark families. A benchmark task names its
-- problem family (cores::bench::Family): a domino instance, or a slice of a Sudoku puzzle file.
-- A run record now holds what the solver answered as its family's `answer` object
-- (cores::bench::record::Answer); the domino fields objective, bound and placement move into
-- it. bench_runs is rebuilt (SQLite cannot change a CHECK in place): the status `solved` (a
-- Sudoku slice whose every puzzle was answered), `family`, a nullable `difficulty` (a domino
-- instance's; a Sudoku puzzle's is per puzzle) and the per-unit Sudoku figures. bench_puzzles
-- holds one row per puzzle of a Sudoku run.

DROP VIEW v_bench_runs;
DROP VIEW v_jobs;
DROP VIEW bench_current;

CREATE TABLE bench_runs_v5 (
    unit_id            INTEGER PRIMARY KEY REFERENCES unit_results (unit_id),
    job_id             INTEGER NOT NULL REFERENCES jobs (id),
    family             TEXT    NOT NULL CHECK (family IN ('domino', 'sudoku')),
    instance_id        TEXT    NOT NULL,
    instance_sha256    TEXT    NOT NULL,
    batch              TEXT    NOT NULL,
    difficulty         TEXT,                          -- domino: easy, medium, hard
    config             TEXT    NOT NULL,
    status             TEXT    NOT NULL CHECK (status IN
                       ('optimal', 'feasible', 'solved', 'timeout', 'unavailable', 'error',
                        'wrong')),
    termination        TEXT    NOT NULL,
    objective          INTEGER,
    bound              INTEGER,
    -- Sudoku: puzzles in the slice, puzzles answered (unique, solved, multiple, none), and
    -- answered puzzles per second of solving (cores::sudoku::bench::puzzles_per_second).
    puzzles            INTEGER,
    puzzles_answered   INTEGER,
    puzzles_per_second REAL,
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

INSERT INTO bench_runs_v5 (unit_id, job_id, family, instance_id, instance_sha256, batch,
        difficulty, config, status, termination, objective, bound, wall_seconds, cpu_seconds,
        peak_memory_bytes, time_limit_seconds, solver, solver_version, host, cpu_model, cores,
        memory_bytes, kernel, dancehall_version, record, accepted_at)
    SELECT unit_id, job_id, 'domino', instance_id, instance_sha256, batch, difficulty, config,
        status, termination, objective, bound, wall_seconds, cpu_seconds, peak_memory_bytes,
        time_limit_seconds, solver, solver_version, host, cpu_model, cores, memory_bytes,
        kernel, dancehall_version,
        json_remove(
            json_set(record, '$.answer', json_object(
                'family', 'domino',
                'objective', json_extract(record, '$.objective'),
                'bound', json_extract(record, '$.bound'),
                'placement', json(COALESCE(json_extract(record, '$.placement'), '[]')))),
            '$.objective', '$.bound', '$.placement'),
        accepted_at
    FROM bench_runs;

DROP TABLE bench_runs;
ALTER TABLE bench_runs_v5 RENAME TO bench_runs;
CREATE INDEX bench_runs_by_job ON bench_runs (job_id, instance_id, config);

-- What workers sent, in the same shape (only records that are objects are rewritten).
UPDATE report_audit SET run_record = json_remove(
        json_set(run_record, '$.answer', json_object(
            'family', 'domino',
            'objective', json_extract(run_record, '$.objective'),
            'bound', json_extract(run_record, '$.bound'),
            'placement', json(COALESCE(json_extract(run_record, '$.placement'), '[]')))),
        '$.objective', '$.bound', '$.placement')
    WHERE run_record <> '' AND json_valid(run_record)
      AND json_type(run_record) = 'object' AND json_type(run_record, '$.answer') IS NULL
      AND json_type(run_record, '$.placement') IS NOT NULL;

-- One row per puzzle of a Sudoku run: its status (cores::sudoku::bench::PuzzleStatus), the
-- solver's seconds on it (the uniqueness check included) and its difficulty (the PS-1-2
-- search count and the Monte Carlo estimate of the Dancing Links tree below the givens).
CREATE TABLE bench_puzzles (
    unit_id            INTEGER NOT NULL REFERENCES bench_runs (unit_id),
    line               INTEGER NOT NULL,              -- the puzzle's line in its file
    status             TEXT    NOT NULL CHECK (status IN
                       ('unique', 'solved', 'multiple', 'none', 'timeout', 'error', 'wrong')),
    seconds            REAL    NOT NULL,
    ps12_searches      INTEGER,
    tree_nodes         REAL,
    PRIMARY KEY (unit_id, line)
);

CREATE VIEW bench_current AS
    SELECT r.* FROM bench_runs r
    WHERE NOT EXISTS (SELECT 1 FROM units c WHERE c.parent_id = r.unit_id AND c.task IS NOT NULL);

CREATE VIEW v_jobs AS
    SELECT j.id AS job_id, j.name, j.kind, j.state, j.core, j.symmetry_factor,
           datetime(j.created_at / 1000, 'unixepoch') AS created,
           datetime(j.finished_at / 1000, 'unixepoch') AS finished,
           (COALESCE(j.finished_at, (SELECT MAX(r.accepted_at) FROM unit_results r
                                     WHERE r.job_id = j.id)) - j.created_at) / 1000.0
               AS wall_seconds,
           (SELECT COUNT(*) FROM units u WHERE u.job_id = j.id AND u.audit_of IS NULL)
               AS units,
           (SELECT COUNT(*) FROM unit_results r JOIN units u ON u.id = r.unit_id
            WHERE r.job_id = j.id AND u.audit_of IS NULL) AS units_counted,
           (SELECT COUNT(*) FROM bench_current b WHERE b.job_id = j.id) AS current_runs,
           (SELECT COUNT(*) FROM alarms a WHERE a.job_id = j.id) AS alarms
    FROM jobs j;

CREATE VIEW v_bench_runs AS
    SELECT b.job_id, j.name AS job_name, b.unit_id, b.family, b.instance_id, b.batch,
           b.difficulty, b.config, b.status, b.termination, b.objective, b.bound,
           b.puzzles, b.puzzles_answered, b.puzzles_per_second, b.wall_seconds,
           b.cpu_seconds, b.peak_memory_bytes, b.time_limit_seconds, b.solver,
           b.solver_version, b.host, b.cpu_model, b.cores, b.kernel, b.dancehall_version,
           NOT EXISTS (SELECT 1 FROM units c
                       WHERE c.parent_id = b.unit_id AND c.task IS NOT NULL) AS current,
           datetime(b.accepted_at / 1000, 'unixepoch') AS accepted
    FROM bench_runs b JOIN jobs j ON j.id = b.job_id;

-- Every puzzle of every Sudoku run, with its run's configuration and file.
CREATE VIEW v_bench_puzzles AS
    SELECT b.job_id, j.name AS job_name, p.unit_id, b.batch AS file, p.line, b.config,
           p.status, p.seconds, p.ps12_searches, p.tree_nodes,
           NOT EXISTS (SELECT 1 FROM units c
                       WHERE c.parent_id = b.unit_id AND c.task IS NOT NULL) AS current
    FROM bench_puzzles p JOIN bench_runs b ON b.unit_id = p.unit_id
         JOIN jobs j ON j.id = b.job_id;
