//! Exact cover with colours (XCC): the problem type, the Dancing Links engine (Knuth's
//! Algorithm X / DLX2, seed 000 sections 2.3-2.4), its instrumentation and the Monte Carlo
//! tree-size estimator.

pub mod problem;

pub use problem::{Colour, ItemId, OptionId, Problem, ProblemBuilder, ProblemError};
