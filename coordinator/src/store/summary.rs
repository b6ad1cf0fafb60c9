//! What reports read (`dancehall report`): every job's head, a counting job's units with
//! their estimates and measurements and who ran them, a job's alarms. Read-only queries;
//! [`open_read_only`] opens a database without creating, migrating or locking it, and
//! [`schema_lag`] says how its schema stands against this build's migrations (a database
//! written by an older dancehall lacks the newer views' columns until it is migrated).

use cores::label::Label;
use std::path::Path;

use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use sqlx::Row;

use super::{get_opt_u64, get_term, get_u64, int, parse, Result};
use crate::job::{Count, JobId, JobKind, JobState, UnitState, UnitTerm};

/// Opens the database at `path` read-only (a write through this pool fails), as it is: no
/// migration runs and nothing is created.
pub async fn open_read_only(path: &Path) -> Result<SqlitePool> {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .foreign_keys(true);
    Ok(SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await?)
}

/// How a database's schema stands against the migrations this build embeds: the ones it
/// has not had (an older dancehall wrote it) and the ones this build does not know (a newer
/// one did).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchemaLag {
    /// This build's migrations the database has not had, oldest first: version, description.
    pub missing: Vec<(i64, String)>,
    /// Migrations the database has had that this build does not know, oldest first.
    pub unknown: Vec<i64>,
}

impl SchemaLag {
    /// Whether the database's schema is exactly this build's.
    pub fn is_current(&self) -> bool {
        self.missing.is_empty() && self.unknown.is_empty()
    }
}

impl std::fmt::Display for SchemaLag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some((version, description)) = self.missing.last() {
            let n = self.missing.len();
            write!(
                f,
                "its schema is older than this dancehall's: {n} migration{} behind (the newest \
                 missing: {version} {description})",
                if n == 1 { "" } else { "s" }
            )?;
        }
        if let Some(version) = self.unknown.last() {
            if !self.missing.is_empty() {
                f.write_str("; ")?;
            }
            write!(
                f,
                "it was written by a newer dancehall (migration {version} is unknown to this one)"
            )?;
        }
        Ok(())
    }
}

/// The database's applied migrations against this build's (`coordinator/migrations/`). A
/// database without the migrations table (not one of ours) lacks every migration.
pub async fn schema_lag(pool: &SqlitePool) -> Result<SchemaLag> {
    let applied: Vec<i64> = if !super::has_table(pool, "_sqlx_migrations").await? {
        Vec::new()
    } else {
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
            .fetch_all(pool)
            .await?
    };
    let migrator = &super::MIGRATOR;
    Ok(SchemaLag {
        missing: migrator
            .iter()
            .filter(|m| applied.binary_search(&m.version).is_err())
            .map(|m| (m.version, m.description.to_string()))
            .collect(),
        unknown: applied
            .iter()
            .copied()
            .filter(|&v| !migrator.version_exists(v))
            .collect(),
    })
}

/// A job as a report names it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobHead {
    pub id: JobId,
    pub name: String,
    pub kind: JobKind,
    pub state: JobState,
    pub symmetry_factor: Count,
    /// Milliseconds since the epoch.
    pub created_at: u64,
    pub finished_at: Option<u64>,
}

/// Every job, oldest first.
pub async fn job_heads(pool: &SqlitePool) -> Result<Vec<JobHead>> {
    let rows = sqlx::query(
        "SELECT id, name, kind, state, symmetry_factor, created_at, finished_at
         FROM jobs ORDER BY id",
    )
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            let kind: String = r.try_get("kind")?;
            let state: String = r.try_get("state")?;
            Ok(JobHead {
                id: get_u64(r, "id")?,
                name: r.try_get("name")?,
                kind: JobKind::parse(&kind)
                    .ok_or_else(|| super::StoreError::Corrupt(format!("job kind {kind:?}")))?,
                state: JobState::parse(&state)
                    .ok_or_else(|| super::StoreError::Corrupt(format!("job state {state:?}")))?,
                symmetry_factor: parse(
                    &r.try_get::<String, _>("symmetry_factor")?,
                    "symmetry_factor",
                )?,
                created_at: get_u64(r, "created_at")?,
                finished_at: get_opt_u64(r, "finished_at")?,
            })
        })
        .collect()
}

/// One work unit of a counting job (audit re-runs left out), with its accepted result if any.
#[derive(Clone, Debug, PartialEq)]
pub struct CountUnit {
    pub unit: u64,
    pub state: UnitState,
    pub weight: Count,
    /// Knuth's estimate of the unit's nodes at partition time (`None`: not estimated).
    pub estimate_nodes: Option<f64>,
    pub result: Option<CountResult>,
    /// A count by classes: the unit's class (an orbit term, a two-band class).
    pub term: Option<UnitTerm>,
}

/// What a worker (or the partitioner) measured on a unit.
#[derive(Clone, Debug, PartialEq)]
pub struct CountResult {
    pub solutions: Count,
    pub nodes: u64,
    pub updates: u64,
    pub wall_seconds: f64,
    /// `None`: counted by the coordinator at partition time.
    pub worker: Option<String>,
    pub host: String,
}

/// The units of counting job `job`, in id order.
pub async fn count_units(pool: &SqlitePool, job: JobId) -> Result<Vec<CountUnit>> {
    let rows = sqlx::query(
        "SELECT u.id, u.state, u.weight, u.est_nodes, u.term, r.unit_id AS counted, r.solutions,
                r.nodes, r.updates, r.wall_seconds, r.host, w.name AS worker
         FROM units u LEFT JOIN unit_results r ON r.unit_id = u.id
              LEFT JOIN workers w ON w.id = r.worker_id
         WHERE u.job_id = ? AND u.audit_of IS NULL ORDER BY u.id",
    )
    .bind(int(job, "job id")?)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            let state: String = r.try_get("state")?;
            let result = match r.try_get::<Option<i64>, _>("counted")? {
                None => None,
                Some(_) => Some(CountResult {
                    solutions: parse(&r.try_get::<String, _>("solutions")?, "solutions")?,
                    nodes: get_u64(r, "nodes")?,
                    updates: get_u64(r, "updates")?,
                    wall_seconds: r.try_get("wall_seconds")?,
                    worker: r.try_get("worker")?,
                    host: r.try_get("host")?,
                }),
            };
            Ok(CountUnit {
                unit: get_u64(r, "id")?,
                state: UnitState::parse(&state)
                    .ok_or_else(|| super::StoreError::Corrupt(format!("unit state {state:?}")))?,
                weight: parse(&r.try_get::<String, _>("weight")?, "weight")?,
                estimate_nodes: r.try_get("est_nodes")?,
                result,
                term: get_term(r, "term")?,
            })
        })
        .collect()
}

/// The alarms of a job: (kind, unit, message), oldest first. The kind is the stored text,
/// not a [`crate::job::AlarmKind`]: reports print every alarm as a problem and never branch on
/// its kind, so one this build does not know (written by a newer coordinator) is still said.
pub async fn job_alarms(
    pool: &SqlitePool,
    job: JobId,
) -> Result<Vec<(String, Option<u64>, String)>> {
    let rows =
        sqlx::query("SELECT kind, unit_id, message FROM alarms WHERE job_id = ? ORDER BY id")
            .bind(int(job, "job id")?)
            .fetch_all(pool)
            .await?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("kind")?,
                get_opt_u64(r, "unit_id")?,
                r.try_get("message")?,
            ))
        })
        .collect()
}

/// A job's worker deaths: the leases of its units that ended with their worker (an expiry, or
/// a worker known dead: `units.deaths`), on how many units, and the unit with the most (the
/// lowest id among equals).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct JobDeaths {
    pub deaths: u64,
    pub units: u64,
    /// The unit with the most deaths.
    pub most: Option<UnitDeaths>,
}

/// One unit's worker deaths (`{"unit": 1, "deaths": 10}` in a report's JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct UnitDeaths {
    pub unit: u64,
    pub deaths: u64,
}

/// The worker deaths of job `job`'s units (audits included: a death is a death).
pub async fn job_deaths(pool: &SqlitePool, job: JobId) -> Result<JobDeaths> {
    let rows = sqlx::query(
        "SELECT id, deaths FROM units WHERE job_id = ? AND deaths > 0 ORDER BY deaths DESC, id",
    )
    .bind(int(job, "job id")?)
    .fetch_all(pool)
    .await?;
    let mut d = JobDeaths::default();
    for r in &rows {
        let (unit, n) = (get_u64(r, "id")?, get_u64(r, "deaths")?);
        d.deaths += n;
        d.units += 1;
        d.most.get_or_insert(UnitDeaths { unit, deaths: n });
    }
    Ok(d)
}
