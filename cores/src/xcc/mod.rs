//! Exact cover with colours (XCC): the problem type, the Dancing Links engine (Knuth's
//! Algorithm X / DLX2, seed 000 sections 2.3-2.4), its instrumentation and the Monte Carlo
//! tree-size estimator.

mod active;
pub mod dlx;
pub mod dlx_format;
pub mod estimate;
pub mod problem;
pub mod reduce;
pub mod search;
pub mod stats;
#[cfg(test)]
mod tests;

pub use dlx::Dlx;
pub use dlx_format::{parse_dlx, write_dlx, DlxParseError};
pub use estimate::{estimate, estimate_from, Estimate, MeanSe};
pub use problem::{Colour, ItemId, OptionId, Problem, ProblemBuilder, ProblemError};
pub use reduce::{reduce, ReduceError};
pub use search::{Branching, Choice, Flow, Limits, Outcome, PrefixError};
pub use stats::{LevelStats, Stats};
