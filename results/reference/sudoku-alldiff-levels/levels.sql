SELECT b.batch AS file, b.config,
       count(*) AS puzzles,
       sum(json_extract(p.value, '$.status') = 'unique') AS "unique",
       round(count(*) / sum(json_extract(p.value, '$.seconds')), 1) AS "puzzles/s",
       round(count(*) / sum(json_extract(p.value, '$.stats.solve_seconds')), 1) AS "gecode puzzles/s",
       round(avg(json_extract(p.value, '$.stats.nodes')), 1) AS "nodes/puzzle",
       round(avg(json_extract(p.value, '$.stats.failures')), 1) AS "failures/puzzle",
       round(avg(json_extract(p.value, '$.stats.propagations')), 1) AS "propagations/puzzle",
       round(1.0 * sum(json_extract(p.value, '$.stats.removed'))
             / sum(json_extract(p.value, '$.stats.propagations')), 2) AS "removed/propagation"
FROM bench_runs b
     JOIN v_bench_runs v ON v.unit_id = b.unit_id AND v.current
     JOIN json_each(b.record, '$.answer.puzzles') p
GROUP BY b.batch, b.config
ORDER BY min(b.unit_id)
