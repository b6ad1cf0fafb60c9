//! proto crate (filled in by its issue).
