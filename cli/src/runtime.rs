//! The async runtimes the commands block on: the CLI is synchronous at its edges and runs its
//! gRPC calls, its local coordinator and its database reads on one of these.

use anyhow::Context;

/// Two worker threads: enough for a local coordinator beside the calls that drive it.
pub fn multi_thread() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// One thread: for a few calls to a remote coordinator or reads of a database.
pub fn current_thread() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}
