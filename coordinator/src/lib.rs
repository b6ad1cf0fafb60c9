//! dancehall's coordinator: hands out the units of counting jobs to stateless workers over
//! gRPC and keeps every result in SQLite.
//!
//! Layers, each testable without the next: [`job`] (domain types), [`scheduler`] (a plain
//! state machine for leases and exactly-once accounting), [`store`] (SQLite through sqlx),
//! [`partition`] (cuts a job into units with Monte Carlo estimates), and [`server`] (a thin
//! tonic adapter; entry point [`serve`]). Clients connect with `proto::client`.
//!
//! The default listen address is [`config::DEFAULT_LISTEN_ADDR`] (loopback); [`serve`] takes
//! an already bound listener, so the CLI decides and must be asked for anything else.

// Module docs link to private items on purpose: they are read as the developers' map,
// `cargo doc --document-private-items` (scripts/test.sh checks it builds without warnings).
#![allow(rustdoc::private_intra_doc_links)]

pub mod bench;
pub mod config;
mod error;
pub mod job;
pub mod partition;
pub mod scheduler;
pub mod server;
pub mod sizing;
pub mod store;

pub use config::{generate_token, load_token, Clock, Config, PartitionDefaults, TlsConfig};
pub use error::Error;
pub use server::{serve, serve_locked};
