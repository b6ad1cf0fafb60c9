//! Group commit: one task writes the scheduler's change sets to the database, as many as are
//! waiting in one transaction, in the order the scheduler made them.
//!
//! A request changes the scheduler under its lock and, still under the lock, queues its change
//! set here; it answers only once the transaction holding that change set has committed. So
//! the order of the queue is the order of the scheduler, every answer implies that every
//! earlier change is on disk, and concurrent requests share one commit instead of paying one
//! each. A request that changed nothing queues an empty change set, so that it too answers
//! only after the changes it may have seen are on disk.
//!
//! When a write fails, the scheduler is rebuilt from the database (the authority), every
//! request of the failed batch and every one queued behind it gets an error, and serving goes
//! on. When the rebuild fails too, the coordinator stops serving ([`Writer::fatal`]) rather
//! than answer from a memory that the database no longer matches, and the writer stops: the
//! memory it would write from is the one that failed, so nothing more is committed. Every
//! change set queued then or later (calls still in flight, the final flush of a shutdown) is
//! refused with an error that says so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sqlx::SqlitePool;
use tokio::sync::{mpsc, oneshot, Mutex, Notify};

use crate::scheduler::{ChangeSet, Scheduler, SchedulerConfig};
use crate::store;

/// Largest number of change sets in one transaction.
const MAX_BATCH: usize = 4096;

/// What a queued change set becomes: `Ok` once committed, else why not.
pub type Committed = oneshot::Receiver<Result<(), String>>;

struct Pending {
    changes: ChangeSet,
    done: oneshot::Sender<Result<(), String>>,
}

/// The sending side, held by the server.
pub struct Writer {
    tx: mpsc::UnboundedSender<Pending>,
    /// Notified (and `failed` set) when the database can neither be written nor reloaded.
    pub fatal: Arc<Notify>,
    pub failed: Arc<AtomicBool>,
}

impl Writer {
    /// Starts the writing task for `pool`; `sched` is rebuilt from the database after a
    /// failed write (with `config` and lease tokens from `tokens`).
    pub fn start<T>(
        pool: SqlitePool,
        sched: Arc<Mutex<Scheduler>>,
        config: SchedulerConfig,
        tokens: impl Fn() -> T + Send + 'static,
    ) -> Writer
    where
        T: FnMut() -> crate::job::LeaseToken + Send + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel();
        let fatal = Arc::new(Notify::new());
        let failed = Arc::new(AtomicBool::new(false));
        let stop = (Arc::clone(&fatal), Arc::clone(&failed));
        tokio::spawn(run(pool, sched, config, tokens, rx, stop));
        Writer { tx, fatal, failed }
    }

    /// Queues a change set; call with the scheduler's lock held, so that the queue keeps the
    /// scheduler's order.
    pub fn queue(&self, changes: ChangeSet) -> Committed {
        let (done, rx) = oneshot::channel();
        // A send fails only when the task has ended; the receiver then reports it.
        let _ = self.tx.send(Pending { changes, done });
        rx
    }
}

async fn run<T>(
    pool: SqlitePool,
    sched: Arc<Mutex<Scheduler>>,
    config: SchedulerConfig,
    tokens: impl Fn() -> T,
    mut rx: mpsc::UnboundedReceiver<Pending>,
    (fatal, failed): (Arc<Notify>, Arc<AtomicBool>),
) where
    T: FnMut() -> crate::job::LeaseToken + Send + 'static,
{
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        let sets: Vec<ChangeSet> = batch
            .iter_mut()
            .map(|p| std::mem::take(&mut p.changes))
            .collect();
        match store::apply_all(&pool, &sets).await {
            Ok(()) => {
                for p in batch {
                    let _ = p.done.send(Ok(()));
                }
            }
            Err(e) => {
                tracing::error!("writing to the database failed: {e}; reloading the state");
                // Under the lock nobody queues: whatever is queued now was made from the
                // memory this batch left behind, and fails with it.
                let mut s = sched.lock().await;
                while let Ok(p) = rx.try_recv() {
                    batch.push(p);
                }
                let why = format!("database write failed: {e}");
                match store::load(&pool).await {
                    Ok(snap) => *s = Scheduler::restore(config.clone(), snap, tokens()),
                    Err(e2) => {
                        tracing::error!(
                            "reloading the state failed too ({e2}): the coordinator stops \
                             serving rather than answer from memory, and commits nothing more"
                        );
                        failed.store(true, Ordering::SeqCst);
                        fatal.notify_one();
                        for p in batch {
                            let _ = p.done.send(Err(why.clone()));
                        }
                        drop(s);
                        refuse_all(rx, &format!("{why}; reloading failed too ({e2})")).await;
                        return;
                    }
                }
                for p in batch {
                    let _ = p.done.send(Err(why.clone()));
                }
            }
        }
    }
}

/// After a failed reload: refuses every change set queued now or later, committing none, until
/// every sender is gone.
async fn refuse_all(mut rx: mpsc::UnboundedReceiver<Pending>, why: &str) {
    rx.close();
    let why = format!("not written: the coordinator stopped after a failed database write ({why})");
    while let Some(p) = rx.recv().await {
        let _ = p.done.send(Err(why.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{Capabilities, LeaseToken, WorkerInfo};
    use crate::scheduler::Event;

    fn worker(id: u64) -> ChangeSet {
        ChangeSet {
            workers: vec![WorkerInfo {
                id,
                name: format!("w{id}"),
                host: "h".into(),
                threads: 1,
                software_version: "test".into(),
                registered_at: 1,
                last_seen: 1,
                capabilities: Capabilities::default(),
            }],
            ..Default::default()
        }
    }

    async fn workers(db: &std::path::Path) -> i64 {
        let pool = store::open_read_only(db).await.unwrap();
        let n: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM workers")
            .fetch_one(&pool)
            .await
            .unwrap();
        n.0
    }

    #[tokio::test]
    async fn after_a_failed_reload_nothing_more_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("d.db");
        let pool = store::open(&db).await.unwrap();
        let config = SchedulerConfig::default();
        let tokens = || {
            let mut n = 0u64;
            move || {
                n += 1;
                LeaseToken(n.to_string())
            }
        };
        let sched = Arc::new(Mutex::new(Scheduler::new(config.clone(), tokens())));
        let writer = Writer::start(pool.clone(), Arc::clone(&sched), config, tokens);
        // A change set that writes: committed.
        assert_eq!(writer.queue(worker(1)).await.unwrap(), Ok(()));
        assert_eq!(workers(&db).await, 1);
        // The events table is gone (the next write fails) and so is report_audit (the
        // reload fails too).
        sqlx::query("DROP TABLE events")
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("DROP TABLE report_audit")
            .execute(&pool)
            .await
            .unwrap();
        let failing = ChangeSet {
            events: vec![Event {
                at: 2,
                job: None,
                unit: None,
                kind: "test",
                message: "fails".into(),
            }],
            ..Default::default()
        };
        let e = writer.queue(failing).await.unwrap().unwrap_err();
        assert!(e.contains("database write failed"), "{e}");
        assert!(writer.failed.load(Ordering::SeqCst));
        // A call still in flight after that (its tables are intact): refused, not written.
        let e = writer.queue(worker(2)).await;
        assert!(
            !matches!(e, Ok(Ok(()))),
            "a change set was committed after the failed reload: {e:?}"
        );
        assert_eq!(workers(&db).await, 1);
    }
}
