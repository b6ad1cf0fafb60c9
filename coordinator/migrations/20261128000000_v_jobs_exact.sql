-- dancehall coordinator schema: `v_jobs` loses `counted_unweighted`, the sum of a job's
-- accepted counts as an SQL REAL (approximate beyond 2^53, wrong by orders of magnitude
-- past 2^1024, and meaningless for a weighted job). Counts are decimal TEXT of any size and
-- nothing sums them in SQL: exact totals are summed in Rust as `cores::count::Count`
-- (`dancehall report`, `dancehall ledger`, `coordinator::store::job_total`). Every other
-- column is as in version 6 (`20250601000000_v_jobs_counted.sql`).

DROP VIEW v_jobs;

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
