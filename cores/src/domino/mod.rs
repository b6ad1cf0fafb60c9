//! The domino placement benchmark of seed 001: place as many three-cell valued tiles as
//! possible on an n x n board so that touching cells of different tiles carry equal values.
//!
//! `instance` holds the data types and the JSON-lines reader; `verify` the independent checker
//! of placements and `verify_bound` that of the bounds by counting and by the side count;
//! `generate` the seeded instance generator (seed 001's mix, and tight instances); `export` the MiniZinc and clingo writers; `svg` the
//! picture; `brute` a plain exhaustive reference for tests (what runs claim is judged above
//! the families, in `crate::bench::judge::domino`, with `verify` and `verify_bound`); `native` the exact optimiser, which
//! drives two searches over the instance in search form (`model`): the Russian-doll cell-order
//! search (`rds`) and the tile-order search (`cover`), restarts the cell search's probe in
//! random tile orders and, where every tile may fit, the tile search's cell-order fill,
//! improves its incumbent by large-neighbourhood search (`improve`) and by simulated annealing
//! over legal placements (`construct`, which finds the good placements of tight boards) and,
//! on small boards where every tile may fit, asks CaDiCaL (`sat`), after starting from the
//! side count's bound (`sides`: the empty cells that tiles whose long sides no other tile can
//! cover need beside them); `table` is the cell
//! search's transposition table; `fit_cnf` writes CaDiCaL's question as DIMACS, to certify a
//! bound outside the process, and `certificate` is what such a check found (kept in the results
//! database, shown by the report).

mod bound;
pub mod brute;
pub mod certificate;
mod construct;
mod cover;
pub mod export;
pub mod fit_cnf;
pub mod generate;
mod improve;
pub mod instance;
mod model;
pub mod native;
mod rds;
mod sat;
mod sides;
pub mod svg;
mod table;
pub mod verify;
pub mod verify_bound;

#[cfg(test)]
mod tests;

pub use bound::BoundBy;
pub use brute::brute_force;
pub use certificate::{instance_sha256, Certificate, CertificateError, Verdict};
pub use export::{to_clingo, to_dzn};
pub use fit_cnf::{FitCnf, FitCnfError};
pub use generate::{generate, generate_with, GenerateOptions, Mix, OptionError};
pub use instance::{
    parse_batch, parse_line, to_json_line, Difficulty, Instance, InstanceError, InstanceProblem,
    Orientation, Placement, MAX_N,
};
pub use native::{solve, NativeStats, SolveLimits, SolveOutcome, SolveStatus};
pub use svg::to_svg;
pub use verify::{verify, Violation};
pub use verify_bound::argued_bound;
