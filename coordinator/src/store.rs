//! The store: one SQLite file (default `results/dancehall.db`) through sqlx, WAL mode,
//! foreign keys on, schema in `coordinator/migrations/` embedded with `sqlx::migrate!()`.
//! Queries are runtime `sqlx::query` calls in free functions taking a `&SqlitePool` (no
//! offline query data needed).
//!
//! Invariant: the database is the authority. Each scheduler [`ChangeSet`] is written by
//! [`apply`] in one transaction (so accepting a result, finishing its unit and queueing the
//! subtrees it handed back happen together or not at all), and [`load`] reads back exactly
//! the [`Snapshot`] the scheduler had. `unit_results.unit_id` is a primary key and results
//! are only ever inserted, so a second accepted result for a unit cannot be written even by a
//! faulty scheduler. Counts, unit weights and symmetry factors are decimal TEXT of any size,
//! read back as `Count`; nothing sums a count in SQL: a job's total is summed in Rust as
//! exact `Count` products weight x solutions ([`job_total`]).
//!
//! Migrations: `20250101000000_initial.sql`, `20250201000000_benchmarks.sql`,
//! `20250301000000_weights.sql` (`units.weight`, `jobs.core`, `unit_results.core`), and the
//! later ones listed in ARCHITECTURE.md.

use cores::label::Label;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use cores::bench::sha256_hex;
use futures::TryStreamExt;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{ConnectOptions, Row};

use crate::job::{
    parse_prefix, parse_prefixes, prefix_text, prefixes_text, Accepted, Alarm, AlarmKind,
    BenchRecord, BenchTask, Capabilities, CoreSpec, Count, CountCore, Difficulty, Family, FileKind,
    FrozenFile, Job, JobId, JobKind, JobSettings, JobState, Lease, LeaseEnd, LeaseToken, Millis,
    RunRecord, Unit, UnitEstimate, UnitResult, UnitState, UnitTerm, WeightedSum, WorkerInfo,
};
use crate::scheduler::{ChangeSet, Event, LeaseRecord, ReportRecord, Snapshot};
use cores::sudoku::bench::PuzzleRun;

mod certificates;
mod ledger;
mod summary;
pub use certificates::{add_certificate, certificates};
pub use ledger::{ledger, Ledger, LedgerRow, PendingUnit};
pub use summary::{
    count_units, job_alarms, job_deaths, job_heads, open_read_only, schema_lag, CountResult,
    CountUnit, JobDeaths, JobHead, SchemaLag, UnitDeaths,
};

/// The schema's migrations (`coordinator/migrations/`), embedded: [`open`] runs them,
/// [`schema_lag`] compares a database against them.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!();

/// The default database file, relative to the working directory.
pub const DEFAULT_DB_PATH: &str = "results/dancehall.db";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the directory of {path}: {source}")]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("corrupt value in the database: {0}")]
    Corrupt(String),
    #[error("value out of range for the database: {0}")]
    Range(String),
    #[error("{0}")]
    Locked(String),
    /// Another coordinator holds the database's lock ([`lock`]).
    #[error("the database {db} is in use by another coordinator ({holder})")]
    InUse { db: String, holder: LockHolder },
    /// [`open`] found tables but no migration history: another program's database, which
    /// dancehall's schema is never written into.
    #[error(
        "{db} is not a dancehall database: it has tables ({tables}) but no dancehall \
         migrations; nothing was written to it"
    )]
    Foreign { db: String, tables: String },
}

/// Who holds a database's lock, as it wrote into the lock file when it took it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockHolder {
    pub pid: Option<u32>,
    /// Where it listens (`http://127.0.0.1:7321`), when it said.
    pub address: Option<String>,
}

impl LockHolder {
    /// This process, listening at `address`.
    fn me(address: Option<&str>) -> LockHolder {
        LockHolder {
            pid: Some(std::process::id()),
            address: address.map(str::to_string),
        }
    }

    /// The lock file's text: `pid N` and `address URL`, a line each.
    fn text(&self) -> String {
        let mut t = String::new();
        if let Some(pid) = self.pid {
            t.push_str(&format!("pid {pid}\n"));
        }
        if let Some(a) = &self.address {
            t.push_str(&format!("address {a}\n"));
        }
        t
    }

    /// Reads what [`LockHolder::text`] wrote (unknown lines, and a lock file an older release
    /// left empty, say nothing).
    fn parse(text: &str) -> LockHolder {
        let mut h = LockHolder::default();
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("pid", pid)) => h.pid = pid.trim().parse().ok(),
                Some(("address", a)) => h.address = Some(a.trim().to_string()),
                _ => {}
            }
        }
        h
    }
}

impl std::fmt::Display for LockHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.pid, &self.address) {
            (Some(pid), Some(a)) => write!(f, "pid {pid}, at {a}"),
            (Some(pid), None) => write!(f, "pid {pid}"),
            (None, Some(a)) => write!(f, "at {a}"),
            (None, None) => f.write_str("a process that did not say which"),
        }
    }
}

/// The exclusive lock of a database ([`lock`]): held until dropped or the process ends.
#[derive(Debug)]
pub struct DbLock {
    _file: std::fs::File,
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Creates the directory `path` lives in, if needed.
fn create_parent(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: path.display().to_string(),
                source,
            })?;
        }
    }
    Ok(())
}

/// Takes the exclusive lock of the database at `path` (the file `<path>.lock`, created if
/// needed), held until the returned [`DbLock`] is dropped or the process ends, and writes
/// this process's id and `address` (where it listens) into the file. Fails with
/// [`StoreError::InUse`], naming the holder as it wrote itself, when another process (or
/// another coordinator in this one) holds it.
pub fn lock(path: &Path, address: Option<&str>) -> Result<DbLock> {
    create_parent(path)?;
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = std::path::PathBuf::from(name);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|source| StoreError::CreateDir {
            path: lock_path.display().to_string(),
            source,
        })?;
    match file.try_lock() {
        Ok(()) => {
            use std::io::Write as _;
            let written = file
                .set_len(0)
                .and_then(|()| (&file).write_all(LockHolder::me(address).text().as_bytes()));
            written.map_err(|e| {
                StoreError::Locked(format!("cannot write {}: {e}", lock_path.display()))
            })?;
            Ok(DbLock { _file: file })
        }
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::InUse {
            db: path.display().to_string(),
            holder: LockHolder::parse(&std::fs::read_to_string(&lock_path).unwrap_or_default()),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Locked(format!(
            "cannot lock {}: {e}",
            lock_path.display()
        ))),
    }
}

/// Whether the database has a table named `name` (an older database may lack a newer one).
async fn has_table(pool: &SqlitePool, name: &str) -> Result<bool> {
    let n: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
            .bind(name)
            .fetch_one(pool)
            .await?;
    Ok(n > 0)
}

/// Opens (creating it and its directory if needed) the database at `path` and runs the
/// migrations.
pub async fn open(path: &Path) -> Result<SqlitePool> {
    create_parent(path)?;
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // WAL + NORMAL survives a killed process (not a power cut between checkpoints).
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10))
        // A statement over a million units takes seconds by nature (the ledger of a 12x12
        // job): a debug line, not a warning on the user's terminal.
        .log_slow_statements(log::LevelFilter::Debug, Duration::from_secs(1));
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(options)
        .await?;
    if let Err(e) = refuse_foreign(&pool, path).await {
        pool.close().await;
        return Err(e);
    }
    MIGRATOR.run(&pool).await?;
    Ok(pool)
}

/// [`StoreError::Foreign`] when the database has tables but not sqlx's migration table: not
/// one that dancehall created (a new, empty file has no tables).
async fn refuse_foreign(pool: &SqlitePool, path: &Path) -> Result<()> {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         ORDER BY name",
    )
    .fetch_all(pool)
    .await?;
    if tables.is_empty() || tables.iter().any(|t| t == "_sqlx_migrations") {
        return Ok(());
    }
    let mut named = tables
        .iter()
        .take(3)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if tables.len() > 3 {
        named.push_str(&format!(" and {} more", tables.len() - 3));
    }
    Err(StoreError::Foreign {
        db: path.display().to_string(),
        tables: named,
    })
}

fn int(v: u64, what: &str) -> Result<i64> {
    i64::try_from(v).map_err(|_| StoreError::Range(format!("{what} = {v}")))
}

fn uint(v: i64, what: &str) -> Result<u64> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("{what} = {v}")))
}

fn opt_int(v: Option<u64>, what: &str) -> Result<Option<i64>> {
    v.map(|v| int(v, what)).transpose()
}

fn parse<T: FromStr>(s: &str, what: &str) -> Result<T> {
    s.parse()
        .map_err(|_| StoreError::Corrupt(format!("{what} = {s:?}")))
}

/// Writes one change set in one transaction.
pub async fn apply(pool: &SqlitePool, c: &ChangeSet) -> Result<()> {
    apply_all(pool, std::slice::from_ref(c)).await
}

/// Writes change sets, in order, in one transaction (group commit: the server batches the
/// change sets of concurrent requests): all of them or none.
pub async fn apply_all(pool: &SqlitePool, sets: &[ChangeSet]) -> Result<()> {
    if sets.iter().all(ChangeSet::is_empty) {
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    // Table by table, each table's rows in the order of the change sets (so a later change to
    // a row wins), parents before children: jobs, then workers and units, then what refers
    // to them. The busy tables are written with multi-row statements, a few per batch rather
    // than a few per unit.
    for c in sets {
        write_jobs(&mut tx, c).await?;
    }
    write_workers(&mut tx, sets).await?;
    write_units(&mut tx, sets).await?;
    write_leases(&mut tx, sets).await?;
    write_results(&mut tx, sets).await?;
    write_reports(&mut tx, sets).await?;
    write_events(&mut tx, sets).await?;
    for c in sets {
        write_alarms(&mut tx, c).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Bound variables per statement at most (SQLite allows 32,766).
const MAX_BINDS: usize = 32_000;

/// A row's values, each bound as it is.
type Values = Vec<Value>;

/// One bound value of a multi-row statement.
enum Value {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(Some(v))
    }
}
impl From<Option<i64>> for Value {
    fn from(v: Option<i64>) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Real(Some(v))
    }
}
impl From<Option<f64>> for Value {
    fn from(v: Option<f64>) -> Self {
        Value::Real(v)
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(Some(v))
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(Some(v.to_string()))
    }
}
impl From<Option<String>> for Value {
    fn from(v: Option<String>) -> Self {
        Value::Text(v)
    }
}

/// `head VALUES (...), (...), ... tail` for `rows`, in as few statements as the bound on
/// variables allows.
///
/// `items` become rows (`row`) one statement's worth at a time, so that a big batch (a job of
/// a million units) never holds all its bound values at once.
async fn insert_rows<T>(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    head: &str,
    tail: &str,
    items: &[&T],
    row: fn(&T) -> Result<Values>,
) -> Result<()> {
    let Some(first) = items.first() else {
        return Ok(());
    };
    let width = row(first)?.len().max(1);
    for items in items.chunks((MAX_BINDS / width).max(1)) {
        let chunk = items
            .iter()
            .map(|item| row(item))
            .collect::<Result<Vec<Values>>>()?;
        let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(head);
        q.push_values(chunk, |mut b, row| {
            for v in row {
                match v {
                    Value::Int(v) => b.push_bind(v),
                    Value::Real(v) => b.push_bind(v),
                    Value::Text(v) => b.push_bind(v),
                };
            }
        });
        q.push(tail);
        q.build().execute(&mut **tx).await?;
    }
    Ok(())
}

async fn write_jobs(tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>, c: &ChangeSet) -> Result<()> {
    for job in &c.jobs {
        let texts = c.job_texts.iter().find(|t| t.job == job.id);
        let (dlx, spec) = texts.map_or(("", ""), |t| (t.dlx.as_str(), t.spec.as_str()));
        sqlx::query(
            "INSERT INTO jobs (id, name, state, prefix, symmetry_factor, unit_node_limit,
                 unit_time_budget_ms, audit_share, seed, dlx, dlx_sha256, spec, created_at,
                 finished_at, kind, manifest_sha256, core)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET state = excluded.state,
                 finished_at = excluded.finished_at",
        )
        .bind(int(job.id, "job id")?)
        .bind(&job.name)
        .bind(job.state.as_str())
        .bind(prefix_text(&job.prefix))
        .bind(job.symmetry_factor.to_string())
        .bind(opt_int(job.settings.unit_node_limit, "unit node limit")?)
        .bind(opt_int(
            job.settings.unit_time_budget_ms,
            "unit time budget",
        )?)
        .bind(job.settings.audit_share)
        .bind(job.settings.seed.to_string())
        .bind(dlx)
        .bind(sha256_hex(dlx))
        .bind(spec)
        .bind(int(job.created_at, "time")?)
        .bind(opt_int(job.finished_at, "time")?)
        .bind(job.kind.as_str())
        .bind(job.manifest.as_deref())
        .bind(job.settings.core.text())
        .execute(&mut **tx)
        .await?;
    }
    for t in &c.job_texts {
        for f in &t.files {
            sqlx::query(
                "INSERT INTO bench_files (job_id, kind, name, sha256, text) VALUES (?, ?, ?, ?, ?)",
            )
            .bind(int(t.job, "job id")?)
            .bind(f.kind.as_str())
            .bind(&f.name)
            .bind(&f.sha256)
            .bind(&f.text)
            .execute(&mut **tx)
            .await?;
        }
    }
    Ok(())
}

async fn write_workers(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    sets: &[ChangeSet],
) -> Result<()> {
    fn row(w: &WorkerInfo) -> Result<Values> {
        Ok(vec![
            int(w.id, "worker id")?.into(),
            w.name.as_str().into(),
            w.host.as_str().into(),
            i64::from(w.threads).into(),
            w.software_version.as_str().into(),
            int(w.registered_at, "time")?.into(),
            int(w.last_seen, "time")?.into(),
            w.capabilities.configs_text().into(),
            int(w.capabilities.memory_bytes, "memory")?.into(),
            i64::from(w.capabilities.cpus).into(),
        ])
    }
    let items: Vec<&WorkerInfo> = sets.iter().flat_map(|c| &c.workers).collect();
    insert_rows(
        tx,
        "INSERT INTO workers (id, name, host, threads, software_version, registered_at,
             last_seen, bench_configs, memory_bytes, cpus) ",
        " ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen,
             bench_configs = excluded.bench_configs, memory_bytes = excluded.memory_bytes,
             cpus = excluded.cpus",
        &items,
        row,
    )
    .await
}

/// Ids grow with creation, so parents are written before their children.
async fn write_units(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    sets: &[ChangeSet],
) -> Result<()> {
    fn row(u: &Unit) -> Result<Values> {
        let e = u.estimate;
        let l = u.lease.as_ref();
        Ok(vec![
            int(u.id, "unit id")?.into(),
            int(u.job, "job id")?.into(),
            opt_int(u.parent, "unit id")?.into(),
            opt_int(u.audit_of, "unit id")?.into(),
            prefix_text(&u.prefix).into(),
            u.state.as_str().into(),
            e.map(|e| e.nodes).into(),
            e.map(|e| e.nodes_std_err).into(),
            e.map(|e| e.updates).into(),
            e.map(|e| e.solutions).into(),
            i64::from(u.attempts).into(),
            opt_int(l.map(|l| l.worker), "worker id")?.into(),
            l.map(|l| l.token.0.clone()).into(),
            opt_int(l.map(|l| l.granted_at), "time")?.into(),
            opt_int(l.map(|l| l.deadline), "time")?.into(),
            int(u.created_at, "time")?.into(),
            task_json(u.task.as_ref())?.into(),
            u.weight.to_string().into(),
            i64::from(u.failures).into(),
            i64::from(u.deaths).into(),
            u.term.as_ref().map(UnitTerm::to_json).into(),
        ])
    }
    let items: Vec<&Unit> = sets.iter().flat_map(|c| &c.units).collect();
    insert_rows(
        tx,
        "INSERT INTO units (id, job_id, parent_id, audit_of, prefix, state, est_nodes,
             est_nodes_se, est_updates, est_solutions, attempts, lease_worker, lease_token,
             lease_granted_at, lease_deadline, created_at, task, weight, failures, deaths,
             term) ",
        " ON CONFLICT (id) DO UPDATE SET state = excluded.state,
             attempts = excluded.attempts, failures = excluded.failures,
             deaths = excluded.deaths,
             lease_worker = excluded.lease_worker,
             lease_token = excluded.lease_token,
             lease_granted_at = excluded.lease_granted_at,
             lease_deadline = excluded.lease_deadline",
        &items,
        row,
    )
    .await
}

async fn write_leases(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    sets: &[ChangeSet],
) -> Result<()> {
    fn row(l: &LeaseRecord) -> Result<Values> {
        let (ended_at, reason) = match &l.ended {
            Some((at, why)) => (Some(int(*at, "time")?), Some(why.as_str().to_string())),
            None => (None, None),
        };
        Ok(vec![
            l.token.0.as_str().into(),
            int(l.unit, "unit id")?.into(),
            int(l.job, "job id")?.into(),
            i64::from(l.attempt).into(),
            int(l.worker, "worker id")?.into(),
            int(l.granted_at, "time")?.into(),
            ended_at.into(),
            reason.into(),
        ])
    }
    let items: Vec<&LeaseRecord> = sets.iter().flat_map(|c| &c.leases).collect();
    insert_rows(
        tx,
        "INSERT INTO leases (token, unit_id, job_id, attempt, worker_id, granted_at, ended_at,
             end_reason) ",
        " ON CONFLICT (token) DO UPDATE SET ended_at = excluded.ended_at,
             end_reason = excluded.end_reason",
        &items,
        row,
    )
    .await
}

/// Accepted results: a plain INSERT, so a second result for the same unit fails the whole
/// transaction. Then the `bench_runs` row of each benchmark result.
async fn write_results(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    sets: &[ChangeSet],
) -> Result<()> {
    fn row(a: &Accepted) -> Result<Values> {
        let r = &a.result;
        Ok(vec![
            int(a.unit, "unit id")?.into(),
            int(a.job, "job id")?.into(),
            opt_int(a.worker, "worker id")?.into(),
            r.solutions.to_string().into(),
            int(r.nodes, "nodes")?.into(),
            int(r.updates, "updates")?.into(),
            r.estimate_nodes.into(),
            r.wall_seconds.into(),
            r.cpu_seconds.into(),
            r.host.as_str().into(),
            prefixes_text(&r.remaining).into(),
            int(a.accepted_at, "time")?.into(),
            r.core.as_str().into(),
        ])
    }
    let items: Vec<&Accepted> = sets.iter().flat_map(|c| &c.results).collect();
    insert_rows(
        tx,
        "INSERT INTO unit_results (unit_id, job_id, worker_id, solutions, nodes, updates,
             estimate_nodes, wall_seconds, cpu_seconds, host, remaining, accepted_at, core) ",
        "",
        &items,
        row,
    )
    .await?;
    for a in sets.iter().flat_map(|c| &c.results) {
        if let Some(b) = &a.bench {
            insert_bench_run(tx, a, b).await?;
        }
    }
    Ok(())
}

async fn write_reports(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    sets: &[ChangeSet],
) -> Result<()> {
    fn row(rep: &ReportRecord) -> Result<Values> {
        let r = &rep.result;
        Ok(vec![
            int(rep.at, "time")?.into(),
            int(rep.worker, "worker id")?.into(),
            rep.token.0.as_str().into(),
            opt_int(rep.unit, "unit id")?.into(),
            opt_int(rep.job, "job id")?.into(),
            int(rep.claimed_unit, "unit id")?.into(),
            rep.verdict.as_str().into(),
            rep.reason.as_str().into(),
            r.solutions.to_string().into(),
            int(r.nodes, "nodes")?.into(),
            int(r.updates, "updates")?.into(),
            r.wall_seconds.into(),
            r.cpu_seconds.into(),
            r.host.as_str().into(),
            prefixes_text(&r.remaining).into(),
            r.run_record_json.as_str().into(),
        ])
    }
    let items: Vec<&ReportRecord> = sets.iter().flat_map(|c| &c.reports).collect();
    insert_rows(
        tx,
        "INSERT INTO report_audit (at, worker_id, lease_token, unit_id, job_id,
             claimed_unit_id, verdict, reason, solutions, nodes, updates, wall_seconds,
             cpu_seconds, host, remaining, run_record) ",
        "",
        &items,
        row,
    )
    .await
}

async fn write_events(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    sets: &[ChangeSet],
) -> Result<()> {
    fn row(e: &Event) -> Result<Values> {
        Ok(vec![
            int(e.at, "time")?.into(),
            opt_int(e.job, "job id")?.into(),
            opt_int(e.unit, "unit id")?.into(),
            e.kind.into(),
            e.message.as_str().into(),
        ])
    }
    let items: Vec<&Event> = sets.iter().flat_map(|c| &c.events).collect();
    insert_rows(
        tx,
        "INSERT INTO events (at, job_id, unit_id, kind, message) ",
        "",
        &items,
        row,
    )
    .await
}

async fn write_alarms(tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>, c: &ChangeSet) -> Result<()> {
    for a in &c.alarms {
        sqlx::query(
            "INSERT INTO alarms (id, job_id, unit_id, kind, message, raised_at)
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(int(a.id, "alarm id")?)
        .bind(int(a.job, "job id")?)
        .bind(opt_int(a.unit, "unit id")?)
        .bind(a.kind.as_str())
        .bind(&a.message)
        .bind(int(a.raised_at, "time")?)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

fn task_json(task: Option<&BenchTask>) -> Result<Option<String>> {
    task.map(|t| {
        serde_json::to_string(t).map_err(|e| StoreError::Range(format!("benchmark task: {e}")))
    })
    .transpose()
}

/// Writes the `bench_runs` row of an accepted benchmark result (its unit row is already
/// written: units come first in [`apply`]). The columns are copies of the typed record's
/// fields, for SQL; the record itself is stored whole (`record`, [`RunRecord::to_json`]).
async fn insert_bench_run(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    a: &Accepted,
    b: &BenchRecord,
) -> Result<()> {
    let row = sqlx::query("SELECT task FROM units WHERE id = ?")
        .bind(int(a.unit, "unit id")?)
        .fetch_one(&mut **tx)
        .await?;
    let task: Option<String> = row.try_get("task")?;
    let task: BenchTask = task
        .as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .ok_or_else(|| StoreError::Corrupt(format!("unit {} has no benchmark task", a.unit)))?;
    let r = &b.record;
    let host = &r.host;
    let puzzles = r.puzzles();
    let sudoku = r.family() == Family::Sudoku;
    let answered = puzzles.iter().filter(|p| p.status.is_answer()).count();
    sqlx::query(
        "INSERT INTO bench_runs (unit_id, job_id, family, instance_id, instance_sha256, batch,
             difficulty, config, status, termination, objective, bound, puzzles,
             puzzles_answered, puzzles_per_second, wall_seconds, cpu_seconds,
             peak_memory_bytes, time_limit_seconds, solver, solver_version, host, cpu_model,
             cores, memory_bytes, kernel, dancehall_version, record, accepted_at, config_sha256)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
             ?, ?, ?, ?)",
    )
    .bind(int(a.unit, "unit id")?)
    .bind(int(a.job, "job id")?)
    .bind(r.family().as_str())
    .bind(&task.instance_id)
    .bind(&task.instance_sha256)
    .bind(&task.batch)
    .bind(b.difficulty.map(|d| d.as_str()))
    .bind(&task.config)
    .bind(r.status.as_str())
    .bind(r.termination.as_str())
    .bind(r.objective_value())
    .bind(r.bound().map(i64::from))
    .bind(sudoku.then_some(puzzles.len() as i64))
    .bind(sudoku.then_some(answered as i64))
    .bind(cores::sudoku::bench::puzzles_per_second(puzzles))
    .bind(r.wall_seconds)
    .bind(r.cpu_seconds)
    .bind(opt_int(r.peak_memory_bytes, "peak memory")?)
    .bind(task.time_limit_seconds)
    .bind(&r.solver)
    .bind(&r.solver_version)
    .bind(&host.hostname)
    .bind(&host.cpu_model)
    .bind(i64::from(host.cores))
    .bind(int(host.memory_bytes, "memory bytes")?)
    .bind(&host.kernel)
    .bind(&host.dancehall_version)
    .bind(r.to_json())
    .bind(int(a.accepted_at, "time")?)
    .bind(&r.config_sha256)
    .execute(&mut **tx)
    .await?;
    fn puzzle_row(item: &(u64, &PuzzleRun)) -> Result<Values> {
        let (unit, p) = *item;
        Ok(vec![
            int(unit, "unit id")?.into(),
            int(p.line as u64, "line")?.into(),
            p.status.as_str().into(),
            p.seconds.into(),
            opt_int(p.difficulty.map(|d| d.ps12_searches), "searches")?.into(),
            p.difficulty.map(|d| d.tree_nodes).into(),
        ])
    }
    let rows: Vec<(u64, &PuzzleRun)> = puzzles.iter().map(|p| (a.unit, p)).collect();
    insert_rows(
        tx,
        "INSERT INTO bench_puzzles (unit_id, line, status, seconds, ps12_searches, tree_nodes) ",
        "",
        &rows.iter().collect::<Vec<_>>(),
        puzzle_row,
    )
    .await?;
    Ok(())
}

fn get_u64(row: &SqliteRow, col: &str) -> Result<u64> {
    uint(row.try_get::<i64, _>(col)?, col)
}

fn get_opt_u64(row: &SqliteRow, col: &str) -> Result<Option<u64>> {
    row.try_get::<Option<i64>, _>(col)?
        .map(|v| uint(v, col))
        .transpose()
}

/// The stored, checked run record and difficulty of a `bench_runs` row.
fn bench_record(row: &SqliteRow) -> Result<BenchRecord> {
    let text: String = row.try_get("record")?;
    let difficulty: Option<String> = row.try_get("difficulty")?;
    Ok(BenchRecord {
        record: RunRecord::from_json(&text).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        difficulty: difficulty
            .map(|d| {
                Difficulty::parse(&d)
                    .ok_or_else(|| StoreError::Corrupt(format!("difficulty {d:?}")))
            })
            .transpose()?,
    })
}

fn get_prefix(row: &SqliteRow, col: &str) -> Result<Vec<u32>> {
    let s: String = row.try_get(col)?;
    parse_prefix(&s).ok_or_else(|| StoreError::Corrupt(format!("{col} = {s:?}")))
}

/// The class a unit counts (`units.term`, `UnitTerm` JSON; NULL: none).
fn get_term(row: &SqliteRow, col: &str) -> Result<Option<UnitTerm>> {
    row.try_get::<Option<String>, _>(col)?
        .map(|t| {
            UnitTerm::from_json(&t).map_err(|e| StoreError::Corrupt(format!("{col} = {t:?}: {e}")))
        })
        .transpose()
}

fn job_from_row(row: &SqliteRow) -> Result<Job> {
    let state: String = row.try_get("state")?;
    let kind: String = row.try_get("kind")?;
    let core: String = row.try_get("core")?;
    Ok(Job {
        id: get_u64(row, "id")?,
        name: row.try_get("name")?,
        kind: JobKind::parse(&kind)
            .ok_or_else(|| StoreError::Corrupt(format!("job kind {kind:?}")))?,
        manifest: row.try_get("manifest_sha256")?,
        state: JobState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("job state {state:?}")))?,
        prefix: get_prefix(row, "prefix")?,
        symmetry_factor: parse(
            &row.try_get::<String, _>("symmetry_factor")?,
            "symmetry_factor",
        )?,
        settings: JobSettings {
            unit_node_limit: get_opt_u64(row, "unit_node_limit")?,
            unit_time_budget_ms: get_opt_u64(row, "unit_time_budget_ms")?,
            audit_share: row.try_get("audit_share")?,
            seed: parse(&row.try_get::<String, _>("seed")?, "seed")?,
            core: CoreSpec::parse(&core)
                .ok_or_else(|| StoreError::Corrupt(format!("job core {core:?}")))?,
        },
        created_at: get_u64(row, "created_at")?,
        finished_at: get_opt_u64(row, "finished_at")?,
    })
}

fn result_from_row(row: &SqliteRow) -> Result<UnitResult> {
    let remaining: String = row.try_get("remaining")?;
    let core: String = row.try_get("core")?;
    Ok(UnitResult {
        solutions: parse(&row.try_get::<String, _>("solutions")?, "solutions")?,
        nodes: get_u64(row, "nodes")?,
        updates: get_u64(row, "updates")?,
        estimate_nodes: row.try_get("estimate_nodes")?,
        wall_seconds: row.try_get("wall_seconds")?,
        cpu_seconds: row.try_get("cpu_seconds")?,
        host: row.try_get("host")?,
        remaining: parse_prefixes(&remaining)
            .ok_or_else(|| StoreError::Corrupt(format!("remaining = {remaining:?}")))?,
        run_record_json: row
            .try_get::<Option<String>, _>("received_record")?
            .unwrap_or_default(),
        core: CountCore::parse(&core)
            .ok_or_else(|| StoreError::Corrupt(format!("result core {core:?}")))?,
    })
}

/// Reads the whole scheduler state back (for a restart).
pub async fn load(pool: &SqlitePool) -> Result<Snapshot> {
    let mut snap = Snapshot::default();
    for row in sqlx::query("SELECT * FROM jobs").fetch_all(pool).await? {
        snap.jobs.push(job_from_row(&row)?);
    }
    // Streamed row by row: a job of a million units must not hold every row at once.
    let mut rows = sqlx::query("SELECT * FROM units").fetch(pool);
    while let Some(row) = rows.try_next().await? {
        let state: String = row.try_get("state")?;
        let estimate = match row.try_get::<Option<f64>, _>("est_nodes")? {
            Some(nodes) => Some(UnitEstimate {
                nodes,
                nodes_std_err: row
                    .try_get::<Option<f64>, _>("est_nodes_se")?
                    .unwrap_or(0.0),
                updates: row.try_get::<Option<f64>, _>("est_updates")?.unwrap_or(0.0),
                solutions: row
                    .try_get::<Option<f64>, _>("est_solutions")?
                    .unwrap_or(0.0),
            }),
            None => None,
        };
        let lease = match row.try_get::<Option<String>, _>("lease_token")? {
            Some(token) => Some(Lease {
                token: LeaseToken(token),
                worker: get_u64(&row, "lease_worker")?,
                attempt: uint(row.try_get("attempts")?, "attempts")? as u32,
                granted_at: get_u64(&row, "lease_granted_at")?,
                deadline: get_u64(&row, "lease_deadline")?,
            }),
            None => None,
        };
        snap.units.push(crate::job::Unit {
            id: get_u64(&row, "id")?,
            job: get_u64(&row, "job_id")?,
            parent: get_opt_u64(&row, "parent_id")?,
            audit_of: get_opt_u64(&row, "audit_of")?,
            prefix: get_prefix(&row, "prefix")?,
            weight: parse(&row.try_get::<String, _>("weight")?, "weight")?,
            estimate,
            task: match row.try_get::<Option<String>, _>("task")? {
                Some(t) => Some(
                    serde_json::from_str(&t)
                        .map_err(|e| StoreError::Corrupt(format!("unit task: {e}")))?,
                ),
                None => None,
            },
            term: get_term(&row, "term")?,
            state: UnitState::parse(&state)
                .ok_or_else(|| StoreError::Corrupt(format!("unit state {state:?}")))?,
            attempts: uint(row.try_get("attempts")?, "attempts")? as u32,
            failures: uint(row.try_get("failures")?, "failures")? as u32,
            deaths: uint(row.try_get("deaths")?, "deaths")? as u32,
            lease,
            created_at: get_u64(&row, "created_at")?,
        });
    }
    drop(rows);
    // The record as received is the accepted report's (report_audit); the stored, checked
    // one is bench_runs.record.
    let mut rows = sqlx::query(
        "SELECT r.*, b.record, b.difficulty,
             (SELECT a.run_record FROM report_audit a
              WHERE a.unit_id = r.unit_id AND a.verdict = 'accepted') AS received_record
         FROM unit_results r LEFT JOIN bench_runs b ON b.unit_id = r.unit_id",
    )
    .fetch(pool);
    while let Some(row) = rows.try_next().await? {
        let bench = match row.try_get::<Option<String>, _>("record")? {
            Some(_) => Some(bench_record(&row)?),
            None => None,
        };
        snap.results.push(Accepted {
            unit: get_u64(&row, "unit_id")?,
            job: get_u64(&row, "job_id")?,
            worker: get_opt_u64(&row, "worker_id")?,
            result: result_from_row(&row)?,
            bench,
            accepted_at: get_u64(&row, "accepted_at")?,
        });
    }
    drop(rows);
    let mut rows = sqlx::query("SELECT * FROM leases").fetch(pool);
    while let Some(row) = rows.try_next().await? {
        let ended = match get_opt_u64(&row, "ended_at")? {
            Some(at) => {
                let why: String = row
                    .try_get::<Option<String>, _>("end_reason")?
                    .unwrap_or_default();
                let why = LeaseEnd::parse(&why)
                    .ok_or_else(|| StoreError::Corrupt(format!("lease end reason {why:?}")))?;
                Some((at, why))
            }
            None => None,
        };
        snap.leases.push(LeaseRecord {
            token: LeaseToken(row.try_get("token")?),
            unit: get_u64(&row, "unit_id")?,
            job: get_u64(&row, "job_id")?,
            attempt: uint(row.try_get("attempt")?, "attempt")? as u32,
            worker: get_u64(&row, "worker_id")?,
            granted_at: get_u64(&row, "granted_at")?,
            ended,
        });
    }
    drop(rows);
    for row in sqlx::query("SELECT * FROM workers").fetch_all(pool).await? {
        snap.workers.push(WorkerInfo {
            id: get_u64(&row, "id")?,
            name: row.try_get("name")?,
            host: row.try_get("host")?,
            threads: uint(row.try_get("threads")?, "threads")? as u32,
            software_version: row.try_get("software_version")?,
            registered_at: get_u64(&row, "registered_at")?,
            last_seen: get_u64(&row, "last_seen")?,
            capabilities: Capabilities {
                bench_configs: Capabilities::configs_from_text(
                    row.try_get::<Option<String>, _>("bench_configs")?
                        .as_deref(),
                ),
                memory_bytes: get_u64(&row, "memory_bytes")?,
                cpus: uint(row.try_get("cpus")?, "cpus")? as u32,
            },
        });
    }
    for row in sqlx::query("SELECT * FROM alarms").fetch_all(pool).await? {
        let kind: String = row.try_get("kind")?;
        snap.alarms.push(Alarm {
            id: get_u64(&row, "id")?,
            job: get_u64(&row, "job_id")?,
            unit: get_opt_u64(&row, "unit_id")?,
            kind: AlarmKind::parse(&kind)
                .ok_or_else(|| StoreError::Corrupt(format!("alarm kind {kind:?}")))?,
            message: row.try_get("message")?,
            raised_at: get_u64(&row, "raised_at")?,
        });
    }
    snap.normalize();
    Ok(snap)
}

/// The texts of a job as submitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredJobTexts {
    pub dlx: String,
    pub dlx_sha256: String,
    pub spec: String,
}

pub async fn job_texts(pool: &SqlitePool, job: JobId) -> Result<Option<StoredJobTexts>> {
    let row = sqlx::query("SELECT dlx, dlx_sha256, spec FROM jobs WHERE id = ?")
        .bind(int(job, "job id")?)
        .fetch_optional(pool)
        .await?;
    row.map(|r| {
        Ok(StoredJobTexts {
            dlx: r.try_get("dlx")?,
            dlx_sha256: r.try_get("dlx_sha256")?,
            spec: r.try_get("spec")?,
        })
    })
    .transpose()
}

/// A job's count straight from the database: the exact sum (in Rust) of weight x solutions
/// over the accepted results of its work units (audit re-runs excluded), before the symmetry
/// factor; a two-band class counted in parts adds `E(C) B(C)^2` once every part is in
/// (`cores::unit_term::WeightedSum`).
pub async fn job_total(pool: &SqlitePool, job: JobId) -> Result<Count> {
    let rows = sqlx::query(
        "SELECT r.solutions, u.weight, u.term FROM unit_results r JOIN units u ON u.id = r.unit_id
         WHERE r.job_id = ? AND u.audit_of IS NULL",
    )
    .bind(int(job, "job id")?)
    .fetch_all(pool)
    .await?;
    let mut total = WeightedSum::default();
    for row in rows {
        let v: Count = parse(&row.try_get::<String, _>("solutions")?, "solutions")?;
        let w: Count = parse(&row.try_get::<String, _>("weight")?, "weight")?;
        let term = get_term(&row, "term")?;
        total
            .add(term.as_ref(), &w, &v)
            .map_err(|e| StoreError::Corrupt(format!("job {job}: {e}")))?;
    }
    Ok(total.total())
}

/// The frozen files of a benchmark job, by kind and name.
pub async fn job_files(pool: &SqlitePool, job: JobId) -> Result<Vec<FrozenFile>> {
    let rows = sqlx::query(
        "SELECT kind, name, sha256, text FROM bench_files WHERE job_id = ? ORDER BY kind, name",
    )
    .bind(int(job, "job id")?)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            let kind: String = r.try_get("kind")?;
            Ok(FrozenFile {
                kind: FileKind::parse(&kind)
                    .ok_or_else(|| StoreError::Corrupt(format!("frozen file kind {kind:?}")))?,
                name: r.try_get("name")?,
                sha256: r.try_get("sha256")?,
                text: r.try_get("text")?,
            })
        })
        .collect()
}

/// The family of benchmark job `job`'s tasks (domino for a job without tasks).
pub async fn bench_family(pool: &SqlitePool, job: JobId) -> Result<Family> {
    let task: Option<String> =
        sqlx::query_scalar("SELECT task FROM units WHERE job_id = ? AND task IS NOT NULL LIMIT 1")
            .bind(int(job, "job id")?)
            .fetch_optional(pool)
            .await?;
    match task {
        None => Ok(Family::Domino),
        Some(t) => serde_json::from_str::<BenchTask>(&t)
            .map(|t| t.family)
            .map_err(|e| StoreError::Corrupt(format!("a task of job {job}: {e}"))),
    }
}

/// One stored benchmark run (a row of `bench_runs`): its checked record, where it came from,
/// and whether it is its task's current run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRun {
    pub unit: u64,
    pub job: JobId,
    pub batch: String,
    pub run: BenchRecord,
    pub accepted_at: Millis,
    pub current: bool,
}

/// Every stored run of benchmark job `job` (current and superseded), by unit id.
pub async fn bench_runs(pool: &SqlitePool, job: JobId) -> Result<Vec<BenchRun>> {
    let rows = sqlx::query(
        "SELECT r.unit_id, r.job_id, r.batch, r.difficulty, r.record, r.accepted_at,
             (EXISTS (SELECT 1 FROM units c
                      WHERE c.parent_id = r.unit_id AND c.task IS NOT NULL)) AS superseded
         FROM bench_runs r WHERE r.job_id = ? ORDER BY r.unit_id",
    )
    .bind(int(job, "job id")?)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(BenchRun {
                unit: get_u64(r, "unit_id")?,
                job: get_u64(r, "job_id")?,
                batch: r.try_get("batch")?,
                run: bench_record(r)?,
                accepted_at: get_u64(r, "accepted_at")?,
                current: !r.try_get::<bool, _>("superseded")?,
            })
        })
        .collect()
}

/// Jobs in the database, oldest first: (id, name, kind, state).
pub async fn list_jobs(pool: &SqlitePool) -> Result<Vec<(JobId, String, String, String)>> {
    let rows = sqlx::query("SELECT id, name, kind, state FROM jobs ORDER BY id")
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| {
            Ok((
                get_u64(r, "id")?,
                r.try_get("name")?,
                r.try_get("kind")?,
                r.try_get("state")?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests;
