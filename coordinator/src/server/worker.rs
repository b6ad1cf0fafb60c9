//! The `Worker` service: register, exchange (reports and a lease), fetch a job's problem,
//! heartbeat, release.
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
        let capabilities = convert::capabilities(r.capabilities);
        let id = self
            .0
            .mutate(move |s, now| {
                let id = s.register(now, &r.name, &r.host, threads, &r.software_version);
                s.set_capabilities(id, capabilities).map(|()| id)
            })
            .await?
            .map_err(Error::from)?;
        let c = &self.0.config;
        Ok(Response::new(pb::RegisterResponse {
            worker_id: id,
            lease_duration_ms: c.lease_duration.as_millis() as u64,
            heartbeat_interval_ms: c.heartbeat_interval.as_millis() as u64,
            protocol_version: proto::PROTOCOL_VERSION,
        }))
    }

    async fn exchange(
        &self,
        req: Request<pb::ExchangeRequest>,
    ) -> Result<Response<pb::ExchangeResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        // Each report is read on its own: one that cannot be read is rejected (and audited)
        // alone.
        let reports: Vec<_> = r
            .reports
            .into_iter()
            .map(|rep| {
                let read = convert::token(&rep.lease_token)
                    .and_then(|t| Ok((t, convert::unit_result(rep.result)?)));
                (rep.lease_token, rep.unit_id, read)
            })
            .collect();
        let (worker, max, max_bench) = (r.worker_id, r.lease_max_units, r.lease_max_bench_units);
        let (verdicts, lease) = self
            .0
            .mutate(move |s, now| {
                let verdicts: Vec<pb::ReportResponse> = reports
                    .into_iter()
                    .map(|(raw_token, unit, read)| {
                        let out = match read {
                            Ok((token, result)) => s.report(now, worker, &token, unit, result),
                            Err(e) => {
                                s.report_unreadable(now, worker, &raw_token, unit, &e.to_string())
                            }
                        };
                        pb::ReportResponse {
                            verdict: convert::verdict(out.verdict) as i32,
                            message: out.message,
                        }
                    })
                    .collect();
                let lease = (max > 0).then(|| s.lease_limited(now, worker, max, max_bench));
                (verdicts, lease)
            })
            .await?;
        let c = &self.0.config;
        let lease_ms = c.lease_duration.as_millis() as u64;
        let mut resp = pb::ExchangeResponse {
            verdicts,
            ..Default::default()
        };
        if let Some(lease) = lease {
            let out = lease.map_err(Error::from)?;
            if out.units.is_empty() {
                resp.retry_after_ms = c.retry_after.as_millis() as u64;
            }
            resp.idle = out.idle;
            resp.units = out
                .units
                .into_iter()
                .map(|g| convert::granted(g, lease_ms))
                .collect();
        }
        Ok(Response::new(resp))
    }

    async fn get_job(
        &self,
        req: Request<pb::GetJobRequest>,
    ) -> Result<Response<pb::GetJobResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let id = r.job_id;
        let job = self.0.observe(move |s, _| s.job(id).cloned()).await?;
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

    async fn release(
        &self,
        req: Request<pb::ReleaseRequest>,
    ) -> Result<Response<pb::ReleaseResponse>, Status> {
        let r = req.into_inner();
        check_header(r.header.as_ref())?;
        let tokens = convert::tokens(&r.lease_tokens)?;
        // Empty: handed back unrun (a drain, no free thread); else the runs failed, and why.
        let failure = (!r.failure.is_empty()).then_some(r.failure);
        let n = self
            .0
            .mutate(move |s, now| s.release(now, r.worker_id, &tokens, failure.as_deref()))
            .await?
            .map_err(Error::from)?;
        Ok(Response::new(pb::ReleaseResponse { released: n }))
    }
}
