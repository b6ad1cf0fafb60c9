//! The coordinator as the CLI talks to it: where it is ([`Connection`]), the Jobs service's
//! calls (submit, status, list, cancel, retry, units), the requests built from the specs'
//! domain types, and how a failed call becomes a message. `submit`, `status`, `jobs`,
//! `cancel`, `retry` call a remote coordinator through it; `run` calls its local one.
//!
//! Invariant: this is the only place in the CLI that builds a Jobs request from a spec; the
//! spec readers return domain types and know nothing of the wire.

use cores::label::Label;
use std::path::PathBuf;

use coordinator::server::{bench_task_pb, frozen_file_pb};
use cores::bench::Status;
use proto::client::{self, JobsClient, SUBMIT_CHUNK_BYTES};
use proto::v1 as pb;

use crate::exit::user_error;
use crate::spec::units::WeightedUnits;
use crate::spec::{BenchSpec, JobSpec, Partition};

/// Where the coordinator is and how to prove we may talk to it.
#[derive(clap::Args, Debug, Clone)]
pub struct Connection {
    /// The coordinator's URL: http://HOST:PORT, or https://HOST:PORT with --tls-ca.
    #[arg(long, env = "DANCEHALL_COORDINATOR", default_value_t = default_url())]
    pub coordinator: String,
    /// File holding the coordinator's bearer token (default: $DANCEHALL_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// CA certificate (PEM) that signed the coordinator's TLS certificate.
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
}

fn default_url() -> String {
    format!("http://{}", coordinator::config::DEFAULT_LISTEN_ADDR)
}

impl Connection {
    pub async fn jobs_client(&self) -> anyhow::Result<JobsClient> {
        let token = coordinator::load_token(self.token_file.as_deref())
            .map_err(|e| user_error(e.to_string()))?;
        let channel = client::connect(&self.coordinator, self.tls_ca.as_deref())
            .await
            .map_err(|e| match e {
                client::ClientError::Connect(_) => {
                    anyhow::anyhow!("cannot reach the coordinator at {}: {e}", self.coordinator)
                }
                e => user_error(e.to_string()),
            })?;
        client::jobs(channel, &token).map_err(|e| user_error(e.to_string()))
    }
}

/// A failed call, with a user error for what the user can fix (token, job id, version).
pub fn rpc_error(what: &str, status: tonic::Status) -> anyhow::Error {
    use tonic::Code;
    let msg = format!("{what}: {} ({:?})", status.message(), status.code());
    match status.code() {
        Code::Unauthenticated
        | Code::PermissionDenied
        | Code::NotFound
        | Code::InvalidArgument
        | Code::FailedPrecondition => user_error(msg),
        _ => anyhow::anyhow!(msg),
    }
}

/// A run status given on the command line (`--status timeout,error`): clap's value parser,
/// so that an unknown one is a usage error naming the known ones.
pub fn status_arg(text: &str) -> Result<Status, String> {
    Status::parse(text).ok_or_else(|| format!("unknown run status (known: {})", Status::names()))
}

fn partition_pb(p: &Partition) -> pb::PartitionSettings {
    pb::PartitionSettings {
        unit_node_budget: p.unit_node_budget.unwrap_or(0),
        unit_time_budget_ms: p
            .unit_time_budget_seconds
            .map_or(0, |s| (s * 1000.0).round() as u64),
        audit_share: p.audit_share.unwrap_or(0.0),
        max_units: p.max_units.unwrap_or(0),
        estimate_samples: p.estimate_samples.unwrap_or(0),
        seed: p.seed.unwrap_or(0),
        unit_node_limit: p.unit_node_limit.unwrap_or(0),
        unit_seconds: p.unit_seconds.unwrap_or(0.0),
    }
}

/// The request that submits counting job `job`; `spec_text` is kept by the coordinator.
pub fn count_request(job: &JobSpec, spec_text: &str) -> pb::SubmitJobRequest {
    pb::SubmitJobRequest {
        header: client::header(),
        name: job.name.clone(),
        spec: spec_text.to_string(),
        dlx: cores::xcc::write_dlx(&job.problem),
        prefix: job.prefix.clone(),
        symmetry_factor: job.symmetry_factor.to_string(),
        partition: Some(partition_pb(&job.partition)),
        units: job.units.as_ref().map_or_else(Vec::new, weighted_units_pb),
        core: Some(proto::core::core_spec_pb(job.core)),
        ..Default::default()
    }
}

/// A job's weighted units on the wire; a resumed job's carry their imported results and
/// parents.
fn weighted_units_pb(units: &WeightedUnits) -> Vec<pb::WeightedPrefix> {
    let resumed = units.resume.as_ref().map(|r| &r.units);
    let orbits = units.orbits.as_ref();
    units
        .units
        .iter()
        .enumerate()
        .map(|(k, (prefix, weight))| {
            let unit = resumed.and_then(|r| r.get(k));
            // An orbit count's identity (unit 0) comes imported from the total's ledger.
            let identity = orbits
                .and_then(|o| o.identity.as_ref())
                .filter(|_| k == 0)
                .map(|(i, _)| i);
            pb::WeightedPrefix {
                options: prefix.clone(),
                weight: weight.to_string(),
                term_json: units.term(k).map_or_else(String::new, |t| t.to_json()),
                imported: unit
                    .and_then(|u| u.imported.as_ref())
                    .or(identity)
                    .map(|i| pb::ImportedCount {
                        solutions: i.solutions.to_string(),
                        nodes: i.nodes,
                        core: proto::core::count_core_pb(i.core) as i32,
                        split: i.split,
                        wall_seconds: i.wall_seconds,
                        source: i.source.clone(),
                    }),
                parent: unit.and_then(|u| u.parent).map_or(0, |p| p as u32 + 1),
            }
        })
        .collect()
}

/// The request that submits benchmark `bench` with its tasks and frozen files.
pub fn bench_request(bench: &BenchSpec) -> pb::SubmitJobRequest {
    pb::SubmitJobRequest {
        header: client::header(),
        name: bench.name.clone(),
        spec: bench.text.clone(),
        kind: pb::JobKind::Benchmark as i32,
        tasks: bench.tasks().iter().map(bench_task_pb).collect(),
        files: bench.files().into_iter().map(frozen_file_pb).collect(),
        ..Default::default()
    }
}

/// Submits counting job `job`; prints its warnings on stderr.
pub async fn submit_count(
    jobs: &mut JobsClient,
    job: &JobSpec,
    spec_text: &str,
) -> anyhow::Result<pb::SubmitJobResponse> {
    let resp = client::submit_job(jobs, count_request(job, spec_text), SUBMIT_CHUNK_BYTES)
        .await
        .map_err(|s| rpc_error("submit", s))?;
    for w in &resp.warnings {
        eprintln!("warning: job {}: {w}", job.name);
    }
    Ok(resp)
}

/// Submits a benchmark spec; returns the job id and a line saying what happened (a new job,
/// or the same benchmark resumed).
pub async fn submit_bench(
    jobs: &mut JobsClient,
    bench: &BenchSpec,
) -> anyhow::Result<(u64, String)> {
    let resp = client::submit_job(jobs, bench_request(bench), SUBMIT_CHUNK_BYTES)
        .await
        .map_err(|s| rpc_error("submit", s))?;
    let line = if resp.resumed {
        format!(
            "job {} ({}) resumed: {} recorded runs skipped, {} queued again",
            resp.job_id, bench.name, resp.units_skipped, resp.units
        )
    } else {
        format!("job {} ({}): {} runs", resp.job_id, bench.name, resp.units)
    };
    Ok((resp.job_id, line))
}

/// Queues the runs of benchmark job `job` with one of `statuses` again (every run that is not
/// finished when empty: not optimal, nor solved); returns how many.
pub async fn retry(jobs: &mut JobsClient, job: u64, statuses: &[Status]) -> anyhow::Result<u64> {
    let req = pb::RetryRunsRequest {
        header: client::header(),
        job_id: job,
        statuses: statuses.iter().map(|s| s.as_str().to_owned()).collect(),
    };
    Ok(jobs
        .retry_runs(req)
        .await
        .map_err(|s| rpc_error("retry", s))?
        .into_inner()
        .queued)
}

/// One job's status (`None`: the coordinator does not know it).
pub async fn status(jobs: &mut JobsClient, job_id: u64) -> anyhow::Result<Option<pb::JobInfo>> {
    let req = pb::JobStatusRequest {
        header: client::header(),
        job_id,
    };
    let resp = jobs
        .job_status(req)
        .await
        .map_err(|s| rpc_error("status", s))?;
    Ok(resp.into_inner().job)
}

/// Every job of the coordinator.
pub async fn list(jobs: &mut JobsClient) -> anyhow::Result<Vec<pb::JobInfo>> {
    let req = pb::ListJobsRequest {
        header: client::header(),
    };
    let resp = jobs
        .list_jobs(req)
        .await
        .map_err(|s| rpc_error("jobs", s))?;
    Ok(resp.into_inner().jobs)
}

/// Cancels a job; its status after.
pub async fn cancel(jobs: &mut JobsClient, job_id: u64) -> anyhow::Result<Option<pb::JobInfo>> {
    let req = pb::CancelJobRequest {
        header: client::header(),
        job_id,
    };
    let resp = jobs
        .cancel_job(req)
        .await
        .map_err(|s| rpc_error("cancel", s))?;
    Ok(resp.into_inner().job)
}

/// Every unit of a job (estimates and measurements).
pub async fn units(jobs: &mut JobsClient, job_id: u64) -> anyhow::Result<Vec<pb::UnitInfo>> {
    let req = pb::JobUnitsRequest {
        header: client::header(),
        job_id,
    };
    let resp = jobs
        .job_units(req)
        .await
        .map_err(|s| rpc_error("units", s))?;
    Ok(resp.into_inner().units)
}

pub fn state_name(state: pb::JobState) -> &'static str {
    match state {
        pb::JobState::Running => "running",
        pb::JobState::Done => "done",
        pb::JobState::Cancelled => "cancelled",
        pb::JobState::Unspecified => "?",
    }
}

/// Whether a job has settled, so that waiting on it is over: done with every audit compared
/// or held, cancelled, or running with nothing left to run: every unfinished unit is held
/// (its runs failed on workers as often as the coordinator allows; none leased, none
/// leasable), so the job will not finish by itself. Its alarms say why.
pub fn settled(info: &pb::JobInfo) -> bool {
    match info.state() {
        pb::JobState::Running => {
            info.units_held > 0 && info.units_leased == 0 && info.units_queued == info.units_held
        }
        pb::JobState::Done => info.audits_done + info.audits_held >= info.audits_total,
        _ => true,
    }
}

/// The symmetry factor when it is not 1.
pub fn factor(info: &pb::JobInfo) -> Option<&str> {
    let f = info.symmetry_factor.as_str();
    (!f.is_empty() && f != "1").then_some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(state: pb::JobState, leased: u64, queued: u64, held: u64) -> pb::JobInfo {
        let mut i = pb::JobInfo {
            units_leased: leased,
            units_queued: queued,
            units_held: held,
            ..Default::default()
        };
        i.set_state(state);
        i
    }

    #[test]
    fn a_running_job_has_settled_when_its_only_open_units_are_held() {
        use pb::JobState::{Cancelled, Done, Running};
        assert!(settled(&info(Running, 0, 1, 1)));
        assert!(settled(&info(Running, 0, 3, 3)));
        // Work left to lease or running: wait on.
        assert!(!settled(&info(Running, 0, 2, 1)));
        assert!(!settled(&info(Running, 1, 1, 1)));
        assert!(!settled(&info(Running, 0, 0, 0)));
        assert!(!settled(&info(Running, 2, 0, 0)));
        assert!(settled(&info(Cancelled, 0, 0, 0)));
        // A done job waits for its audits, unless they are held.
        let mut done = info(Done, 0, 0, 0);
        done.audits_total = 3;
        done.audits_done = 2;
        assert!(!settled(&done));
        done.audits_held = 1;
        assert!(settled(&done));
    }
}
