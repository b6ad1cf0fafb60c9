//! The dancehall worker: a stateless process that leases work units from a coordinator, runs
//! each on a blocking thread with the Dancing Links engine, and reports what it found.
//!
//! A worker holds nothing that matters across its own death: a unit it was running returns to
//! the coordinator's queue when its lease expires, and a finished result is kept (in memory)
//! only until the coordinator acknowledges it. [`run`] is the whole life of a worker: register,
//! then lease / run / heartbeat / report until told to stop (`shutdown`) or idle for
//! [`Config::exit_when_idle`].

// Module docs link to private items on purpose: they are read as the developers' map,
// `cargo doc --document-private-items` (scripts/test.sh checks it builds without warnings).
#![allow(rustdoc::private_intra_doc_links)]

use std::path::PathBuf;
use std::time::Duration;

pub mod backoff;
pub mod bench;
pub mod cputime;
pub mod fault;
pub mod outbox;
pub mod panic;
mod session;
#[cfg(test)]
mod test_tools;
pub mod unit;

/// How a worker reaches its coordinator and how much it runs at once.
#[derive(Debug, Clone)]
pub struct Config {
    /// `http://host:port`, or `https://host:port` with [`Config::tls_ca`].
    pub coordinator: String,
    /// The coordinator's bearer token.
    pub token: String,
    /// Units run at once, one blocking thread each.
    pub threads: usize,
    /// A label for the coordinator's records (`--worker-id`).
    pub worker_id: Option<String>,
    /// Exit after this long with nothing to run (no unit held, none to lease).
    pub exit_when_idle: Option<Duration>,
    /// CA certificate (PEM) that signed the coordinator's TLS certificate.
    pub tls_ca: Option<PathBuf>,
    /// Run benchmark configurations of engine `command` (arbitrary programs named by a
    /// submitted spec): off unless the worker is started with `--allow-commands`.
    pub allow_commands: bool,
}

/// What a worker did, returned when it exits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The id the coordinator gave this worker (the last one, if it registered again).
    pub worker_id: u64,
    /// Units whose search ran to its end or to its budget.
    pub units_run: u64,
    /// Reports the coordinator counted.
    pub accepted: u64,
    /// Reports it already had (same count) or no longer wanted (stale lease).
    pub duplicate: u64,
    pub stale: u64,
    /// Reports whose count disagreed with one already accepted (an alarm on the job).
    pub mismatch: u64,
    /// Reports the coordinator found malformed (an alarm on the job; the unit is re-queued).
    pub rejected: u64,
    /// Units handed back without a result.
    pub released: u64,
    /// Units whose run failed here (an error or a panic of the count), handed back as failed:
    /// the coordinator counts the failure and holds a unit that keeps failing.
    pub failed: u64,
    /// Units dropped because the coordinator said their lease was gone.
    pub abandoned: u64,
    /// Results still unacknowledged when the worker gave up at shutdown.
    pub unreported: u64,
    /// Solutions in the accepted reports.
    pub solutions: cores::count::Count,
    /// Nodes searched in all units run.
    pub nodes: u64,
}

/// Why a worker stopped before it was told to.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Client(#[from] proto::client::ClientError),
    #[error("the coordinator refused this worker ({:?}): {}", .0.code(), .0.message())]
    Refused(tonic::Status),
    #[error("--threads must be at least 1")]
    NoThreads,
}

pub use session::{run, DRAIN_LIMIT};

/// [`test_tools`]' own tests (here, not in its file: the CLI's test crates include that file).
#[cfg(test)]
mod test_tools_tests {
    use super::test_tools::{append, on_path, present, skip_line};

    #[test]
    fn a_found_tool_goes_on_and_programs_are_found_on_path() {
        assert!(present(true, "sh", "never read"));
        assert!(on_path("sh"));
        assert!(!on_path("no-such-program-dancehall"));
    }

    #[test]
    #[should_panic(expected = "no-such-tool is missing: install it (or set DANCEHALL_ALLOW_SKIP=1")]
    fn a_missing_tool_fails_by_default() {
        skip_line("no-such-tool", "install it", false);
    }

    #[test]
    fn an_allowed_skip_names_the_test_and_the_tool_and_is_appended() {
        let line = skip_line("no-such-tool", "install it", true);
        assert_eq!(
            line,
            "test_tools_tests::an_allowed_skip_names_the_test_and_the_tool_and_is_appended: \
             no-such-tool is missing: install it"
        );
        let log = std::env::temp_dir().join(format!("dancehall-skips-{}", std::process::id()));
        let _ = std::fs::remove_file(&log);
        append(&log, &line);
        append(&log, "second");
        let text = std::fs::read_to_string(&log).unwrap();
        std::fs::remove_file(&log).unwrap();
        assert_eq!(text, format!("{line}\nsecond\n"));
    }
}
