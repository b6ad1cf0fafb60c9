//! dancehall's gRPC protocol, package `dancehall.v1` (see `proto/dancehall.proto` for the
//! rules every message follows). Only generated code lives here: clients in
//! [`v1::worker_client`] / [`v1::jobs_client`], servers in [`v1::worker_server`] /
//! [`v1::jobs_server`].

/// The protocol version this build speaks; sent in every `RequestHeader`.
pub const PROTOCOL_VERSION: u32 = 2;

/// Generated from `proto/dancehall.proto`.
pub mod v1 {
    tonic::include_proto!("dancehall.v1");
}
