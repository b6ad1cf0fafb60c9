//! Connecting to a coordinator, for every client: the worker, the CLI and the tests. One
//! place for the URL rules (plain or TLS), the bearer token, the message limits, the header
//! every request starts with, and what a failed call means ([`disposition`]).
//!
//! Invariant: every call made through an [`AuthChannel`] carries
//! `authorization: Bearer <token>`, and every failure is classified here, once: transient
//! failures are retried with back-off, a refused token or protocol version ends the caller
//! with a clear message.
//!
//! ```no_run
//! # async fn f() -> Result<(), proto::client::ClientError> {
//! use proto::client;
//! let channel = client::connect("http://127.0.0.1:7321", None).await?;
//! let mut jobs = client::jobs(channel, "s3cret")?;
//! let list = jobs.list_jobs(proto::v1::ListJobsRequest { header: client::header() }).await;
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Request, Status};

use crate::v1 as pb;

/// Largest message sent or accepted, by clients and by the coordinator alike: the DLX text
/// of a big problem exceeds tonic's 4 MiB default.
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// Why a connection could not be set up (no call was made yet).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("bad coordinator URL `{url}`: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("cannot read {}: {source}", path.display())]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("TLS set-up failed: {0}")]
    Tls(String),
    #[error("the token is not printable ASCII")]
    BadToken,
    #[error("cannot connect to the coordinator: {0}")]
    Connect(#[from] tonic::transport::Error),
}

/// Client interceptor: adds `authorization: Bearer <token>` to every call.
#[derive(Clone)]
pub struct BearerToken {
    value: MetadataValue<Ascii>,
}

impl BearerToken {
    /// The token as read from a file or a flag (surrounding white space is dropped). Fails
    /// when it cannot travel in a header (non-ASCII or control characters).
    pub fn new(token: &str) -> Result<Self, ClientError> {
        let value = format!("Bearer {}", token.trim())
            .parse()
            .map_err(|_| ClientError::BadToken)?;
        Ok(BearerToken { value })
    }
}

impl Interceptor for BearerToken {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        req.metadata_mut()
            .insert("authorization", self.value.clone());
        Ok(req)
    }
}

/// A channel whose calls carry the bearer token.
pub type AuthChannel = InterceptedService<Channel, BearerToken>;
pub type WorkerClient = pb::worker_client::WorkerClient<AuthChannel>;
pub type JobsClient = pb::jobs_client::JobsClient<AuthChannel>;

/// The header every request starts with: this build's protocol version.
pub fn header() -> Option<pb::RequestHeader> {
    Some(pb::RequestHeader {
        protocol_version: crate::PROTOCOL_VERSION,
    })
}

/// The endpoint for `url` (`http://host:port`, or `https://...` with `tls_ca`, the PEM
/// certificate that signed the coordinator's), checked before any connection: 5 s to
/// connect, no Nagle delay, HTTP/2 keep-alive pings every 30 s (so that a dead coordinator
/// is noticed on an idle connection).
pub fn endpoint(url: &str, tls_ca: Option<&Path>) -> Result<Endpoint, ClientError> {
    let bad_url = |reason: String| ClientError::BadUrl {
        url: url.to_string(),
        reason,
    };
    let mut endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| bad_url(e.to_string()))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true)
        .http2_keep_alive_interval(Duration::from_secs(30))
        .keep_alive_while_idle(true);
    match endpoint.uri().scheme_str() {
        Some("http") => {
            if tls_ca.is_some() {
                return Err(bad_url("a CA certificate needs an https:// URL".into()));
            }
        }
        Some("https") => {
            let Some(path) = tls_ca else {
                return Err(bad_url(
                    "an https:// coordinator needs the CA certificate that signed it (--tls-ca)"
                        .into(),
                ));
            };
            let pem = std::fs::read(path).map_err(|source| ClientError::ReadFile {
                path: path.to_path_buf(),
                source,
            })?;
            let tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem));
            endpoint = endpoint
                .tls_config(tls)
                .map_err(|e| ClientError::Tls(e.to_string()))?;
        }
        _ => {
            return Err(bad_url(
                "the URL must start with http:// or https://".into(),
            ))
        }
    }
    Ok(endpoint)
}

/// Connects to `url` now (the CLI: a coordinator that is not there is an error at once).
pub async fn connect(url: &str, tls_ca: Option<&Path>) -> Result<Channel, ClientError> {
    Ok(endpoint(url, tls_ca)?.connect().await?)
}

/// The worker-side client over `channel`.
pub fn worker(channel: Channel, token: &str) -> Result<WorkerClient, ClientError> {
    Ok(
        pb::worker_client::WorkerClient::with_interceptor(channel, BearerToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// The user-side client over `channel`.
pub fn jobs(channel: Channel, token: &str) -> Result<JobsClient, ClientError> {
    Ok(
        pb::jobs_client::JobsClient::with_interceptor(channel, BearerToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// The most a submission message carries when a submission is cut up for
/// `SubmitJobStream` (well under [`MAX_MESSAGE_BYTES`]).
pub const SUBMIT_CHUNK_BYTES: usize = 16 << 20;

/// `req` cut into messages of at most about `chunk_bytes` for `SubmitJobStream`, in order:
/// the first is `req` with the first of its `units` and `tasks`, every later one only more
/// of them. A unit or task bigger than `chunk_bytes` travels alone.
pub fn submission_messages(
    mut req: pb::SubmitJobRequest,
    chunk_bytes: usize,
) -> Vec<pb::SubmitJobRequest> {
    use prost::Message;
    let units = std::mem::take(&mut req.units);
    let tasks = std::mem::take(&mut req.tasks);
    // An element of a repeated field costs its tag (one byte for these fields), its length
    // and itself.
    let cost = |len: usize| 1 + prost::length_delimiter_len(len) + len;
    let mut out = Vec::new();
    let mut size = req.encoded_len();
    let mut current = req;
    let mut flush = |current: &mut pb::SubmitJobRequest, size: &mut usize, len: usize| {
        if *size > 0 && *size + len > chunk_bytes {
            out.push(std::mem::take(current));
            *size = 0;
        }
        *size += len;
    };
    for u in units {
        flush(&mut current, &mut size, cost(u.encoded_len()));
        current.units.push(u);
    }
    for t in tasks {
        flush(&mut current, &mut size, cost(t.encoded_len()));
        current.tasks.push(t);
    }
    out.push(current);
    out
}

/// Submits `req`: as one message (`SubmitJob`, which every coordinator takes) when it fits
/// in `chunk_bytes`, else cut up by [`submission_messages`] and streamed
/// (`SubmitJobStream`).
pub async fn submit_job(
    jobs: &mut JobsClient,
    req: pb::SubmitJobRequest,
    chunk_bytes: usize,
) -> Result<pb::SubmitJobResponse, Status> {
    let mut messages = submission_messages(req, chunk_bytes);
    let response = if messages.len() == 1 {
        jobs.submit_job(messages.remove(0)).await?
    } else {
        jobs.submit_job_stream(tokio_stream::iter(messages)).await?
    };
    Ok(response.into_inner())
}

/// What to do after a failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// The coordinator is away or busy: try again after a back-off delay.
    Retry,
    /// The coordinator does not know this worker (e.g. a fresh database): register again.
    Register,
    /// The coordinator refuses this client (token, protocol version): stop with the message.
    Fatal,
    /// This one request was refused (bad argument, unknown job): drop it and go on.
    Drop,
}

pub fn disposition(status: &Status) -> Disposition {
    match status.code() {
        Code::Unavailable
        | Code::DeadlineExceeded
        | Code::Cancelled
        | Code::Aborted
        | Code::ResourceExhausted
        | Code::Unknown
        | Code::Internal => Disposition::Retry,
        Code::NotFound if status.message().contains("worker") => Disposition::Register,
        Code::Unauthenticated | Code::PermissionDenied | Code::FailedPrecondition => {
            Disposition::Fatal
        }
        _ => Disposition::Drop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submission_cut_into_messages_joins_back_into_itself() {
        use prost::Message;
        let req = pb::SubmitJobRequest {
            header: header(),
            name: "big".into(),
            dlx: "a b\na\nb\n".into(),
            units: (0..1000u32)
                .map(|i| pb::WeightedPrefix {
                    options: vec![i, i + 1, i + 2],
                    weight: (i + 1).to_string(),
                    ..Default::default()
                })
                .collect(),
            tasks: (0..10u32)
                .map(|i| pb::BenchTask {
                    instance_id: format!("t{i}"),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let chunk = 1 << 10;
        let messages = submission_messages(req.clone(), chunk);
        assert!(messages.len() > 10, "{}", messages.len());
        for m in &messages {
            assert!(m.encoded_len() <= chunk, "{}", m.encoded_len());
        }
        let mut joined = messages[0].clone();
        for m in &messages[1..] {
            let mut rest = m.clone();
            joined.units.append(&mut rest.units);
            joined.tasks.append(&mut rest.tasks);
            assert_eq!(
                rest,
                pb::SubmitJobRequest::default(),
                "only units and tasks follow"
            );
        }
        assert_eq!(joined, req);
        // What fits is one message.
        assert_eq!(submission_messages(req.clone(), usize::MAX), vec![req]);
    }

    #[test]
    fn the_token_travels_as_a_bearer_header() {
        let mut auth = BearerToken::new("s3cret\n").unwrap();
        let req = auth.call(Request::new(())).unwrap();
        assert_eq!(
            req.metadata().get("authorization").unwrap(),
            "Bearer s3cret"
        );
        assert!(matches!(
            BearerToken::new("bad\u{7}token"),
            Err(ClientError::BadToken)
        ));
    }

    #[test]
    fn failures_are_sorted_by_what_the_client_can_do() {
        let d = |code, msg: &str| disposition(&Status::new(code, msg));
        assert_eq!(
            d(Code::Unavailable, "connection refused"),
            Disposition::Retry
        );
        assert_eq!(d(Code::Unauthenticated, "bad token"), Disposition::Fatal);
        assert_eq!(
            d(Code::FailedPrecondition, "protocol 2 != 1"),
            Disposition::Fatal
        );
        assert_eq!(d(Code::NotFound, "unknown worker 7"), Disposition::Register);
        assert_eq!(d(Code::NotFound, "unknown job 3"), Disposition::Drop);
        assert_eq!(d(Code::InvalidArgument, "bad prefix"), Disposition::Drop);
    }

    #[test]
    fn urls_are_checked_before_any_connection() {
        let bad = |url, ca: Option<&str>| {
            matches!(
                endpoint(url, ca.map(Path::new)),
                Err(ClientError::BadUrl { .. })
            )
        };
        assert!(bad("ftp://x", None));
        assert!(bad("https://127.0.0.1:1", None));
        assert!(bad("http://127.0.0.1:1", Some("ca.pem")));
        assert!(endpoint("http://127.0.0.1:1", None).is_ok());
    }
}
