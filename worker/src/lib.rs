//! worker crate (filled in by its issue).
