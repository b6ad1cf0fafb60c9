//! The domino placement benchmark of seed 001: place as many three-cell valued tiles as
//! possible on an n x n board so that touching cells of different tiles carry equal values.
//!
//! `instance` holds the data types and the JSON-lines reader; the verifier, generator,
//! exporters and the native optimiser live in sibling modules.

pub mod instance;

pub use instance::{Difficulty, Instance, Orientation, Placement};
