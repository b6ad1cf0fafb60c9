//! dancehall's solver cores. Plain synchronous Rust: no async runtime, no files, no network.
//! Everything that searches lives here; the coordinator, worker and CLI only adapt it.

pub mod bench;
pub mod count;
pub mod count_core;
pub mod domino;
pub mod grids;
pub mod label;
pub mod orbit_term;
pub mod permanent;
pub mod problems;
pub mod queens;
pub mod sudoku;
pub mod unit_term;
pub mod xcc;
