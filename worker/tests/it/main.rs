//! Integration tests of the worker against a real coordinator served in this process on
//! 127.0.0.1:0 (`coordinator::serve`), one module per surface: `lifecycle` (register, count,
//! idle exit, refusal, a coordinator that comes up late) and `leases` (drain on shutdown,
//! abandoning a unit whose lease is gone) and `weights` (weighted units counted by the Sudoku
//! core).
//!
//! Waits are on conditions with deadlines (`wait_for`), never fixed sleeps.

mod bench;
mod leases;
mod lifecycle;
/// What a test does when a tool it needs is missing (`worker/src/test_tools.rs`).
#[path = "../../src/test_tools.rs"]
#[allow(dead_code)] // a part is used here
mod test_tools;
mod weights;

use std::future::Future;
use std::time::Duration;

use cores::problems::ProblemSpec;
use proto::client::{self, JobsClient};
use proto::v1 as pb;
use tokio::net::TcpListener;

pub const TOKEN: &str = "worker-it-token";
const DEADLINE: Duration = Duration::from_secs(60);

/// A coordinator served by this process, its database in a temporary directory.
pub struct Coord {
    pub url: String,
    pub jobs: JobsClient,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), coordinator::Error>>,
    _dir: tempfile::TempDir,
}

impl Coord {
    pub async fn start() -> Coord {
        Coord::start_on(TcpListener::bind("127.0.0.1:0").await.unwrap()).await
    }

    pub async fn start_on(listener: TcpListener) -> Coord {
        let dir = tempfile::tempdir().unwrap();
        let mut config = coordinator::Config::new(TOKEN);
        config.db_path = dir.path().join("it.db");
        config.lease_duration = Duration::from_secs(5);
        config.heartbeat_interval = Duration::from_millis(200);
        config.retry_after = Duration::from_millis(50);
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(coordinator::serve(listener, config, async {
            let _ = rx.await;
        }));
        let channel = client::connect(&url, None).await.unwrap();
        let jobs = client::jobs(channel, TOKEN).unwrap();
        Coord {
            url,
            jobs,
            stop: Some(tx),
            task,
            _dir: dir,
        }
    }

    pub async fn submit(&mut self, spec: ProblemSpec, partition: pb::PartitionSettings) -> u64 {
        let built = spec.build().unwrap();
        let req = pb::SubmitJobRequest {
            header: client::header(),
            name: spec.to_string(),
            spec: String::new(),
            dlx: cores::xcc::write_dlx(&built.problem),
            prefix: built.prefix,
            symmetry_factor: built.symmetry_factor.to_string(),
            partition: Some(partition),
            ..Default::default()
        };
        self.jobs.submit_job(req).await.unwrap().into_inner().job_id
    }

    pub async fn status(&mut self, job_id: u64) -> pb::JobInfo {
        let req = pb::JobStatusRequest {
            header: client::header(),
            job_id,
        };
        self.jobs
            .job_status(req)
            .await
            .unwrap()
            .into_inner()
            .job
            .unwrap()
    }

    pub async fn cancel(&mut self, job_id: u64) {
        let req = pb::CancelJobRequest {
            header: client::header(),
            job_id,
        };
        self.jobs.cancel_job(req).await.unwrap();
    }

    /// Polls the job until `done` holds for its status.
    pub async fn wait_for(
        &mut self,
        job_id: u64,
        what: &str,
        done: impl Fn(&pb::JobInfo) -> bool,
    ) -> pb::JobInfo {
        let start = tokio::time::Instant::now();
        loop {
            let info = self.status(job_id).await;
            if done(&info) {
                return info;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}: {info:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap().unwrap();
    }
}

pub fn config(url: &str, threads: usize) -> worker::Config {
    worker::Config {
        coordinator: url.to_string(),
        token: TOKEN.to_string(),
        threads,
        worker_id: Some("it".into()),
        exit_when_idle: Some(Duration::from_millis(300)),
        tls_ca: None,
        allow_commands: false,
    }
}

/// Runs a worker in a task; it stops when the returned sender fires (or when idle).
pub fn spawn_worker(
    config: worker::Config,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<Result<worker::Summary, worker::Error>>,
) {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(worker::run(config, async {
        let _ = rx.await;
    }));
    (tx, task)
}

/// Awaits `f` with the test deadline.
pub async fn within<T>(what: &str, f: impl Future<Output = T>) -> T {
    tokio::time::timeout(DEADLINE, f)
        .await
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

pub fn queens(n: usize) -> ProblemSpec {
    ProblemSpec::Queens { n }
}

pub fn partition(unit_node_budget: u64) -> pb::PartitionSettings {
    pb::PartitionSettings {
        unit_node_budget,
        ..Default::default()
    }
}
