//! The ledger of a counting job: one row per accepted work unit (audit re-runs left out) with
//! its prefix, weight, count and who counted it how fast. The job's total is
//! `symmetry factor x sum(weight x count)` over these rows, so the ledger alone lets anyone
//! recount any unit and recompute the total.
//!
//! Only a finished job's ledger is a count ([`Ledger::complete`]): the ledger of a running,
//! held or cancelled job also lists the units that have no accepted result yet
//! ([`Ledger::pending`]), so that it can be written as work to resume, never as a total.

use cores::label::Label;
use sqlx::sqlite::SqlitePool;
use sqlx::Row;

use super::{get_opt_u64, get_prefix, get_term, get_u64, parse, Result, StoreError};
use crate::job::{
    CoreSpec, Count, CountCore, JobId, JobKind, JobState, Prefix, UnitState, UnitTerm, WeightedSum,
};

/// One accepted unit of a counting job.
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerRow {
    pub unit: u64,
    /// `Done`, or `Split` when its count covers only the part outside its child units.
    pub state: UnitState,
    /// The unit it was split from (`None` for a unit of the partition or a submitted one).
    pub parent: Option<u64>,
    pub prefix: Prefix,
    pub weight: Count,
    pub solutions: Count,
    pub nodes: u64,
    pub core: CountCore,
    /// `None`: counted by the coordinator at partition time.
    pub worker: Option<u64>,
    pub host: String,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    /// A count by classes: the class whose count `solutions` is (an orbit term, a two-band
    /// class's `B(C)^2`).
    pub term: Option<UnitTerm>,
}

/// A unit of a counting job without an accepted result (queued, leased, held or cancelled):
/// work still to do.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingUnit {
    pub unit: u64,
    pub state: UnitState,
    pub parent: Option<u64>,
    pub prefix: Prefix,
    pub weight: Count,
    pub term: Option<UnitTerm>,
}

/// A counting job's ledger and what it needs to be read alone.
#[derive(Clone, Debug, PartialEq)]
pub struct Ledger {
    pub job: JobId,
    pub name: String,
    pub state: JobState,
    /// SHA-256 of the job's problem (its DLX text), so that a ledger is never resumed on
    /// another problem.
    pub dlx_sha256: String,
    pub symmetry_factor: Count,
    pub core: CoreSpec,
    /// The job's own prefix (included in every row's).
    pub prefix: Prefix,
    /// The units with an accepted result, in id order.
    pub rows: Vec<LedgerRow>,
    /// The units without one, in id order (empty for a finished job).
    pub pending: Vec<PendingUnit>,
}

impl Ledger {
    /// Whether the ledger is the job's count: the job is done and every unit counted. Only
    /// then is [`Ledger::total`] the job's total; otherwise it is the sum so far.
    pub fn complete(&self) -> bool {
        self.state == JobState::Done && self.pending.is_empty()
    }

    /// "running: 54 of 64 units counted" (the job's state and its progress).
    pub fn progress(&self) -> String {
        format!(
            "{}: {} of {} units counted",
            self.state.as_str(),
            self.rows.len(),
            self.rows.len() + self.pending.len()
        )
    }

    /// `symmetry factor x sum(weight x count)`, exact; a two-band class counted in parts adds
    /// `E(C) B(C)^2` once every part is in ([`Ledger::sum`]).
    pub fn total(&self) -> Count {
        self.sum().total() * &self.symmetry_factor
    }

    /// The rows' weighted sum, with the classes whose parts are all counted and those still
    /// open. [`ledger`] refuses a ledger whose rows do not add up, so this always does.
    pub fn sum(&self) -> WeightedSum {
        self.checked_sum().expect("ledger() checked the rows")
    }

    fn checked_sum(&self) -> std::result::Result<WeightedSum, String> {
        let mut sum = WeightedSum::default();
        for r in &self.rows {
            sum.add(r.term.as_ref(), &r.weight, &r.solutions)
                .map_err(|e| format!("unit {}: {e}", r.unit))?;
        }
        Ok(sum)
    }

    /// An orbit count's group order: the sum of its class sizes (`None` for a job whose
    /// units are not class terms).
    pub fn group_order(&self) -> Option<Count> {
        let terms = self.rows.iter().map(|r| (&r.term, &r.weight));
        let pending = self.pending.iter().map(|p| (&p.term, &p.weight));
        let mut any = false;
        let mut order = Count::zero();
        for (term, weight) in terms.chain(pending) {
            term.as_ref()?.orbit()?;
            any = true;
            order += weight;
        }
        any.then_some(order)
    }
}

/// The ledger of counting job `job`, units in id order; `None` for an unknown job or one
/// that is not a counting job.
pub async fn ledger(pool: &SqlitePool, job: JobId) -> Result<Option<Ledger>> {
    let job_i = i64::try_from(job).map_err(|_| StoreError::Range(format!("job {job}")))?;
    let Some(j) = sqlx::query(
        "SELECT name, kind, state, dlx_sha256, symmetry_factor, core, prefix FROM jobs WHERE id = ?",
    )
    .bind(job_i)
    .fetch_optional(pool)
    .await?
    else {
        return Ok(None);
    };
    let kind: String = j.try_get("kind")?;
    match JobKind::parse(&kind) {
        Some(JobKind::Count) => {}
        Some(JobKind::Benchmark) => return Ok(None),
        None => return Err(StoreError::Corrupt(format!("job kind {kind:?}"))),
    }
    let state_text: String = j.try_get("state")?;
    let state = JobState::parse(&state_text)
        .ok_or_else(|| StoreError::Corrupt(format!("job state {state_text:?}")))?;
    let core_text: String = j.try_get("core")?;
    let core = CoreSpec::parse(&core_text)
        .ok_or_else(|| StoreError::Corrupt(format!("job core {core_text:?}")))?;
    let rows = sqlx::query(
        "SELECT u.id, u.state, u.parent_id, u.prefix, u.weight, u.term, r.solutions, r.nodes, r.core, r.worker_id,
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
        let core: String = row.try_get("core")?;
        let u = unit_of(row)?;
        out.push(LedgerRow {
            unit: u.unit,
            state: u.state,
            parent: u.parent,
            prefix: u.prefix,
            weight: u.weight,
            solutions: parse(&row.try_get::<String, _>("solutions")?, "solutions")?,
            nodes: get_u64(row, "nodes")?,
            core: CountCore::parse(&core)
                .ok_or_else(|| StoreError::Corrupt(format!("result core {core:?}")))?,
            worker: get_opt_u64(row, "worker_id")?,
            host: row.try_get("host")?,
            wall_seconds: row.try_get("wall_seconds")?,
            cpu_seconds: row.try_get("cpu_seconds")?,
            term: u.term,
        });
    }
    let pending = sqlx::query(
        "SELECT u.id, u.state, u.parent_id, u.prefix, u.weight, u.term
         FROM units u LEFT JOIN unit_results r ON r.unit_id = u.id
         WHERE u.job_id = ? AND u.audit_of IS NULL AND r.unit_id IS NULL
         ORDER BY u.id",
    )
    .bind(job_i)
    .fetch_all(pool)
    .await?
    .iter()
    .map(unit_of)
    .collect::<Result<Vec<_>>>()?;
    let ledger = Ledger {
        job,
        name: j.try_get("name")?,
        state,
        dlx_sha256: j.try_get("dlx_sha256")?,
        pending,
        symmetry_factor: parse(
            &j.try_get::<String, _>("symmetry_factor")?,
            "symmetry_factor",
        )?,
        core,
        prefix: get_prefix(&j, "prefix")?,
        rows: out,
    };
    ledger
        .checked_sum()
        .map_err(|e| StoreError::Corrupt(format!("job {job}: {e}")))?;
    Ok(Some(ledger))
}

/// A unit's own columns (`id, state, parent_id, prefix, weight, term`) of a row.
fn unit_of(row: &sqlx::sqlite::SqliteRow) -> Result<PendingUnit> {
    let state: String = row.try_get("state")?;
    Ok(PendingUnit {
        unit: get_u64(row, "id")?,
        state: UnitState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("unit state {state:?}")))?,
        parent: get_opt_u64(row, "parent_id")?,
        prefix: get_prefix(row, "prefix")?,
        weight: parse(&row.try_get::<String, _>("weight")?, "weight")?,
        term: get_term(row, "term")?,
    })
}
