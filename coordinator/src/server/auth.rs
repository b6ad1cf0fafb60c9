//! Bearer-token authentication, in an interceptor (never in handlers): the server checks
//! `authorization: Bearer <token>` on every call (clients add it: `proto::client`).
//!
//! Invariant: the comparison takes the same time whatever the token: both sides are hashed
//! with SHA-256 and the digests compared without an early exit, so neither the token's
//! content nor its length leaks through timing.

use sha2::{Digest, Sha256};
use tonic::service::Interceptor;
use tonic::{Request, Status};

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Server interceptor: refuses a call without the right token with `UNAUTHENTICATED`.
#[derive(Clone)]
pub struct BearerAuth {
    expected: [u8; 32],
}

impl BearerAuth {
    pub fn new(token: &str) -> Self {
        BearerAuth {
            expected: digest(token),
        }
    }
}

impl Interceptor for BearerAuth {
    fn call(&mut self, req: Request<()>) -> Result<Request<()>, Status> {
        let given = req
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        match given {
            Some(token) if constant_time_eq(&digest(token), &self.expected) => Ok(req),
            Some(_) => Err(Status::unauthenticated("wrong bearer token")),
            None => Err(Status::unauthenticated(
                "missing `authorization: Bearer <token>` metadata",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(auth: &mut BearerAuth, header: Option<&str>) -> Result<(), tonic::Code> {
        let mut req = Request::new(());
        if let Some(h) = header {
            req.metadata_mut()
                .insert("authorization", h.parse().unwrap());
        }
        auth.call(req).map(|_| ()).map_err(|s| s.code())
    }

    #[test]
    fn only_the_right_token_passes() {
        let mut a = BearerAuth::new("s3cret");
        assert_eq!(call(&mut a, Some("Bearer s3cret")), Ok(()));
        let denied = Err(tonic::Code::Unauthenticated);
        assert_eq!(call(&mut a, Some("Bearer s3cre")), denied);
        assert_eq!(call(&mut a, Some("Bearer s3cretx")), denied);
        assert_eq!(call(&mut a, Some("s3cret")), denied);
        assert_eq!(call(&mut a, Some("Basic s3cret")), denied);
        assert_eq!(call(&mut a, None), denied);
    }
}
