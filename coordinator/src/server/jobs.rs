//! The `Jobs` service for users: submit (partition, then queue), status, cancel, list, units.
//! Partitioning is CPU work and runs on a blocking thread; a malformed job is refused with
//! INVALID_ARGUMENT before anything is written.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{self, check_header, parse_count};
use super::Shared;
use crate::job::{JobKind, JobSettings};
use crate::partition::{partition_dlx, PartitionSettings};
use crate::scheduler::NewJob;
use crate::Error;

pub struct JobsService(pub(super) Arc<Shared>);

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
        let tasks: Vec<_> = r.tasks.into_iter().map(convert::bench_task).collect();
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
            symmetry_factor: 1,
            settings: JobSettings::default(),
            dlx: String::new(),
            spec: r.spec,
            units: tasks
                .into_iter()
                .map(|t| crate::scheduler::NewUnit {
                    prefix: Vec::new(),
                    estimate: None,
                    task: Some(t),
                    counted: None,
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
        }))
    }

    async fn info(&self, job: u64, with_alarms: bool) -> Result<pb::JobInfo, Error> {
        let s = self.0.sched.lock().await;
        let st = s.status(job)?;
        Ok(convert::job_info(st, self.0.now(), with_alarms))
    }
}

#[tonic::async_trait]
impl pb::jobs_server::Jobs for JobsService {
    async fn submit_job(
        &self,
        req: Request<pb::SubmitJobRequest>,
    ) -> Result<Response<pb::SubmitJobResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        if r.kind() == pb::JobKind::Benchmark {
            return self.submit_benchmark(r).await;
        }
        if r.dlx.trim().is_empty() {
            return Err(Error::InvalidArgument("the job has no DLX text".to_string()).into());
        }
        let symmetry_factor = if r.symmetry_factor.is_empty() {
            1
        } else {
            parse_count(&r.symmetry_factor, "symmetry_factor")?
        };
        if symmetry_factor == 0 {
            return Err(Error::InvalidArgument("symmetry_factor must be at least 1".into()).into());
        }
        let p = r.partition.unwrap_or_default();
        if !(0.0..=1.0).contains(&p.audit_share) {
            return Err(Error::InvalidArgument(format!(
                "audit_share must be between 0 and 1, got {}",
                p.audit_share
            ))
            .into());
        }
        let d = &self.0.config.partition;
        let or = |v: u64, default: u64| if v == 0 { default } else { v };
        let settings = PartitionSettings {
            unit_node_budget: or(p.unit_node_budget, d.unit_node_budget),
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
        let time_budget_ms = match p.unit_time_budget_ms {
            0 => d.unit_time_budget.map(|t| t.as_millis() as u64),
            ms => Some(ms),
        };
        let (dlx, prefix) = (r.dlx, r.prefix);
        let (units, dlx, prefix) = tokio::task::spawn_blocking(move || {
            let units = partition_dlx(&dlx, &prefix, &settings);
            (units, dlx, prefix)
        })
        .await
        .map_err(|e| Error::Internal(format!("partition task failed: {e}")))?;
        let units = units.map_err(Error::from)?;
        let n = units.len() as u64;
        let new = NewJob {
            name: r.name,
            kind: crate::job::JobKind::Count,
            manifest: None,
            files: Vec::new(),
            prefix,
            symmetry_factor,
            settings: JobSettings {
                unit_node_limit: (p.unit_node_limit > 0).then_some(p.unit_node_limit),
                unit_time_budget_ms: time_budget_ms,
                audit_share: p.audit_share,
                seed: p.seed,
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
        }))
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
        let now = self.0.now();
        let s = self.0.sched.lock().await;
        let mut jobs = Vec::new();
        for j in s.jobs() {
            let st = s.status(j.id).map_err(Error::from)?;
            jobs.push(convert::job_info(st, now, false));
        }
        Ok(Response::new(pb::ListJobsResponse { jobs }))
    }

    async fn job_units(
        &self,
        req: Request<pb::JobUnitsRequest>,
    ) -> Result<Response<pb::JobUnitsResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let s = self.0.sched.lock().await;
        if s.job(r.job_id).is_none() {
            return Err(Error::NotFound(format!("job {}", r.job_id)).into());
        }
        let current: std::collections::BTreeSet<u64> =
            s.current_runs(r.job_id).iter().map(|(u, _)| u.id).collect();
        let units = s
            .job_units(r.job_id)
            .into_iter()
            .map(|(u, a)| convert::unit_info(u, a, current.contains(&u.id)))
            .collect();
        Ok(Response::new(pb::JobUnitsResponse { units }))
    }

    async fn retry_runs(
        &self,
        req: Request<pb::RetryRunsRequest>,
    ) -> Result<Response<pb::RetryRunsResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        if let Some(bad) = r.statuses.iter().find(|s| !crate::bench::is_status(s)) {
            return Err(Error::InvalidArgument(format!(
                "unknown run status {bad:?} (known: {})",
                crate::bench::STATUSES.join(", ")
            ))
            .into());
        }
        let (job, statuses) = (r.job_id, r.statuses);
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
