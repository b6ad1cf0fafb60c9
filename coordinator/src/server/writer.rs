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
//! than answer from a memory that the database no longer matches.

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
                             serving rather than answer from memory"
                        );
                        failed.store(true, Ordering::SeqCst);
                        fatal.notify_one();
                    }
                }
                for p in batch {
                    let _ = p.done.send(Err(why.clone()));
                }
            }
        }
    }
}
