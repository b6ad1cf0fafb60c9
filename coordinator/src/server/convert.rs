//! Conversions between `proto` messages and domain types, written by hand at the edge
//! (domain types never derive prost), and the protocol-version check.
//!
//! Invariant: everything a client sends is checked here before the scheduler sees it: the
//! protocol version, decimal counts (`Count`: digits only, of any size), counters that fit the store
//! (at most i64::MAX), prefixes and lease tokens.

use cores::label::Label;
use proto::core::{core_spec_pb, count_core, count_core_pb};
use proto::v1 as pb;
use tonic::Status;

use crate::job::{
    Alarm, BenchTask, Capabilities, CoreSpec, Count, Family, FileKind, FrozenFile, JobKind,
    JobState, LeaseToken, Millis, Unit, UnitResult, UnitState, UnitTerm, Verdict,
};
use crate::partition::{Imported, Seed};
use crate::scheduler::{Granted, JobStatus};
use crate::Error;

/// Refuses a request of another protocol version (or without a header).
pub fn check_header(header: Option<&pb::RequestHeader>) -> Result<(), Status> {
    let theirs = header.map_or(0, |h| h.protocol_version);
    if theirs == proto::PROTOCOL_VERSION {
        return Ok(());
    }
    let theirs = if header.is_none() {
        "none (no request header)".to_string()
    } else {
        theirs.to_string()
    };
    Err(Status::failed_precondition(format!(
        "protocol version mismatch: this coordinator speaks dancehall protocol version {}, \
         the request carries version {theirs}; run the same dancehall release on both sides",
        proto::PROTOCOL_VERSION
    )))
}

/// Parses a decimal count of any size (digits only, no sign, no spaces).
pub fn parse_count(s: &str, what: &str) -> Result<Count, Error> {
    s.parse()
        .map_err(|e| Error::InvalidArgument(format!("{what}: {e}")))
}

/// A unit's weight or a job's factor: a decimal count of at least 1 ("" means 1).
pub fn parse_weight(s: &str, what: &str) -> Result<Count, Error> {
    if s.is_empty() {
        return Ok(Count::one());
    }
    let w = parse_count(s, what)?;
    if w.is_zero() {
        return Err(Error::InvalidArgument(format!("{what} must be at least 1")));
    }
    Ok(w)
}

/// The weighted units of a submission; a bad weight, imported count or parent names the
/// unit's index.
pub fn seeds(units: Vec<pb::WeightedPrefix>) -> Result<Vec<Seed>, Error> {
    let n = units.len();
    units
        .into_iter()
        .enumerate()
        .map(|(i, u)| {
            let parent = match u.parent {
                0 => None,
                p if (p as usize) <= n => Some(p as usize - 1),
                p => {
                    return Err(Error::InvalidArgument(format!(
                        "unit {i}: parent {p} is not 1 + the index of a unit"
                    )))
                }
            };
            let imported = u
                .imported
                .map(|m| {
                    Ok::<_, Error>(Imported {
                        solutions: parse_count(
                            &m.solutions,
                            &format!("unit {i}: imported solutions"),
                        )?,
                        nodes: m.nodes,
                        core: count_core(m.core()),
                        split: m.split,
                        wall_seconds: m.wall_seconds,
                        source: m.source,
                    })
                })
                .transpose()?;
            let term = match u.term_json.as_str() {
                "" => None,
                json => Some(
                    UnitTerm::from_json(json)
                        .map_err(|e| Error::InvalidArgument(format!("unit {i}: {e}")))?,
                ),
            };
            Ok(Seed {
                weight: parse_weight(&u.weight, &format!("unit {i}: weight"))?,
                prefix: u.options,
                imported,
                parent,
                term,
            })
        })
        .collect()
}

/// A submission's core (unset: DLX); a bad one is INVALID_ARGUMENT.
pub fn core_spec(c: Option<pb::CoreSpec>) -> Result<CoreSpec, Error> {
    proto::core::core_spec(c.as_ref()).map_err(Error::InvalidArgument)
}

fn counter(v: u64, what: &str) -> Result<u64, Error> {
    if v > i64::MAX as u64 {
        return Err(Error::InvalidArgument(format!("{what} {v} is too large")));
    }
    Ok(v)
}

fn seconds(v: f64, what: &str) -> Result<f64, Error> {
    if !v.is_finite() || v < 0.0 {
        return Err(Error::InvalidArgument(format!(
            "{what} must be a finite number >= 0"
        )));
    }
    Ok(v)
}

pub fn token(s: &str) -> Result<LeaseToken, Error> {
    if s.is_empty() || s.len() > 256 {
        return Err(Error::InvalidArgument("bad lease token".to_string()));
    }
    Ok(LeaseToken(s.to_string()))
}

pub fn tokens(v: &[String]) -> Result<Vec<LeaseToken>, Error> {
    v.iter().map(|s| token(s)).collect()
}

/// What a worker said it can run; a request without the message (not said) restricts nothing.
pub fn capabilities(c: Option<pb::Capabilities>) -> Capabilities {
    match c {
        None => Capabilities::default(),
        Some(c) => Capabilities {
            bench_configs: Some(c.bench_configs.into_iter().collect()),
            memory_bytes: c.memory_bytes,
            cpus: c.cpus,
        },
    }
}

pub fn unit_result(r: Option<pb::UnitResult>) -> Result<UnitResult, Error> {
    let r = r.ok_or_else(|| Error::InvalidArgument("the report has no result".to_string()))?;
    Ok(UnitResult {
        solutions: parse_count(&r.solutions, "solutions")?,
        nodes: counter(r.nodes, "nodes")?,
        updates: counter(r.updates, "updates")?,
        estimate_nodes: if r.estimate_nodes.is_finite() {
            r.estimate_nodes
        } else {
            0.0
        },
        wall_seconds: seconds(r.wall_seconds, "wall_seconds")?,
        cpu_seconds: seconds(r.cpu_seconds, "cpu_seconds")?,
        host: r.host.chars().take(256).collect(),
        core: count_core(r.core()),
        remaining: r.remaining.into_iter().map(|p| p.options).collect(),
        run_record_json: r.run_record_json,
    })
}

pub fn job_kind(k: JobKind) -> pb::JobKind {
    match k {
        JobKind::Count => pb::JobKind::Count,
        JobKind::Benchmark => pb::JobKind::Benchmark,
    }
}

/// A submitted task; the coordinator checks it further (`crate::bench::check_tasks`). An
/// empty family is domino (clients from before families were named).
pub fn bench_task(t: pb::BenchTask) -> Result<BenchTask, Error> {
    let family = match t.family.as_str() {
        "" => Family::Domino,
        f => Family::parse(f).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "task ({}, {}): unknown family {f:?} (known: domino, sudoku)",
                t.instance_id, t.config
            ))
        })?,
    };
    Ok(BenchTask {
        family,
        instance_id: t.instance_id,
        instance_json: t.instance_json,
        instance_sha256: t.instance_sha256,
        batch: t.batch,
        config: t.config,
        time_limit_seconds: t.time_limit_seconds,
        memory_limit_bytes: (t.memory_limit_bytes > 0).then_some(t.memory_limit_bytes),
        needs: (!t.needs.is_empty()).then_some(t.needs),
    })
}

pub fn bench_task_pb(t: &BenchTask) -> pb::BenchTask {
    pb::BenchTask {
        instance_id: t.instance_id.clone(),
        instance_json: t.instance_json.clone(),
        instance_sha256: t.instance_sha256.clone(),
        config: t.config.clone(),
        time_limit_seconds: t.time_limit_seconds,
        memory_limit_bytes: t.memory_limit_bytes.unwrap_or(0),
        batch: t.batch.clone(),
        family: t.family.as_str().to_string(),
        needs: t.needs.clone().unwrap_or_default(),
    }
}

pub fn frozen_file(f: pb::FrozenFile) -> Result<FrozenFile, Error> {
    let kind = FileKind::parse(&f.kind).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "file {}: kind must be `batch`, `model` or `config`, got {:?}",
            f.name, f.kind
        ))
    })?;
    Ok(FrozenFile {
        kind,
        name: f.name,
        sha256: f.sha256,
        text: f.text,
    })
}

pub fn frozen_file_pb(f: FrozenFile) -> pb::FrozenFile {
    pb::FrozenFile {
        kind: f.kind.as_str().to_string(),
        name: f.name,
        sha256: f.sha256,
        text: f.text,
    }
}

pub fn verdict(v: Verdict) -> pb::ReportVerdict {
    match v {
        Verdict::Accepted => pb::ReportVerdict::Accepted,
        Verdict::Duplicate => pb::ReportVerdict::Duplicate,
        Verdict::Stale => pb::ReportVerdict::Stale,
        Verdict::Mismatch => pb::ReportVerdict::Mismatch,
        Verdict::Rejected => pb::ReportVerdict::Rejected,
    }
}

pub fn granted(g: Granted, lease_duration_ms: u64) -> pb::Unit {
    pb::Unit {
        unit_id: g.unit.id,
        attempt: g.lease.attempt,
        lease_token: g.lease.token.0,
        job_id: g.unit.job,
        prefix: g.unit.prefix,
        estimate_nodes: g.unit.estimate.map_or(0.0, |e| e.nodes),
        node_budget: g.node_limit.unwrap_or(0),
        time_budget_ms: g.time_budget_ms.unwrap_or(0),
        lease_duration_ms,
        audit: g.unit.audit_of.is_some(),
        bench: g.unit.task.as_ref().map(bench_task_pb),
        weight: g.unit.weight.to_string(),
        term_json: term_json(g.unit.term.as_ref()),
    }
}

pub fn job_state(s: JobState) -> pb::JobState {
    match s {
        JobState::Running => pb::JobState::Running,
        JobState::Done => pb::JobState::Done,
        JobState::Cancelled => pb::JobState::Cancelled,
    }
}

pub fn unit_state(s: UnitState) -> pb::UnitState {
    match s {
        UnitState::Queued => pb::UnitState::Queued,
        UnitState::Leased => pb::UnitState::Leased,
        UnitState::Done => pb::UnitState::Done,
        UnitState::Split => pb::UnitState::Split,
        UnitState::Cancelled => pb::UnitState::Cancelled,
    }
}

fn alarm(a: Alarm) -> pb::Alarm {
    pb::Alarm {
        alarm_id: a.id,
        unit_id: a.unit.unwrap_or(0),
        kind: a.kind.as_str().to_string(),
        message: a.message,
        raised_at_ms: a.raised_at,
    }
}

pub fn job_info(st: JobStatus, now: Millis, with_alarms: bool) -> pb::JobInfo {
    let j = st.job;
    let end = j.finished_at.unwrap_or(now);
    pb::JobInfo {
        job_id: j.id,
        name: j.name,
        state: job_state(j.state) as i32,
        units_total: st.units_total,
        units_done: st.units_done,
        units_leased: st.units_leased,
        units_queued: st.units_queued,
        solutions: st.solutions.to_string(),
        symmetry_factor: j.symmetry_factor.to_string(),
        solutions_times_symmetry: (&st.weighted_solutions * &j.symmetry_factor).to_string(),
        weighted_solutions: st.weighted_solutions.to_string(),
        weighted: st.weighted,
        core: Some(core_spec_pb(j.settings.core)),
        nodes: st.nodes,
        updates: st.updates,
        elapsed_seconds: end.saturating_sub(j.created_at) as f64 / 1000.0,
        unit_wall_seconds: st.unit_wall_seconds,
        unit_cpu_seconds: st.unit_cpu_seconds,
        audits_total: st.audits_total,
        audits_done: st.audits_done,
        units_held: st.units_held,
        audits_held: st.audits_held,
        alarms: if with_alarms {
            st.alarms.into_iter().map(alarm).collect()
        } else {
            Vec::new()
        },
        created_at_ms: j.created_at,
        finished_at_ms: j.finished_at.unwrap_or(0),
        workers: st.workers,
        kind: job_kind(j.kind) as i32,
        run_statuses: st.run_statuses.into_iter().collect(),
    }
}

/// `current`: for a benchmark unit, whether it is its task's current run.
pub fn unit_info(u: &Unit, acc: Option<&crate::job::Accepted>, current: bool) -> pb::UnitInfo {
    let r = acc.map(|a| &a.result);
    pb::UnitInfo {
        unit_id: u.id,
        parent_id: u.parent.unwrap_or(0),
        state: unit_state(u.state) as i32,
        prefix: u.prefix.clone(),
        estimate_nodes: u.estimate.map_or(0.0, |e| e.nodes),
        attempts: u.attempts,
        failures: u.failures,
        deaths: u.deaths,
        solutions: r.map_or_else(String::new, |r| r.solutions.to_string()),
        nodes: r.map_or(0, |r| r.nodes),
        updates: r.map_or(0, |r| r.updates),
        wall_seconds: r.map_or(0.0, |r| r.wall_seconds),
        cpu_seconds: r.map_or(0.0, |r| r.cpu_seconds),
        host: r.map_or_else(String::new, |r| r.host.clone()),
        worker_id: acc.and_then(|a| a.worker).unwrap_or(0),
        has_result: acc.is_some(),
        audit: u.audit_of.is_some(),
        bench: u.task.as_ref().map(bench_task_pb),
        run_record_json: acc
            .and_then(|a| a.bench.as_ref())
            .map_or_else(String::new, |b| b.record.to_json()),
        current,
        weight: u.weight.to_string(),
        core: r.map_or(pb::CountCore::Unspecified, |r| count_core_pb(r.core)) as i32,
        term_json: term_json(u.term.as_ref()),
    }
}

/// A unit's class on the wire ("" for a unit without one).
fn term_json(term: Option<&UnitTerm>) -> String {
    term.map_or_else(String::new, UnitTerm::to_json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plain_decimals_of_any_size() {
        assert_eq!(parse_count("0", "x").unwrap(), Count::zero());
        let max = u128::MAX.to_string();
        assert_eq!(parse_count(&max, "x").unwrap(), Count::from(u128::MAX));
        // 2^128 and the 12x12 Sudoku's count (2x6 boxes), past u128: exact both ways.
        for big in [
            "340282366920938463463374607431768211456",
            "38296278920738107863746324732012492486187417600000",
        ] {
            let c = parse_count(big, "x").unwrap();
            assert!(c.to_u128().is_none());
            assert_eq!(c.to_string(), big);
        }
        for bad in ["", "-1", "+1", " 1", "1e3", "0x10"] {
            let e = parse_count(bad, "solutions").unwrap_err().to_string();
            assert!(e.contains("solutions"), "{bad:?}: {e}");
        }
        assert!(parse_weight("0", "weight").is_err());
        assert_eq!(parse_weight("", "weight").unwrap(), Count::one());
    }

    /// A report's count, a unit's weight and an imported count past 2^128 cross the edge
    /// exact, and a job's totals go back out exact (they were "overflow").
    #[test]
    fn counts_past_2_128_round_trip_through_the_conversions() {
        let big = "38296278920738107863746324732012492486187417600000";
        let n: Count = big.parse().unwrap();
        let r = unit_result(Some(pb::UnitResult {
            solutions: big.into(),
            ..Default::default()
        }))
        .unwrap();
        assert_eq!(r.solutions, n);
        let s = seeds(vec![pb::WeightedPrefix {
            options: vec![0],
            weight: big.into(),
            imported: Some(pb::ImportedCount {
                solutions: big.into(),
                ..Default::default()
            }),
            ..Default::default()
        }])
        .unwrap();
        assert_eq!(s[0].weight, n);
        assert_eq!(s[0].imported.as_ref().unwrap().solutions, n);
        let e = seeds(vec![pb::WeightedPrefix {
            options: vec![0],
            weight: format!("{big}x"),
            ..Default::default()
        }])
        .unwrap_err()
        .to_string();
        assert!(e.contains("unit 0: weight: ") && e.contains("'x'"), "{e}");
    }

    #[test]
    fn a_foreign_protocol_version_is_named_in_the_refusal() {
        assert!(check_header(Some(&pb::RequestHeader {
            protocol_version: proto::PROTOCOL_VERSION
        }))
        .is_ok());
        let e = check_header(Some(&pb::RequestHeader {
            protocol_version: 99,
        }))
        .unwrap_err();
        assert_eq!(e.code(), tonic::Code::FailedPrecondition);
        assert!(e.message().contains("version 99"), "{}", e.message());
        assert!(e
            .message()
            .contains(&format!("version {}", proto::PROTOCOL_VERSION)));
        let e = check_header(None).unwrap_err();
        assert!(e.message().contains("no request header"));
    }
}
