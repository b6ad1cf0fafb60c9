//! The kinds of file a benchmark job freezes at submission: the one name of each kind that the
//! CLI writes, the coordinator stores (`bench_files.kind`, whose CHECK list copies
//! [`FileKind::ALL`]) and sends (`FrozenFile.kind`), and the worker reads back.
//!
//! It lives here rather than in the coordinator because the worker branches on it too (it runs
//! the frozen model files) and depends on `cores`, never on the coordinator.

/// What a frozen file of a benchmark job holds (the text of [`FileKind::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// Instances: a domino batch file (one instance a line) or a Sudoku puzzle file (one
    /// puzzle a line), named by its tasks' `batch`.
    Batch,
    /// A model that external domino configurations run (MiniZinc, clingo, the CP-SAT script),
    /// frozen so that every worker runs the same text.
    Model,
    /// A configuration's definition (`super::ConfigDef::to_json`), named by the
    /// configuration: what the worker runs for the tasks of that name.
    Config,
}

impl FileKind {
    /// Every kind (for tests).
    pub const ALL: [FileKind; 3] = [FileKind::Batch, FileKind::Config, FileKind::Model];

    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Batch => "batch",
            FileKind::Model => "model",
            FileKind::Config => "config",
        }
    }

    pub fn parse(s: &str) -> Option<FileKind> {
        Some(match s {
            "batch" => FileKind::Batch,
            "model" => FileKind::Model,
            "config" => FileKind::Config,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_kinds_round_trip() {
        for k in FileKind::ALL {
            assert_eq!(FileKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(FileKind::parse("puzzle"), None);
        assert_eq!(FileKind::parse("Model"), None);
        assert_eq!(FileKind::parse(""), None);
    }
}
