//! dancehall's solver cores. Plain synchronous Rust: no async runtime, no files, no network.
//! Everything that searches lives here; the coordinator, worker and CLI only adapt it.

// Module docs link to private items on purpose: they are read as the developers' map,
// `cargo doc --document-private-items` (scripts/test.sh checks it builds without warnings).
#![allow(rustdoc::private_intra_doc_links)]

pub mod bench;
pub mod count;
pub mod count_core;
pub mod domino;
pub mod grids;
pub mod label;
pub mod orbit_term;
pub mod parallel;
pub mod permanent;
pub mod problems;
pub mod queens;
pub mod sudoku;
pub mod unit_term;
pub mod xcc;
