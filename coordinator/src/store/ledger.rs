//! The ledger of a counting job: one row per accepted work unit (audit re-runs left out) with
//! its prefix, weight, count and who counted it how fast. The job's total is
//! `symmetry factor x sum(weight x count)` over these rows, so the ledger alone lets anyone
//! recount any unit and recompute the total.

use sqlx::sqlite::SqlitePool;
use sqlx::Row;

use super::{get_opt_u64, get_prefix, get_u64, parse, Result, StoreError};
use crate::job::{CoreSpec, CountCore, JobId, Prefix, UnitState};

/// One accepted unit of a counting job.
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerRow {
    pub unit: u64,
    /// `Done`, or `Split` when its count covers only the part outside its child units.
    pub state: UnitState,
    /// The unit it was split from (`None` for a unit of the partition or a submitted one).
    pub parent: Option<u64>,
    pub prefix: Prefix,
    pub weight: u128,
    pub solutions: u128,
    pub nodes: u64,
    pub core: CountCore,
    /// `None`: counted by the coordinator at partition time.
    pub worker: Option<u64>,
    pub host: String,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
}

/// A counting job's ledger and what it needs to be read alone.
#[derive(Clone, Debug, PartialEq)]
pub struct Ledger {
    pub job: JobId,
    pub name: String,
    pub symmetry_factor: u128,
    pub core: CoreSpec,
    /// The job's own prefix (included in every row's).
    pub prefix: Prefix,
    pub rows: Vec<LedgerRow>,
}

impl Ledger {
    /// `symmetry factor x sum(weight x count)`, or `None` on overflow.
    pub fn total(&self) -> Option<u128> {
        self.rows
            .iter()
            .try_fold(0u128, |acc, r| {
                acc.checked_add(r.weight.checked_mul(r.solutions)?)
            })?
            .checked_mul(self.symmetry_factor)
    }
}

/// The ledger of `job`, units in id order; `None` for an unknown job.
pub async fn ledger(pool: &SqlitePool, job: JobId) -> Result<Option<Ledger>> {
    let job_i = i64::try_from(job).map_err(|_| StoreError::Range(format!("job {job}")))?;
    let Some(j) = sqlx::query("SELECT name, symmetry_factor, core, prefix FROM jobs WHERE id = ?")
        .bind(job_i)
        .fetch_optional(pool)
        .await?
    else {
        return Ok(None);
    };
    let core_text: String = j.try_get("core")?;
    let core = CoreSpec::parse(&core_text)
        .ok_or_else(|| StoreError::Corrupt(format!("job core {core_text:?}")))?;
    let rows = sqlx::query(
        "SELECT u.id, u.state, u.parent_id, u.prefix, u.weight, r.solutions, r.nodes, r.core, r.worker_id,
                r.host, r.wall_seconds, r.cpu_seconds
         FROM units u JOIN unit_results r ON r.unit_id = u.id
         WHERE u.job_id = ? AND u.audit_of IS NULL
         ORDER BY u.id",
    )
    .bind(job_i)
    .fetch_all(pool)
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let state: String = row.try_get("state")?;
        let core: String = row.try_get("core")?;
        out.push(LedgerRow {
            unit: get_u64(row, "id")?,
            state: UnitState::parse(&state)
                .ok_or_else(|| StoreError::Corrupt(format!("unit state {state:?}")))?,
            parent: get_opt_u64(row, "parent_id")?,
            prefix: get_prefix(row, "prefix")?,
            weight: parse(&row.try_get::<String, _>("weight")?, "weight")?,
            solutions: parse(&row.try_get::<String, _>("solutions")?, "solutions")?,
            nodes: get_u64(row, "nodes")?,
            core: CountCore::parse(&core)
                .ok_or_else(|| StoreError::Corrupt(format!("result core {core:?}")))?,
            worker: get_opt_u64(row, "worker_id")?,
            host: row.try_get("host")?,
            wall_seconds: row.try_get("wall_seconds")?,
            cpu_seconds: row.try_get("cpu_seconds")?,
        });
    }
    Ok(Some(Ledger {
        job,
        name: j.try_get("name")?,
        symmetry_factor: parse(
            &j.try_get::<String, _>("symmetry_factor")?,
            "symmetry_factor",
        )?,
        core,
        prefix: get_prefix(&j, "prefix")?,
        rows: out,
    }))
}
