//! The kinds of file a benchmark job freezes at submission: the one name of each kind that the
//! CLI writes, the coordinator stores (`bench_files.kind`, whose CHECK list copies
//! [`FileKind`]'s names, in declaration order) and sends (`FrozenFile.kind`), and the worker
//! reads back.
//!
//! It lives here rather than in the coordinator because the worker branches on it too (it runs
//! the frozen model files) and depends on `cores`, never on the coordinator.

use strum::{EnumString, IntoStaticStr, VariantArray};

/// What a frozen file of a benchmark job holds (its name: `Label::as_str`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum FileKind {
    /// Instances: a domino batch file (one instance a line) or a Sudoku puzzle file (one
    /// puzzle a line), named by its tasks' `batch`.
    Batch,
    /// A configuration's definition (`super::ConfigDef::to_json`), named by the
    /// configuration: what the worker runs for the tasks of that name.
    Config,
    /// A model that external domino configurations run (MiniZinc, clingo, the CP-SAT script),
    /// frozen so that every worker runs the same text.
    Model,
}

/// Lowercase hex SHA-256 of a text: the hash of every frozen file, instance and
/// configuration definition (the coordinator checks what the worker hashes, and both call
/// this).
pub fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;

    #[test]
    fn file_kinds_round_trip() {
        for &k in FileKind::ALL {
            assert_eq!(FileKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(FileKind::parse("puzzle"), None);
        assert_eq!(FileKind::parse("Model"), None);
        assert_eq!(FileKind::parse(""), None);
    }
}
