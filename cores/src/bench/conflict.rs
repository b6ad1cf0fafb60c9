//! A contradiction between the runs of one instance, as the judges of every family report it.

/// A contradiction among the records of one instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub instance: String,
    /// The configuration whose claim is refuted.
    pub config: String,
    pub reason: String,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.instance, self.config, self.reason)
    }
}
