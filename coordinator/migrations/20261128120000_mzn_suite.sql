-- The MiniZinc suite (cores::bench::Family::MznSuite, 'mzn-suite'): any MiniZinc model on its
-- data files, whose runs may also prove that an instance has no solution (the status
-- 'unsatisfiable', cores::bench::Status::Unsatisfiable). SQLite cannot change a CHECK in
-- place: bench_runs is rebuilt with the lists of Family::ALL and Status::ALL (a store test
-- compares them), and bench_puzzles, which references it, with it; the views over them are
-- made again as they were (`v_jobs` as in 20261128000000_v_jobs_exact.sql: no count is
-- summed in SQL). `objective` holds any family's objective
-- (RunRecord::objective_value: a MiniZinc suite's may be negative).

DROP VIEW v_bench_runs;
DROP VIEW v_bench_puzzles;
DROP VIEW v_jobs;
DROP VIEW bench_current;

CREATE TABLE bench_runs_v13 (
    unit_id            INTEGER PRIMARY KEY REFERENCES unit_results (unit_id),
    job_id             INTEGER NOT NULL REFERENCES jobs (id),
    family             TEXT    NOT NULL CHECK (family IN ('domino', 'sudoku', 'mzn-suite')),
    instance_id        TEXT    NOT NULL,
    instance_sha256    TEXT    NOT NULL,
    batch              TEXT    NOT NULL,
    difficulty         TEXT,                          -- domino: easy, medium, hard
    config             TEXT    NOT NULL,
    status             TEXT    NOT NULL CHECK (status IN
                       ('optimal', 'feasible', 'solved', 'unsatisfiable', 'timeout',
                        'unavailable', 'error', 'wrong')),
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
    accepted_at        INTEGER NOT NULL,
    config_sha256      TEXT                           -- the definition's (NULL before them)
);

INSERT INTO bench_runs_v13 (unit_id, job_id, family, instance_id, instance_sha256, batch,
        difficulty, config, status, termination, objective, bound, puzzles, puzzles_answered,
        puzzles_per_second, wall_seconds, cpu_seconds, peak_memory_bytes, time_limit_seconds,
        solver, solver_version, host, cpu_model, cores, memory_bytes, kernel,
        dancehall_version, record, accepted_at, config_sha256)
    SELECT unit_id, job_id, family, instance_id, instance_sha256, batch, difficulty, config,
        status, termination, objective, bound, puzzles, puzzles_answered, puzzles_per_second,
        wall_seconds, cpu_seconds, peak_memory_bytes, time_limit_seconds, solver,
        solver_version, host, cpu_model, cores, memory_bytes, kernel, dancehall_version,
        record, accepted_at, config_sha256
    FROM bench_runs;

CREATE TABLE bench_puzzles_v13 (
    unit_id            INTEGER NOT NULL REFERENCES bench_runs_v13 (unit_id),
    line               INTEGER NOT NULL,              -- the puzzle's line in its file
    status             TEXT    NOT NULL CHECK (status IN
                       ('unique', 'solved', 'multiple', 'none', 'timeout', 'error', 'wrong')),
    seconds            REAL    NOT NULL,
    ps12_searches      INTEGER,
    tree_nodes         REAL,
    PRIMARY KEY (unit_id, line)
);
INSERT INTO bench_puzzles_v13 (unit_id, line, status, seconds, ps12_searches, tree_nodes)
    SELECT unit_id, line, status, seconds, ps12_searches, tree_nodes FROM bench_puzzles;

-- Children first, so that no foreign key is ever left dangling; the renames carry the
-- reference of bench_puzzles over to the new name.
DROP TABLE bench_puzzles;
DROP TABLE bench_runs;
ALTER TABLE bench_runs_v13 RENAME TO bench_runs;
ALTER TABLE bench_puzzles_v13 RENAME TO bench_puzzles;
CREATE INDEX bench_runs_by_job ON bench_runs (job_id, instance_id, config);

CREATE VIEW bench_current AS
    SELECT r.* FROM bench_runs r
    WHERE NOT EXISTS (SELECT 1 FROM units c WHERE c.parent_id = r.unit_id AND c.task IS NOT NULL);

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

CREATE VIEW v_bench_puzzles AS
    SELECT b.job_id, j.name AS job_name, p.unit_id, b.batch AS file, p.line, b.config,
           p.status, p.seconds, p.ps12_searches, p.tree_nodes,
           NOT EXISTS (SELECT 1 FROM units c
                       WHERE c.parent_id = b.unit_id AND c.task IS NOT NULL) AS current
    FROM bench_puzzles p JOIN bench_runs b ON b.unit_id = p.unit_id
         JOIN jobs j ON j.id = b.job_id;

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
