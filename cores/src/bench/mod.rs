//! Benchmarks of every problem family: what a benchmark instance is ([`Instance`], read from a
//! task's instance text by its [`Family`]), the one typed record of a run ([`record`]), the
//! one judge of what runs claim ([`judge`](mod@judge)) and the kinds of file a job freezes
//! ([`FileKind`]), and the definition of a solver configuration ([`ConfigDef`]). A family brings its instance reader, its answer (a variant of
//! [`record::Answer`]) and its verifier; everything else (limits, measurement, statuses,
//! storage, routing) is shared.
//!
//! - Domino (seed 001): an instance is one JSON line of a batch file (`crate::domino`); the
//!   answer is a placement, judged by `crate::domino::verify`.
//! - Sudoku (seed 000): an instance is a slice of a puzzle file (`crate::sudoku::bench`); the
//!   answer is one result per puzzle, each grid judged by `crate::problems::sudoku::verify`.
//! - MiniZinc suite (`mzn-suite`): an instance is a data file of any MiniZinc model
//!   ([`mzn_suite`]); the answer is what MiniZinc printed, each solution judged by the suite's
//!   checker (`.mzc`) when it has one.
//!
//! Each family's rules of judging live in [`judge`](mod@judge) (`judge::domino`, `judge::sudoku`,
//! `judge::mzn_suite`), above the families, which keep only their verifiers.

pub mod config_def;
pub mod conflict;
pub mod family;
pub mod file;
pub mod judge;
pub mod mzn_suite;
pub mod record;

pub use config_def::{ConfigDef, DataFormat, EngineDef, OutputFormat};
pub use conflict::Conflict;
pub use family::Family;
pub use file::{sha256_hex, FileKind};
pub use judge::{cross_check, judge};
pub use mzn_suite::{MznInstance, Sense};
pub use record::{
    Answer, HostInfo, Measure, ModelHash, MznAnswer, RecordError, RunRecord, Status, Termination,
};

/// One benchmark instance of some family, as a task carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum Instance {
    Domino(crate::domino::Instance),
    Sudoku(crate::sudoku::bench::Slice),
    MznSuite(MznInstance),
}

impl Instance {
    /// Reads a task's instance text (`instance_json`) as an instance of `family`.
    pub fn parse(family: Family, text: &str) -> Result<Instance, String> {
        match family {
            Family::Domino => crate::domino::parse_line(text)
                .map(Instance::Domino)
                .map_err(|e| e.to_string()),
            Family::Sudoku => crate::sudoku::bench::Slice::from_json(text)
                .map(Instance::Sudoku)
                .map_err(|e| e.to_string()),
            Family::MznSuite => MznInstance::from_json(text).map(Instance::MznSuite),
        }
    }

    pub fn family(&self) -> Family {
        match self {
            Instance::Domino(_) => Family::Domino,
            Instance::Sudoku(_) => Family::Sudoku,
            Instance::MznSuite(_) => Family::MznSuite,
        }
    }

    /// The instance's id (`b01-e1`, `royle_17clue_49151.txt:1-500`).
    pub fn id(&self) -> &str {
        match self {
            Instance::Domino(i) => &i.id,
            Instance::Sudoku(s) => &s.id,
            Instance::MznSuite(i) => &i.id,
        }
    }
}
