//! The `Jobs` service for users: submit (partition, then queue), status, cancel, list, units.
//! Partitioning is CPU work and runs on a blocking thread; a malformed job is refused with
//! INVALID_ARGUMENT before anything is written. A counting job may come as weighted units
//! (`units`: each a full prefix and a decimal weight) and name the core its workers count with
//! (`core`; the Sudoku core only for the plain Sudoku of its box shape).

use cores::label::Label;
use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{self, check_header, parse_weight};
use super::Shared;
use crate::job::prefix_text;
use crate::job::{CoreSpec, Count, JobKind, JobSettings, RunStatus};
use crate::partition::{partition_problem, PartitionError, PartitionSettings, Seed};
use crate::scheduler::NewJob;
use crate::sizing::{self, SizingRequest};
use crate::Error;
use cores::xcc::parse_dlx;

pub struct JobsService(pub(super) Arc<Shared>);

/// SHA-256 over everything that defines a counting job's units and total: the problem, the
/// prefix, the factor, the core, the weighted units and the partition settings. A running job
/// with the same name and manifest is resumed by a resubmission.
fn count_manifest(
    r: &pb::SubmitJobRequest,
    seeds: &[Seed],
    core: CoreSpec,
    settings: &PartitionSettings,
    sizing: &SizingRequest,
) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut line = |s: String| {
        h.update(s.as_bytes());
        h.update(b"\n");
    };
    line(format!("dlx\t{}", cores::bench::sha256_hex(&r.dlx)));
    line(format!("prefix\t{}", prefix_text(&r.prefix)));
    line(format!("factor\t{}", r.symmetry_factor));
    line(format!("core\t{}", core.text()));
    line(format!("partition\t{settings:?}\t{sizing:?}"));
    if let Some(p) = &r.partition {
        line(format!("limits\t{}\t{}", p.unit_node_limit, p.audit_share));
    }
    for s in seeds {
        line(format!("unit\t{}\t{}", prefix_text(&s.prefix), s.weight));
        // A resumed job's imported results and tree are part of what defines it.
        if let Some(i) = &s.imported {
            line(format!(
                "imported\t{}\t{}\t{}",
                i.solutions,
                i.split,
                i.core.as_str()
            ));
        }
        if let Some(p) = s.parent {
            line(format!("parent\t{p}"));
        }
        if let Some(t) = &s.term {
            line(format!("term\t{}", t.to_json()));
        }
    }
    hex::encode(h.finalize())
}

impl JobsService {
    /// A benchmark job: checked, frozen, and queued one unit per task; or, when a job of the
    /// same name and manifest exists, that job resumed.
    async fn submit_benchmark(
        &self,
        r: pb::SubmitJobRequest,
    ) -> Result<Response<pb::SubmitJobResponse>, Status> {
        if r.name.trim().is_empty() {
            return Err(Error::InvalidArgument("a benchmark job needs a name".into()).into());
        }
        let tasks = r
            .tasks
            .into_iter()
            .map(convert::bench_task)
            .collect::<Result<Vec<_>, _>>()?;
        let files = r
            .files
            .into_iter()
            .map(convert::frozen_file)
            .collect::<Result<Vec<_>, _>>()?;
        crate::bench::check_tasks(&tasks, &files).map_err(Error::InvalidArgument)?;
        let manifest = crate::bench::manifest_sha256(&tasks, &files);
        let new = NewJob {
            name: r.name,
            kind: JobKind::Benchmark,
            manifest: Some(manifest),
            files,
            prefix: Vec::new(),
            symmetry_factor: Count::one(),
            settings: JobSettings::default(),
            dlx: String::new(),
            spec: r.spec,
            units: tasks
                .into_iter()
                .map(|t| crate::scheduler::NewUnit {
                    prefix: Vec::new(),
                    weight: Count::one(),
                    estimate: None,
                    task: Some(t),
                    term: None,
                    counted: None,
                    split: false,
                    parent: None,
                })
                .collect(),
        };
        let out = self
            .0
            .mutate(move |s, now| s.submit_benchmark(now, new))
            .await?;
        tracing::info!(
            job = out.job,
            queued = out.queued,
            resumed = out.resumed,
            "benchmark job submitted"
        );
        Ok(Response::new(pb::SubmitJobResponse {
            job_id: out.job,
            units: out.queued,
            resumed: out.resumed,
            units_skipped: out.skipped,
            ..Default::default()
        }))
    }

    async fn info(&self, job: u64, with_alarms: bool) -> Result<pb::JobInfo, Error> {
        self.0
            .observe(move |s, now| {
                s.status(job)
                    .map(|st| convert::job_info(st, now, with_alarms))
            })
            .await?
            .map_err(Error::from)
    }
}

impl JobsService {
    /// A whole submission, however it came (one message or a stream).
    async fn submit(
        &self,
        mut r: pb::SubmitJobRequest,
    ) -> Result<Response<pb::SubmitJobResponse>, Status> {
        check_header(r.header.as_ref())?;
        if r.kind() == pb::JobKind::Benchmark {
            return self.submit_benchmark(r).await;
        }
        if r.dlx.trim().is_empty() {
            return Err(Error::InvalidArgument("the job has no DLX text".to_string()).into());
        }
        let symmetry_factor = parse_weight(&r.symmetry_factor, "symmetry_factor")?;
        let seeds = convert::seeds(std::mem::take(&mut r.units))?;
        let core = convert::core_spec(r.core)?;
        let p = r.partition.unwrap_or_default();
        if !(0.0..=1.0).contains(&p.audit_share) {
            return Err(Error::InvalidArgument(format!(
                "audit_share must be between 0 and 1, got {}",
                p.audit_share
            ))
            .into());
        }
        let d = &self.0.config.partition;
        let settings = PartitionSettings {
            // Replaced by the sizing below for a job that is split.
            unit_node_budget: p.unit_node_budget,
            max_units: if p.max_units == 0 {
                d.max_units
            } else {
                p.max_units
            },
            estimate_samples: if p.estimate_samples == 0 {
                d.estimate_samples
            } else {
                p.estimate_samples
            },
            seed: p.seed,
        };
        if !(p.unit_seconds >= 0.0 && p.unit_seconds < 1e9) {
            return Err(Error::InvalidArgument(format!(
                "unit_seconds must be a number of seconds >= 0, got {}",
                p.unit_seconds
            ))
            .into());
        }
        let sizing_request = SizingRequest {
            unit_seconds: if p.unit_seconds > 0.0 {
                p.unit_seconds
            } else {
                d.unit_seconds
            },
            node_budget: (p.unit_node_budget > 0).then_some(p.unit_node_budget),
            time_budget_ms: match p.unit_time_budget_ms {
                0 => d.unit_time_budget.map(|t| t.as_millis() as u64),
                ms => Some(ms),
            },
            samples: settings.estimate_samples,
            seed: p.seed,
        };
        // The same job submitted again while it runs (a `dancehall run` killed and started
        // again on the same database) resumes it instead of counting it twice.
        let manifest = count_manifest(&r, &seeds, core, &settings, &sizing_request);
        let (name, m) = (r.name.clone(), manifest.clone());
        if let Some(out) = self
            .0
            .mutate(move |s, now| s.resume_count(now, &name, &m))
            .await?
        {
            tracing::info!(
                job = out.job,
                open = out.queued,
                done = out.skipped,
                "job resumed"
            );
            return Ok(Response::new(pb::SubmitJobResponse {
                job_id: out.job,
                units: out.queued,
                resumed: true,
                units_skipped: out.skipped,
                ..Default::default()
            }));
        }
        // The Sudoku band core's units are never split, so they need no sizing; the queens
        // core's are split as DLX units are, sized by the rate of the core against the
        // engine's estimates. Specialised cores count a unit whole and ignore the budgets.
        let budgets = core.splits();
        let (dlx, prefix) = (r.dlx, r.prefix);
        let (outcome, dlx, prefix) = tokio::task::spawn_blocking(move || {
            let outcome = (|| {
                let problem = parse_dlx(&dlx).map_err(PartitionError::from)?;
                let mut settings = settings;
                let sizing = if budgets {
                    let sizing = sizing::size(&problem, &prefix, core, &sizing_request)
                        .map_err(PartitionError::from)?;
                    settings.unit_node_budget = sizing.node_budget;
                    settings.max_units = settings.max_units.min(sizing.units_cap);
                    Some(sizing)
                } else {
                    None
                };
                let units = partition_problem(&problem, &prefix, &seeds, core, &settings)?;
                Ok::<_, PartitionError>((units, sizing))
            })();
            (outcome, dlx, prefix)
        })
        .await
        .map_err(|e| Error::Internal(format!("partition task failed: {e}")))?;
        let (units, sizing) = outcome.map_err(Error::from)?;
        let time_budget_ms = sizing.as_ref().map(|s| s.time_budget_ms);
        if let Some(s) = &sizing {
            tracing::info!(sizing = %s.summary(), "job sized");
        }
        let n = units.len() as u64;
        let new = NewJob {
            name: r.name,
            kind: crate::job::JobKind::Count,
            manifest: Some(manifest),
            files: Vec::new(),
            prefix,
            symmetry_factor,
            settings: JobSettings {
                unit_node_limit: (budgets && p.unit_node_limit > 0).then_some(p.unit_node_limit),
                unit_time_budget_ms: time_budget_ms,
                audit_share: p.audit_share,
                seed: p.seed,
                core,
            },
            dlx,
            spec: r.spec,
            units,
        };
        let id = self.0.mutate(move |s, now| s.add_job(now, new)).await?;
        tracing::info!(job = id, units = n, "job submitted");
        Ok(Response::new(pb::SubmitJobResponse {
            job_id: id,
            units: n,
            resumed: false,
            units_skipped: 0,
            warnings: sizing
                .as_ref()
                .map(|s| s.warnings.clone())
                .unwrap_or_default(),
            sizing: sizing.as_ref().map(|s| s.summary()).unwrap_or_default(),
        }))
    }
}

/// RESOURCE_EXHAUSTED when a submission has come to more than `limit` bytes by message
/// `index` (`Config::max_submission_bytes`).
fn within(bytes: u64, limit: u64, index: usize) -> Result<(), Status> {
    if bytes <= limit {
        return Ok(());
    }
    Err(Status::resource_exhausted(format!(
        "the submission passes the coordinator's limit of {limit} bytes at message {index} \
         ({bytes} bytes so far); nothing was submitted"
    )))
}

/// Joins a submission stream's messages into the one request they cut up: the first whole,
/// every later one only more `units` or `tasks` (so that nothing else can be said twice, or
/// differently). A stream that breaks off is an error, and nothing is submitted; so is one
/// whose messages come to more than `limit` bytes, refused (RESOURCE_EXHAUSTED) at the
/// message that passes it, with what was read dropped.
async fn join_stream(
    stream: &mut tonic::Streaming<pb::SubmitJobRequest>,
    limit: u64,
) -> Result<pb::SubmitJobRequest, Status> {
    let Some(mut whole) = stream.message().await? else {
        return Err(Error::InvalidArgument("the submission stream has no message".into()).into());
    };
    let mut bytes = prost::Message::encoded_len(&whole) as u64;
    within(bytes, limit, 0)?;
    let mut index = 1usize;
    while let Some(mut more) = stream.message().await? {
        bytes += prost::Message::encoded_len(&more) as u64;
        within(bytes, limit, index)?;
        whole.units.append(&mut more.units);
        whole.tasks.append(&mut more.tasks);
        if more != pb::SubmitJobRequest::default() {
            return Err(Error::InvalidArgument(format!(
                "submission stream message {index}: a message after the first carries only \
                 `units` or `tasks`"
            ))
            .into());
        }
        index += 1;
    }
    Ok(whole)
}

#[tonic::async_trait]
impl pb::jobs_server::Jobs for JobsService {
    async fn submit_job(
        &self,
        req: Request<pb::SubmitJobRequest>,
    ) -> Result<Response<pb::SubmitJobResponse>, Status> {
        let r = req.into_inner();
        let bytes = prost::Message::encoded_len(&r) as u64;
        within(bytes, self.0.config.max_submission_bytes, 0)?;
        self.submit(r).await
    }

    async fn submit_job_stream(
        &self,
        req: Request<tonic::Streaming<pb::SubmitJobRequest>>,
    ) -> Result<Response<pb::SubmitJobResponse>, Status> {
        let limit = self.0.config.max_submission_bytes;
        let whole = join_stream(&mut req.into_inner(), limit).await?;
        self.submit(whole).await
    }

    async fn job_status(
        &self,
        req: Request<pb::JobStatusRequest>,
    ) -> Result<Response<pb::JobStatusResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let job = self.info(r.job_id, true).await?;
        Ok(Response::new(pb::JobStatusResponse { job: Some(job) }))
    }

    async fn cancel_job(
        &self,
        req: Request<pb::CancelJobRequest>,
    ) -> Result<Response<pb::CancelJobResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        self.0
            .mutate(move |s, now| s.cancel(now, r.job_id))
            .await?
            .map_err(Error::from)?;
        let job = self.info(r.job_id, true).await?;
        Ok(Response::new(pb::CancelJobResponse { job: Some(job) }))
    }

    async fn list_jobs(
        &self,
        req: Request<pb::ListJobsRequest>,
    ) -> Result<Response<pb::ListJobsResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let jobs = self
            .0
            .observe(|s, now| {
                s.jobs()
                    .map(|j| s.status(j.id).map(|st| convert::job_info(st, now, false)))
                    .collect::<Result<Vec<_>, _>>()
            })
            .await?
            .map_err(Error::from)?;
        Ok(Response::new(pb::ListJobsResponse { jobs }))
    }

    async fn job_units(
        &self,
        req: Request<pb::JobUnitsRequest>,
    ) -> Result<Response<pb::JobUnitsResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let job = r.job_id;
        let units = self
            .0
            .observe(move |s, _| {
                s.job(job)?;
                let current: std::collections::BTreeSet<u64> =
                    s.current_runs(job).iter().map(|(u, _)| u.id).collect();
                Some(
                    s.job_units(job)
                        .into_iter()
                        .map(|(u, a)| convert::unit_info(u, a, current.contains(&u.id)))
                        .collect(),
                )
            })
            .await?
            .ok_or_else(|| Error::NotFound(format!("job {job}")))?;
        Ok(Response::new(pb::JobUnitsResponse { units }))
    }

    async fn retry_runs(
        &self,
        req: Request<pb::RetryRunsRequest>,
    ) -> Result<Response<pb::RetryRunsResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let mut statuses = Vec::with_capacity(r.statuses.len());
        for s in &r.statuses {
            statuses.push(RunStatus::parse(s).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown run status {s:?} (known: {})",
                    RunStatus::names()
                ))
            })?);
        }
        let job = r.job_id;
        let queued = self
            .0
            .mutate(move |s, now| s.retry(now, job, &statuses))
            .await?
            .map_err(Error::from)?;
        let info = self.info(job, true).await?;
        Ok(Response::new(pb::RetryRunsResponse {
            queued,
            job: Some(info),
        }))
    }
}
