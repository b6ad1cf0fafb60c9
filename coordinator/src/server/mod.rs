//! The gRPC server: a thin tonic adapter over the [`Scheduler`] and the store.
//!
//! Start-up: open the database (creating it), run the migrations, rebuild the scheduler from
//! the stored state, and only then serve (the health service reports SERVING from then on).
//! Each handler checks the protocol version, converts the request (`convert`), makes one
//! call into the scheduler under its lock, writes the resulting change set to the database in
//! a transaction (group commit: the change sets of concurrent calls share one, `writer`), and
//! only then answers: a client never hears of a change that is not on disk. The scheduler call
//! and the wait run in a spawned task, so a client that hangs up cannot leave memory and
//! database apart; if a write fails, the scheduler is rebuilt from the database (the
//! authority) and the client gets INTERNAL and may retry; if that fails too, the coordinator
//! stops serving.
//!
//! Restart rule: leases survive a restart until their deadline (a worker that finished while
//! the coordinator was down can still report); then their units are queued again.
//!
//! One coordinator per database file: `serve` holds an exclusive lock on `<db>.lock` while it
//! runs (the kernel drops it when the process dies, so a killed coordinator can be restarted),
//! with its pid and address written in it, so that a second one is told who holds it. A
//! caller that must refuse before it starts anything else (`run`) takes the lock itself
//! ([`store::lock`]) and calls [`serve_locked`].

mod auth;
mod conn;
mod control;
mod convert;
mod jobs;
mod worker;
mod writer;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use sqlx::SqlitePool;
use tokio::net::TcpListener;
use tokio::sync::Mutex;
use tonic::transport::{Identity, Server, ServerTlsConfig};

use proto::v1::jobs_server::JobsServer;
use proto::v1::worker_server::WorkerServer;

use crate::job::{LeaseToken, Millis};
use crate::scheduler::{Scheduler, SchedulerConfig};
use crate::{store, Config, Error};

pub use auth::BearerAuth;
pub use control::{control, Control, ControlInbox};
/// The one conversion of a benchmark task and a frozen file to the wire, for clients too.
pub use convert::{bench_task_pb, frozen_file_pb};

/// Concurrent requests (HTTP/2 streams) on one connection.
const MAX_STREAMS_PER_CONNECTION: u32 = 256;
/// A request still unanswered after this long is cancelled.
const REQUEST_TIME_LIMIT: Duration = Duration::from_secs(600);

/// Random lease tokens: 128 bits from a CSPRNG seeded by the operating system.
fn random_tokens() -> impl FnMut() -> LeaseToken + Send + 'static {
    let mut rng = StdRng::from_os_rng();
    move || {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        LeaseToken(hex::encode(b))
    }
}

fn scheduler_config(c: &Config) -> SchedulerConfig {
    SchedulerConfig {
        lease_duration_ms: c.lease_duration.as_millis() as u64,
        attempts_alarm: c.attempts_alarm,
        failures_limit: c.failures_limit,
        deaths_limit: c.deaths_limit,
        max_units_per_lease: c.max_units_per_lease,
        retry_after_ms: c.retry_after.as_millis() as u64,
    }
}

/// State shared by the services.
struct Shared {
    sched: Arc<Mutex<Scheduler>>,
    pool: SqlitePool,
    config: Config,
    writer: writer::Writer,
}

impl Shared {
    /// The scheduler rebuilt from the database behind `pool`, and its writer started (within
    /// a tokio runtime).
    async fn load(pool: SqlitePool, config: Config) -> Result<Arc<Shared>, Error> {
        let snapshot = store::load(&pool).await?;
        let sched = Arc::new(Mutex::new(Scheduler::restore(
            scheduler_config(&config),
            snapshot,
            random_tokens(),
        )));
        let writer = writer::Writer::start(
            pool.clone(),
            Arc::clone(&sched),
            scheduler_config(&config),
            random_tokens,
        );
        Ok(Arc::new(Shared {
            sched,
            pool,
            config,
            writer,
        }))
    }

    fn now(&self) -> Millis {
        self.config.clock.now()
    }

    /// Runs `f` on the scheduler and waits until what it changed (and everything changed
    /// before) is committed (`writer`: group commit); a dropped request cannot cut it in half.
    async fn mutate<T, F>(self: &Arc<Self>, f: F) -> Result<T, Error>
    where
        F: FnOnce(&mut Scheduler, Millis) -> T + Send + 'static,
        T: Send + 'static,
    {
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let (out, committed) = {
                let mut s = me.sched.lock().await;
                let out = f(&mut s, me.now());
                let changes = s.take_changes();
                (out, me.writer.queue(changes))
            };
            match committed.await {
                Ok(Ok(())) => Ok(out),
                Ok(Err(why)) => Err(Error::Internal(why)),
                Err(_) => Err(Error::Internal("the database writer stopped".into())),
            }
        })
        .await
        .map_err(|e| Error::Internal(format!("scheduler task failed: {e}")))?
    }

    /// Reads the scheduler and answers only once every change it may show is committed: a
    /// status must never show a unit counted, or a job done, that a crash right after the
    /// answer would take back (the scheduler changes under its lock before the writer has
    /// committed). Read under the lock, then wait for an empty change set queued behind
    /// everything made so far (`writer` commits in order).
    async fn observe<T, F>(self: &Arc<Self>, f: F) -> Result<T, Error>
    where
        F: FnOnce(&Scheduler, Millis) -> T + Send + 'static,
        T: Send + 'static,
    {
        self.mutate(move |s, now| f(s, now)).await
    }
}

/// Applies what a [`Control`] says, one command at a time, until it is dropped.
async fn obey(shared: Arc<Shared>, mut inbox: ControlInbox) {
    while let Some(command) = inbox.rx.recv().await {
        match command {
            control::Command::WorkerDied { name, why, ended } => {
                let outcome = shared
                    .mutate(move |s, now| {
                        let workers = s.workers_named(&name);
                        let ended: Result<Vec<usize>, _> = workers
                            .into_iter()
                            .map(|w| s.worker_died(now, w, &why))
                            .collect();
                        ended.map(|n| n.into_iter().sum::<usize>())
                    })
                    .await;
                let _ = ended.send(outcome.and_then(|n| Ok(n?)));
            }
        }
    }
}

/// The URL clients reach a coordinator listening on `addr` at (`https` with TLS).
pub fn listen_url(addr: std::net::SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    format!("{scheme}://{addr}")
}

/// Serves the coordinator on `listener` until `shutdown` completes (the CLI binds the
/// listener, on 127.0.0.1 unless told otherwise). Takes the database's lock, then runs the
/// migrations before serving.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Error> {
    // One coordinator per database: a second one would hand out the same units twice.
    let address = listener
        .local_addr()
        .ok()
        .map(|a| listen_url(a, config.tls.is_some()));
    let lock = store::lock(&config.db_path, address.as_deref())?;
    serve_locked(listener, config, lock, None, shutdown).await
}

/// [`serve`] with the database's lock already taken by the caller (who must refuse before
/// starting anything else when another coordinator holds it), and optionally a [`Control`]'s
/// inbox: what the process owning the workers tells this coordinator directly.
pub async fn serve_locked(
    listener: TcpListener,
    config: Config,
    lock: store::DbLock,
    control: Option<ControlInbox>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Error> {
    if config.token.is_empty() {
        return Err(Error::Token(
            "the coordinator needs a non-empty token".to_string(),
        ));
    }
    // Held until this function returns.
    let _lock = lock;
    let pool = store::open(&config.db_path).await?;
    let shared = Shared::load(pool.clone(), config.clone()).await?;
    // Catch up with leases that expired while the coordinator was down.
    shared.mutate(|s, now| s.expire(now)).await?;

    // Bounds against clients that hold connections or streams without using them (conn.rs
    // bounds the connections themselves): streams per connection, keep-alive pings that
    // close the connection of a peer that stopped answering, and a time limit per request
    // (generous: a submission partitions its job before it answers).
    let mut builder = Server::builder()
        .max_concurrent_streams(Some(MAX_STREAMS_PER_CONNECTION))
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .timeout(REQUEST_TIME_LIMIT);
    if let Some(tls) = &config.tls {
        let read = |p: &std::path::Path| {
            std::fs::read(p).map_err(|e| Error::Tls(format!("cannot read {}: {e}", p.display())))
        };
        let identity = Identity::from_pem(read(&tls.cert)?, read(&tls.key)?);
        builder = builder
            .tls_config(ServerTlsConfig::new().identity(identity))
            .map_err(|e| Error::Tls(e.to_string()))?;
    }
    let auth = BearerAuth::new(&config.token);
    let worker_svc = WorkerServer::new(worker::WorkerService(Arc::clone(&shared)))
        .max_decoding_message_size(config.max_message_bytes)
        .max_encoding_message_size(config.max_message_bytes);
    let jobs_svc = JobsServer::new(jobs::JobsService(Arc::clone(&shared)))
        .max_decoding_message_size(config.max_message_bytes)
        .max_encoding_message_size(config.max_message_bytes);
    let (health, health_svc) = tonic_health::server::health_reporter();
    health
        .set_serving::<WorkerServer<worker::WorkerService>>()
        .await;
    health.set_serving::<JobsServer<jobs::JobsService>>().await;

    // Expire leases in the background too, so that status and the database stay current
    // when no worker calls (every operation also expires first).
    let tick = (config.lease_duration / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
    let expiry = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(tick);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                if let Err(e) = shared.mutate(|s, now| s.expire(now)).await {
                    tracing::error!("lease expiry failed: {e}");
                }
            }
        })
    };
    let commands = control.map(|inbox| {
        let shared = Arc::clone(&shared);
        tokio::spawn(obey(shared, inbox))
    });
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, tls = config.tls.is_some(), db = %config.db_path.display(), "coordinator serving");
    }
    let result = builder
        .add_service(health_svc)
        .add_service(tonic::service::interceptor::InterceptedService::new(
            worker_svc,
            auth.clone(),
        ))
        .add_service(tonic::service::interceptor::InterceptedService::new(
            jobs_svc, auth,
        ))
        .serve_with_incoming_shutdown(conn::incoming(listener, config.connections), async {
            let fatal = Arc::clone(&shared.writer.fatal);
            tokio::select! {
                _ = shutdown => {}
                _ = fatal.notified() => {}
            }
        })
        .await;
    expiry.abort();
    if let Some(commands) = commands {
        commands.abort();
    }
    // Let the writes queued so far finish before the pool closes.
    let _ = shared.mutate(|_, _| ()).await;
    pool.close().await;
    if shared
        .writer
        .failed
        .load(std::sync::atomic::Ordering::SeqCst)
    {
        return Err(Error::Internal(
            "stopped serving: the database could neither be written nor reloaded".into(),
        ));
    }
    result.map_err(Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::Connection;

    /// A read answers only once every change it may show is on disk: the scheduler changes
    /// under its lock before the writer commits, so a status read straight from memory could
    /// show a unit counted or a job done that a crash (kill -9) right after the answer takes
    /// back. (Seen as a flaky end-to-end test: a job read as done with 4 solutions whose
    /// database, right after a kill, held results summing to 3.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_read_answers_only_once_what_it_shows_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let pool = store::open(&db).await.unwrap();
        let mut config = Config::new("t");
        config.db_path = db.clone();
        let shared = Shared::load(pool, config).await.unwrap();
        // Another connection holds the database's write lock: the writer waits for it.
        let mut blocker = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display()))
            .await
            .unwrap();
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut blocker)
            .await
            .unwrap();
        let write = tokio::spawn({
            let shared = Arc::clone(&shared);
            async move {
                shared
                    .mutate(|s, now| s.register(now, "w", "h", 1, "test"))
                    .await
            }
        });
        // The change is in memory (the mutate's closure runs under the lock, at once)...
        tokio::time::timeout(Duration::from_secs(5), async {
            while shared.sched.lock().await.worker(1).is_none() {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("the registration to reach the scheduler");
        // ...but a read that would show it does not answer while it is not on disk.
        let read = tokio::spawn({
            let shared = Arc::clone(&shared);
            async move { shared.observe(|s, _| s.worker(1).is_some()).await }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !read.is_finished(),
            "a read answered before the change it saw was committed"
        );
        sqlx::query("COMMIT").execute(&mut blocker).await.unwrap();
        assert_eq!(write.await.unwrap().unwrap(), 1);
        assert!(read.await.unwrap().unwrap());
        let rows: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM workers")
            .fetch_one(&mut blocker)
            .await
            .unwrap();
        assert_eq!(rows.0, 1);
    }
}
