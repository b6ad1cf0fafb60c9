//! Connecting to a coordinator: a channel (plain or TLS) and the two generated clients with
//! the bearer token added to every call by an interceptor. Used by the worker, the CLI and
//! the tests.
//!
//! ```no_run
//! # async fn f() -> Result<(), coordinator::Error> {
//! use coordinator::client;
//! let channel = client::channel("http://127.0.0.1:7321", None).await?;
//! let mut jobs = client::jobs(channel, "s3cret")?;
//! let list = jobs.list_jobs(proto::v1::ListJobsRequest { header: Some(client::header()) }).await;
//! # Ok(()) }
//! ```

use std::path::Path;

use proto::v1 as pb;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

use crate::server::{BearerToken, MAX_MESSAGE_BYTES};
use crate::Error;

/// A channel whose calls carry the bearer token.
pub type AuthChannel = InterceptedService<Channel, BearerToken>;
pub type WorkerClient = pb::worker_client::WorkerClient<AuthChannel>;
pub type JobsClient = pb::jobs_client::JobsClient<AuthChannel>;

/// The header every request carries: this build's protocol version.
pub fn header() -> pb::RequestHeader {
    pb::RequestHeader {
        protocol_version: proto::PROTOCOL_VERSION,
    }
}

/// Connects to `url` (`http://host:port`, or `https://...` with `ca_pem`, the PEM
/// certificate that signed the coordinator's certificate).
pub async fn channel(url: &str, ca_pem: Option<&Path>) -> Result<Channel, Error> {
    let mut endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| Error::InvalidArgument(format!("bad coordinator URL {url:?}: {e}")))?;
    if let Some(ca) = ca_pem {
        let pem = std::fs::read(ca)
            .map_err(|e| Error::Tls(format!("cannot read {}: {e}", ca.display())))?;
        endpoint = endpoint
            .tls_config(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)))
            .map_err(|e| Error::Tls(e.to_string()))?;
    } else if url.starts_with("https://") {
        return Err(Error::Tls(
            "an https coordinator URL needs the CA certificate (PEM)".to_string(),
        ));
    }
    Ok(endpoint.connect().await?)
}

/// The worker-side client over `channel`.
pub fn worker(channel: Channel, token: &str) -> Result<WorkerClient, Error> {
    Ok(
        pb::worker_client::WorkerClient::with_interceptor(channel, BearerToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// The user-side client over `channel`.
pub fn jobs(channel: Channel, token: &str) -> Result<JobsClient, Error> {
    Ok(
        pb::jobs_client::JobsClient::with_interceptor(channel, BearerToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
    )
}
