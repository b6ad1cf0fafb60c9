-- Solver configurations as data (issue 31): a benchmark job freezes each configuration's
-- definition as a file of kind 'config' (cores::bench::ConfigDef as JSON, named by the
-- configuration), and each run stores the SHA-256 of the definition it ran, so that two
-- configurations sharing a name are never compared as one. SQLite cannot alter a CHECK in
-- place: bench_files is rebuilt with the list of cores::bench::FileKind::ALL.
CREATE TABLE bench_files_new (
    job_id INTEGER NOT NULL REFERENCES jobs (id),
    kind   TEXT    NOT NULL CHECK (kind IN ('batch', 'config', 'model')),
    name   TEXT    NOT NULL,
    sha256 TEXT    NOT NULL,
    text   TEXT    NOT NULL,
    PRIMARY KEY (job_id, kind, name)
);
INSERT INTO bench_files_new (job_id, kind, name, sha256, text)
    SELECT job_id, kind, name, sha256, text FROM bench_files;
DROP TABLE bench_files;
ALTER TABLE bench_files_new RENAME TO bench_files;

-- The SHA-256 of the run's configuration definition (NULL for runs stored before it).
ALTER TABLE bench_runs ADD COLUMN config_sha256 TEXT;
