//! The dancehall worker: a stateless process that leases work units from a coordinator, runs
//! each on a blocking thread with the Dancing Links engine, and reports what it found.

pub mod backoff;
pub mod cputime;
pub mod outbox;
