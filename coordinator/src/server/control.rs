//! The in-process side door of a coordinator: what the process that owns the workers knows at
//! once, told to the scheduler without a round trip through the network. `run`'s local
//! cluster sees a worker process end (and how: a signal, an exit status) and says so here,
//! so that the dead worker's leases end at once as deaths with that reason, instead of at
//! their deadline as plain expiries.
//!
//! Invariant: a command is applied as any call is (`Shared::mutate`: the scheduler under its
//! lock, the change set committed before the answer), and only while the coordinator serves.

use tokio::sync::{mpsc, oneshot};

use crate::Error;

/// Commands queued at most (a sender waits beyond).
const QUEUE: usize = 64;

pub(super) enum Command {
    WorkerDied {
        name: String,
        why: String,
        ended: oneshot::Sender<Result<usize, Error>>,
    },
}

/// Tells a coordinator of this process what its owner knows (see the module header). Made by
/// [`control`] with its [`ControlInbox`], which goes to `serve_locked`.
#[derive(Clone, Debug)]
pub struct Control {
    tx: mpsc::Sender<Command>,
}

/// The coordinator's end of a [`Control`].
#[derive(Debug)]
pub struct ControlInbox {
    pub(super) rx: mpsc::Receiver<Command>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::WorkerDied { name, why, .. } => write!(f, "WorkerDied({name}: {why})"),
        }
    }
}

/// A control and the inbox to serve it with.
pub fn control() -> (Control, ControlInbox) {
    let (tx, rx) = mpsc::channel(QUEUE);
    (Control { tx }, ControlInbox { rx })
}

impl Control {
    /// The worker process registered under `name` is dead, `why` (e.g. "worker local-0 (pid
    /// 7) was killed by signal 6 (SIGABRT)"): every live lease of the workers registered under
    /// that name ends now as `died`, a death on its unit (a unit that reaches the deaths limit
    /// is held, its alarm `died` naming `why`). Call it before a replacement registers under
    /// the same name. Returns how many leases ended.
    pub async fn worker_died(&self, name: &str, why: &str) -> Result<usize, Error> {
        let (ended, answer) = oneshot::channel();
        let command = Command::WorkerDied {
            name: name.to_string(),
            why: why.to_string(),
            ended,
        };
        let stopped = || Error::Internal("the coordinator is not serving".into());
        self.tx.send(command).await.map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }
}
