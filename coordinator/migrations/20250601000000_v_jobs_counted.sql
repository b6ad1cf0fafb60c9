-- dancehall coordinator schema, version 6: `v_jobs` gains `counted_unweighted`, the column the
-- views migration (version 4) promised and neither version 4 nor version 5 had: the
-- unweighted sum of a job's accepted results (audit re-runs left out), as an SQL REAL, so
-- it is approximate beyond 2^53. Exact totals (weighted, times the symmetry factor, checked
-- for overflow) are `dancehall report`'s and `dancehall ledger`'s, summed as u128 in Rust.

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
           (SELECT TOTAL(CAST(r.solutions AS REAL)) FROM unit_results r
                   JOIN units u ON u.id = r.unit_id
            WHERE r.job_id = j.id AND u.audit_of IS NULL AND u.task IS NULL)
               AS counted_unweighted,
           (SELECT COUNT(*) FROM bench_current b WHERE b.job_id = j.id) AS current_runs,
           (SELECT COUNT(*) FROM alarms a WHERE a.job_id = j.id) AS alarms
    FROM jobs j;
