//! Fault injection, for tests only: a worker killed by the unit it runs (an abort, out of
//! memory, a stack overflow), on demand. No core aborts on purpose, so the end-to-end test of
//! a unit that kills its worker (the coordinator holds it after its deaths limit, `run`
//! names the signal) sets `DANCEHALL_FAULT_ABORT_UNIT=<unit id>`: a worker that starts that
//! counting unit calls `std::process::abort()` (SIGABRT) at once. Unset, as everywhere but
//! in that test, it does nothing (the variable is read once per process).

use std::sync::OnceLock;

/// The environment variable naming the unit whose start aborts the worker.
pub const ABORT_UNIT_ENV: &str = "DANCEHALL_FAULT_ABORT_UNIT";

/// Aborts the process (SIGABRT) when `unit` is the one [`ABORT_UNIT_ENV`] names.
pub fn abort_if_asked(unit: u64) {
    static UNIT: OnceLock<Option<u64>> = OnceLock::new();
    let asked = UNIT.get_or_init(|| {
        let text = std::env::var(ABORT_UNIT_ENV).ok()?;
        let unit = text.trim().parse().ok();
        if unit.is_none() {
            tracing::warn!("{ABORT_UNIT_ENV}={text:?} is not a unit id; ignored");
        }
        unit
    });
    if *asked == Some(unit) {
        eprintln!("dancehall worker: {ABORT_UNIT_ENV}={unit}: aborting");
        std::process::abort();
    }
}
