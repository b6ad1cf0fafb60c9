//! One module per group of subcommands; each parses its own `Args` and calls the libraries.

pub mod bench;
pub mod bench_distributed;
pub mod bench_load;
pub mod bench_speedup;
pub mod bounds;
pub mod certify;
pub mod coordinator;
pub mod domino;
pub mod fleet;
pub mod ledger;
pub mod migrate;
pub mod orbits;
pub mod problem;
pub mod query;
pub mod run;
pub mod solve;
pub mod solvers;
pub mod submit;
pub mod sudoku;
pub mod three_band;
pub mod two_band;
pub mod units;
pub mod worker;
