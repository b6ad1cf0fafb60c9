//! The coordinator's error type, and the one conversion to `tonic::Status` that decides
//! what a client may see: user errors (a bad DLX text, an unknown job) are named; internal
//! ones (database, I/O) are logged here and reported as "internal error" without details.

use tonic::{Code, Status};

use crate::partition::PartitionError;
use crate::scheduler::SchedError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Scheduler(#[from] SchedError),
    #[error(transparent)]
    Partition(#[from] PartitionError),
    #[error("invalid request: {0}")]
    InvalidArgument(String),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("{0}")]
    Token(String),
    #[error("TLS: {0}")]
    Tls(String),
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("internal: {0}")]
    Internal(String),
}

impl From<Error> for Status {
    fn from(e: Error) -> Status {
        match e {
            Error::Scheduler(e @ SchedError::UnknownWorker(_)) => Status::not_found(e.to_string()),
            Error::Scheduler(e @ SchedError::UnknownJob(_)) => Status::not_found(e.to_string()),
            Error::Scheduler(e @ SchedError::NotBenchmark(_)) => {
                Status::failed_precondition(e.to_string())
            }
            Error::Partition(e) => Status::invalid_argument(e.to_string()),
            Error::InvalidArgument(m) => Status::invalid_argument(m),
            Error::NotFound(m) => Status::not_found(m),
            other => {
                tracing::error!("internal error: {other}");
                Status::new(Code::Internal, "internal error (see the coordinator's log)")
            }
        }
    }
}
