//! The `Worker` service: register, lease, fetch a job's problem, heartbeat, report, release.
//! Each handler: check the header, convert, one scheduler call (written to the store), answer.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{self, check_header};
use super::Shared;
use crate::store;
use crate::Error;

pub struct WorkerService(pub(super) Arc<Shared>);

#[tonic::async_trait]
impl pb::worker_server::Worker for WorkerService {
    async fn register(
        &self,
        req: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let threads = r.threads.max(1);
        let id = self
            .0
            .mutate(move |s, now| s.register(now, &r.name, &r.host, threads, &r.software_version))
            .await?;
        let c = &self.0.config;
        Ok(Response::new(pb::RegisterResponse {
            worker_id: id,
            lease_duration_ms: c.lease_duration.as_millis() as u64,
            heartbeat_interval_ms: c.heartbeat_interval.as_millis() as u64,
            protocol_version: proto::PROTOCOL_VERSION,
        }))
    }

    async fn lease(
        &self,
        req: Request<pb::LeaseRequest>,
    ) -> Result<Response<pb::LeaseResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let max = r.max_units.max(1);
        let out = self
            .0
            .mutate(move |s, now| s.lease(now, r.worker_id, max))
            .await?
            .map_err(Error::from)?;
        let c = &self.0.config;
        let lease_ms = c.lease_duration.as_millis() as u64;
        let retry = if out.units.is_empty() {
            c.retry_after.as_millis() as u64
        } else {
            0
        };
        Ok(Response::new(pb::LeaseResponse {
            units: out
                .units
                .into_iter()
                .map(|g| convert::granted(g, lease_ms))
                .collect(),
            retry_after_ms: retry,
            idle: out.idle,
        }))
    }

    async fn get_job(
        &self,
        req: Request<pb::GetJobRequest>,
    ) -> Result<Response<pb::GetJobResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let job = {
            let s = self.0.sched.lock().await;
            s.job(r.job_id).cloned()
        };
        let job = job.ok_or_else(|| Error::NotFound(format!("job {}", r.job_id)))?;
        let texts = store::job_texts(&self.0.pool, r.job_id)
            .await
            .map_err(Error::from)?
            .ok_or_else(|| Error::NotFound(format!("job {}", r.job_id)))?;
        let files = store::job_files(&self.0.pool, r.job_id)
            .await
            .map_err(Error::from)?;
        Ok(Response::new(pb::GetJobResponse {
            job_id: job.id,
            name: job.name,
            dlx: texts.dlx,
            dlx_sha256: texts.dlx_sha256,
            prefix: job.prefix,
            state: convert::job_state(job.state) as i32,
            kind: convert::job_kind(job.kind) as i32,
            files: files.into_iter().map(convert::frozen_file_pb).collect(),
            core: Some(proto::core::core_spec_pb(job.settings.core)),
        }))
    }

    async fn heartbeat(
        &self,
        req: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let tokens = convert::tokens(&r.lease_tokens)?;
        let out = self
            .0
            .mutate(move |s, now| s.heartbeat(now, r.worker_id, &tokens))
            .await?
            .map_err(Error::from)?;
        Ok(Response::new(pb::HeartbeatResponse {
            extended: out.extended.into_iter().map(|t| t.0).collect(),
            invalid: out.invalid.into_iter().map(|t| t.0).collect(),
            lease_duration_ms: self.0.config.lease_duration.as_millis() as u64,
        }))
    }

    async fn report(
        &self,
        req: Request<pb::ReportRequest>,
    ) -> Result<Response<pb::ReportResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let token = convert::token(&r.lease_token)?;
        let result = convert::unit_result(r.result)?;
        let (worker, unit) = (r.worker_id, r.unit_id);
        let out = self
            .0
            .mutate(move |s, now| s.report(now, worker, &token, unit, result))
            .await?;
        Ok(Response::new(pb::ReportResponse {
            verdict: convert::verdict(out.verdict) as i32,
            message: out.message,
        }))
    }

    async fn release(
        &self,
        req: Request<pb::ReleaseRequest>,
    ) -> Result<Response<pb::ReleaseResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let tokens = convert::tokens(&r.lease_tokens)?;
        let n = self
            .0
            .mutate(move |s, now| s.release(now, r.worker_id, &tokens))
            .await?
            .map_err(Error::from)?;
        Ok(Response::new(pb::ReleaseResponse { released: n }))
    }
}
