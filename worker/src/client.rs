//! The client side of the coordinator connection: channel set-up (plain or TLS), the bearer
//! token interceptor, and how each gRPC status is handled.
//!
//! Invariant: every call made through [`Auth`] carries `authorization: Bearer <token>`, and
//! every failure is classified once, here ([`disposition`]): transient failures are retried
//! with back-off, a refused token or protocol version ends the worker with a clear message.

use std::path::Path;
use std::time::Duration;

use tonic::metadata::AsciiMetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Request, Status};

use proto::v1::worker_client::WorkerClient;

use crate::Error;

/// Adds the bearer token to every request.
#[derive(Clone)]
pub struct Auth {
    header: AsciiMetadataValue,
}

impl Auth {
    pub fn new(token: &str) -> Result<Self, Error> {
        let header = format!("Bearer {}", token.trim())
            .parse()
            .map_err(|_| Error::BadToken)?;
        Ok(Auth { header })
    }
}

impl tonic::service::Interceptor for Auth {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        request
            .metadata_mut()
            .insert("authorization", self.header.clone());
        Ok(request)
    }
}

pub type AuthChannel = InterceptedService<Channel, Auth>;

/// A lazily connected channel to `url` (`http://host:port`, or `https://` with a CA
/// certificate). Connecting lazily lets a worker start before its coordinator is up: the first
/// calls fail with UNAVAILABLE and are retried.
pub fn channel(url: &str, tls_ca: Option<&Path>) -> Result<Channel, Error> {
    let bad_url = |reason: String| Error::BadUrl {
        url: url.to_string(),
        reason,
    };
    let mut endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| bad_url(e.to_string()))?
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(60))
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
            let pem = std::fs::read(path).map_err(|source| Error::ReadFile {
                path: path.to_path_buf(),
                source,
            })?;
            let tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem));
            endpoint = endpoint
                .tls_config(tls)
                .map_err(|e| Error::Tls(e.to_string()))?;
        }
        _ => {
            return Err(bad_url(
                "the URL must start with http:// or https://".into(),
            ))
        }
    }
    Ok(endpoint.connect_lazy())
}

/// Largest message sent or accepted: the DLX text of a big problem exceeds tonic's 4 MiB
/// default (the coordinator accepts the same).
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// The worker service client with the token attached.
pub fn worker_client(channel: Channel, auth: Auth) -> WorkerClient<AuthChannel> {
    WorkerClient::with_interceptor(channel, auth)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

/// The header every request starts with.
pub fn header() -> Option<proto::v1::RequestHeader> {
    Some(proto::v1::RequestHeader {
        protocol_version: proto::PROTOCOL_VERSION,
    })
}

/// What to do after a failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// The coordinator is away or busy: try again after a back-off delay.
    Retry,
    /// The coordinator does not know this worker (e.g. a fresh database): register again.
    Register,
    /// The coordinator refuses this worker (token, protocol version): stop with the message.
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
    use tonic::service::Interceptor;

    #[test]
    fn the_token_travels_as_a_bearer_header() {
        let mut auth = Auth::new("s3cret\n").unwrap();
        let req = auth.call(Request::new(())).unwrap();
        assert_eq!(
            req.metadata().get("authorization").unwrap(),
            "Bearer s3cret"
        );
        assert!(matches!(Auth::new("bad\u{7}token"), Err(Error::BadToken)));
    }

    #[test]
    fn failures_are_sorted_by_what_the_worker_can_do() {
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
        assert!(matches!(
            channel("ftp://x", None),
            Err(Error::BadUrl { .. })
        ));
        assert!(matches!(
            channel("https://127.0.0.1:1", None),
            Err(Error::BadUrl { .. })
        ));
        assert!(matches!(
            channel("http://127.0.0.1:1", Some(Path::new("ca.pem"))),
            Err(Error::BadUrl { .. })
        ));
    }
}
