//! The coordinator's configuration, the bearer token and the clock.
//!
//! Security defaults: the CLI listens on [`DEFAULT_LISTEN_ADDR`] (loopback) unless another
//! address is asked for; every RPC must carry `authorization: Bearer <token>`; TLS is on
//! when a certificate and key are given.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rand::RngCore;

use crate::job::Millis;
use crate::scheduler::{DEFAULT_DEATHS_LIMIT, DEFAULT_FAILURES_LIMIT};
use crate::Error;

/// The address `dancehall coordinator` listens on when not told otherwise: loopback only.
pub const DEFAULT_LISTEN_ADDR: &str = "127.0.0.1:7321";

/// The environment variable [`load_token`] reads when no token file is given.
pub const TOKEN_ENV: &str = "DANCEHALL_TOKEN";

/// Bounds on the connections a coordinator keeps (`server::conn` applies them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnLimits {
    pub max_connections: usize,
    pub first_byte_timeout: Duration,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            max_connections: 4096,
            first_byte_timeout: Duration::from_secs(10),
        }
    }
}

/// PEM files for TLS (tonic's rustls).
#[derive(Clone, Debug)]
pub struct TlsConfig {
    /// Certificate chain (PEM).
    pub cert: PathBuf,
    /// Private key (PEM).
    pub key: PathBuf,
}

/// How a job is cut into units when the submission leaves a setting at 0.
#[derive(Clone, Debug)]
pub struct PartitionDefaults {
    /// Target seconds of search per unit on one core (see `crate::sizing`).
    pub unit_seconds: f64,
    /// Per-unit time budget for dynamic re-split (`None`: about ten target units, see
    /// `crate::sizing`).
    pub unit_time_budget: Option<Duration>,
    /// At most this many units at submission.
    pub max_units: u32,
    /// Random paths per estimate.
    pub estimate_samples: u32,
}

impl Default for PartitionDefaults {
    fn default() -> Self {
        PartitionDefaults {
            unit_seconds: 1.0,
            unit_time_budget: None,
            max_units: 20_000,
            estimate_samples: 64,
        }
    }
}

/// Where the scheduler's time comes from. Deadlines are wall-clock milliseconds so that they
/// survive a restart; tests use a manual clock to expire leases without waiting.
#[derive(Clone, Debug, Default)]
pub enum Clock {
    #[default]
    System,
    /// Milliseconds since the epoch, moved by the test.
    Manual(Arc<AtomicU64>),
}

impl Clock {
    pub fn now(&self) -> Millis {
        match self {
            Clock::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as Millis)
                .unwrap_or(0),
            Clock::Manual(ms) => ms.load(Ordering::SeqCst),
        }
    }
}

/// Everything [`crate::serve`] needs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The SQLite file (created with its directory); default `results/dancehall.db`.
    pub db_path: PathBuf,
    /// The bearer token every RPC must carry.
    pub token: String,
    /// Serve TLS with these files; plain HTTP/2 when `None`.
    pub tls: Option<TlsConfig>,
    /// A lease lasts this long after its grant or its last heartbeat.
    pub lease_duration: Duration,
    /// Heartbeat period suggested to workers (well below `lease_duration`).
    pub heartbeat_interval: Duration,
    /// Raise an alarm when a unit is leased this many times (0: never).
    pub attempts_alarm: u32,
    /// Hold a unit, never leasing it again, once its runs failed on workers this many times
    /// (0: never hold).
    pub failures_limit: u32,
    /// Hold a unit, never leasing it again, once its leases ended with their worker's death
    /// (an expiry, or a worker known dead) this many times (0: never hold).
    pub deaths_limit: u32,
    /// Cap on units per Lease call.
    pub max_units_per_lease: u32,
    /// Suggested wait for a worker that got no unit.
    pub retry_after: Duration,
    pub partition: PartitionDefaults,
    pub clock: Clock,
    /// Bounds on the connections kept open (clients that connect and say nothing).
    pub connections: ConnLimits,
    /// Largest message accepted or sent (default [`proto::client::MAX_MESSAGE_BYTES`]); a
    /// submission bigger than this comes as a stream (`SubmitJobStream`).
    pub max_message_bytes: usize,
    /// Largest submission, summed over a stream's messages as they arrive (default
    /// [`MAX_SUBMISSION_BYTES`]): a stream past it is refused as soon as it is, so a client
    /// cannot make the coordinator hold more than this of a submission it has not finished.
    pub max_submission_bytes: u64,
}

/// 1 GiB of encoded submission: the 12 x 12 Sudoku job cut into 2,022,368 units (its
/// `parts = 32`, `bench-specs/sudoku-12x12-two-band.toml`) is about a third of it, and held
/// 2.5 GB in the coordinator.
pub const MAX_SUBMISSION_BYTES: u64 = 1 << 30;

impl Config {
    /// Defaults: `results/dancehall.db`, no TLS, 60 s leases, 15 s heartbeats, a unit held
    /// after 3 failed runs or 10 deaths.
    pub fn new(token: impl Into<String>) -> Self {
        Config {
            db_path: PathBuf::from(crate::store::DEFAULT_DB_PATH),
            token: token.into(),
            tls: None,
            lease_duration: Duration::from_secs(60),
            heartbeat_interval: Duration::from_secs(15),
            attempts_alarm: 5,
            failures_limit: DEFAULT_FAILURES_LIMIT,
            deaths_limit: DEFAULT_DEATHS_LIMIT,
            max_units_per_lease: 64,
            retry_after: Duration::from_millis(500),
            partition: PartitionDefaults::default(),
            clock: Clock::System,
            connections: ConnLimits::default(),
            max_message_bytes: proto::client::MAX_MESSAGE_BYTES,
            max_submission_bytes: MAX_SUBMISSION_BYTES,
        }
    }
}

/// Reads the bearer token from `file` (surrounding whitespace trimmed) or, without a file,
/// from the environment variable `DANCEHALL_TOKEN`. An empty token is refused.
pub fn load_token(file: Option<&Path>) -> Result<String, Error> {
    let token = match file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| Error::Token(format!("cannot read token file {}: {e}", path.display())))?,
        None => std::env::var(TOKEN_ENV)
            .map_err(|_| Error::Token(format!("no token: give a token file or set {TOKEN_ENV}")))?,
    };
    let token = token.trim().to_string();
    if token.is_empty() {
        let from = file.map_or_else(|| TOKEN_ENV.to_string(), |p| p.display().to_string());
        return Err(Error::Token(format!("the token in {from} is empty")));
    }
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::Token("the token contains whitespace".to_string()));
    }
    Ok(token)
}

/// A fresh random token (256 bits, hex), e.g. for `dancehall run`.
pub fn generate_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_from_file_is_trimmed_and_must_not_be_empty() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("token");
        std::fs::write(&f, "  s3cret\n").unwrap();
        assert_eq!(load_token(Some(&f)).unwrap(), "s3cret");
        std::fs::write(&f, "\n").unwrap();
        assert!(load_token(Some(&f)).is_err());
        assert!(load_token(Some(&dir.path().join("missing"))).is_err());
        assert_eq!(generate_token().len(), 64);
        assert_ne!(generate_token(), generate_token());
    }
}
