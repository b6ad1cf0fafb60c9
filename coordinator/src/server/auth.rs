//! Bearer-token authentication, in interceptors (never in handlers): the server side checks
//! `authorization: Bearer <token>` on every call, the client side adds it.
//!
//! Invariant: the comparison takes the same time whatever the token: both sides are hashed
//! with SHA-256 and the digests compared without an early exit, so neither the token's
//! content nor its length leaks through timing.

use sha2::{Digest, Sha256};
use tonic::metadata::{Ascii, MetadataValue};
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

/// Client interceptor: adds `authorization: Bearer <token>` to every call.
#[derive(Clone)]
pub struct BearerToken {
    value: MetadataValue<Ascii>,
}

impl BearerToken {
    /// Fails when the token cannot travel in a header (non-ASCII or control characters).
    pub fn new(token: &str) -> Result<Self, crate::Error> {
        let value = format!("Bearer {token}")
            .parse()
            .map_err(|_| crate::Error::Token("the token is not printable ASCII".to_string()))?;
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
        let mut c = BearerToken::new("s3cret").unwrap();
        let req = c.call(Request::new(())).unwrap();
        assert_eq!(
            req.metadata().get("authorization").unwrap(),
            "Bearer s3cret"
        );
    }
}
