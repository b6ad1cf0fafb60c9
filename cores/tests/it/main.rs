//! Integration tests of `cores`, one module per surface.

mod counts;
mod orbits;
mod pinned;
