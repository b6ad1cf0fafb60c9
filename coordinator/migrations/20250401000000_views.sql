-- dancehall coordinator schema, version 4: views for reading results with plain SQL (issue 10;
-- README "Results as SQL"). They add nothing the tables do not hold; they only join and name.

-- Every job with its progress: units, counted units, the unweighted count of its accepted
-- results (an SQL REAL: exact totals are `dancehall report`'s, summed as u128), and for
-- benchmark jobs its current runs.
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

-- Every accepted unit result with its unit, job and worker: estimate against measurement.
CREATE VIEW v_unit_results AS
    SELECT r.job_id, j.name AS job_name, r.unit_id, u.state, u.prefix, u.weight,
           u.audit_of, r.solutions, r.nodes, r.updates, u.est_nodes AS estimate_nodes,
           CASE WHEN r.nodes > 0 THEN u.est_nodes / r.nodes END AS estimate_ratio,
           r.wall_seconds, r.cpu_seconds, r.core, w.name AS worker, r.host,
           datetime(r.accepted_at / 1000, 'unixepoch') AS accepted
    FROM unit_results r
         JOIN units u ON u.id = r.unit_id
         JOIN jobs j ON j.id = r.job_id
         LEFT JOIN workers w ON w.id = r.worker_id;

-- Every benchmark run with whether it is its task's current one (the others were re-run).
CREATE VIEW v_bench_runs AS
    SELECT b.job_id, j.name AS job_name, b.unit_id, b.instance_id, b.batch, b.difficulty,
           b.config, b.status, b.termination, b.objective, b.bound, b.wall_seconds,
           b.cpu_seconds, b.peak_memory_bytes, b.time_limit_seconds, b.solver,
           b.solver_version, b.host, b.cpu_model, b.cores, b.kernel, b.dancehall_version,
           NOT EXISTS (SELECT 1 FROM units c
                       WHERE c.parent_id = b.unit_id AND c.task IS NOT NULL) AS current,
           datetime(b.accepted_at / 1000, 'unixepoch') AS accepted
    FROM bench_runs b JOIN jobs j ON j.id = b.job_id;
