-- How a run's bound was obtained (cores::domino::BoundBy: count, cell-search, tile-search,
-- sat, solver), as a column of v_bench_runs beside `bound`, read from the run record that
-- bench_runs keeps whole (`$.answer.bound_by`; NULL for a run without a bound, and for the
-- families that have none). Only the view changes: nothing is stored twice.
DROP VIEW v_bench_runs;

CREATE VIEW v_bench_runs AS
    SELECT b.job_id, j.name AS job_name, b.unit_id, b.family, b.instance_id, b.batch,
           b.difficulty, b.config, b.status, b.termination, b.objective, b.bound,
           json_extract(b.record, '$.answer.bound_by') AS bound_by,
           b.puzzles, b.puzzles_answered, b.puzzles_per_second, b.wall_seconds,
           b.cpu_seconds, b.peak_memory_bytes, b.time_limit_seconds, b.solver,
           b.solver_version, b.host, b.cpu_model, b.cores, b.kernel, b.dancehall_version,
           NOT EXISTS (SELECT 1 FROM units c
                       WHERE c.parent_id = b.unit_id AND c.task IS NOT NULL) AS current,
           datetime(b.accepted_at / 1000, 'unixepoch') AS accepted
    FROM bench_runs b JOIN jobs j ON j.id = b.job_id;
