//! coordinator crate (filled in by its issue).
