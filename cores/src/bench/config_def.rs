//! A solver configuration as data ([`ConfigDef`]): what a benchmark configuration runs, for
//! the built-in configurations of the worker's registry and for those a spec declares
//! (`[[config]]` tables, bench-specs/README.md) alike. A benchmark job freezes the definition
//! of every configuration it runs (a file of kind `config`, whose text is
//! [`ConfigDef::to_json`]), and each run record carries the SHA-256 of that text
//! (`RunRecord::config_sha256`), so two configurations that share a name but differ in
//! anything (a flag, a model file's text, a search annotation) are never taken for one.
//!
//! Invariant: the JSON is canonical (fields in declaration order, maps sorted), and it names
//! every file the engine runs by its SHA-256, so a definition's hash changes with any of its
//! files.

use std::collections::BTreeMap;
use strum::{EnumString, IntoStaticStr, VariantArray};

use serde::{Deserialize, Serialize};

use super::family::Family;
use super::record::ModelHash;

/// A named solver configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigDef {
    /// Stable and unique within a job (letters, digits, `.`, `_`, `-`).
    pub name: String,
    /// The family whose instances it solves.
    pub family: Family,
    /// The built-in configuration it starts from, when it has one (a built-in names itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// One line for tables.
    pub about: String,
    pub engine: EngineDef,
    /// The files the engine runs, in the order it passes them, by their names among the
    /// job's frozen `model` files and the SHA-256 of their text.
    pub files: Vec<ModelHash>,
}

/// How a configuration solves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum EngineDef {
    /// A configuration compiled into dancehall (`base` names it): the native optimiser, the
    /// in-process Sudoku solvers and the Sudoku process runners.
    BuiltIn,
    /// `minizinc --solver SOLVER --json-stream --intermediate --statistics FLAGS FILES DATA`.
    #[serde(rename = "minizinc")]
    MiniZinc {
        /// MiniZinc's solver id or tag (`org.gecode.gecode`, `gecode`, `chuffed`).
        solver: String,
        /// Extra command-line flags (`--restart`, `-f`, ...).
        #[serde(default)]
        flags: Vec<String>,
        /// A search annotation: the run adds the solve item `solve :: SEARCH maximize
        /// objective;` (domino), so the model files must have none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        search: Option<String>,
        /// Model parameters, passed as `-D NAME=VALUE;`.
        #[serde(default)]
        parameters: BTreeMap<String, String>,
    },
    /// `clingo --outf=2 --stats OPTIONS FILES DATA` (the newest clingo found).
    Clingo {
        #[serde(default)]
        options: Vec<String>,
    },
    /// python3 with OR-Tools on the first file (a script), the data, `--time-limit S
    /// --workers 1`, then OPTIONS.
    CpSat {
        #[serde(default)]
        options: Vec<String>,
    },
    /// Any program: `argv` with its placeholders filled in (`{instance}`, `{time_limit}`,
    /// `{seed}`, `{file:NAME}`); run only by workers started with `--allow-commands`.
    Command {
        argv: Vec<String>,
        /// How the instance is written for it.
        data: DataFormat,
        /// What it prints.
        output: OutputFormat,
        /// The `{seed}` placeholder's value.
        #[serde(default)]
        seed: u64,
    },
}

/// How a command template's instance file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataFormat {
    /// MiniZinc data (a domino instance as seed 001's `.dzn`; a MiniZinc suite's own data).
    Dzn,
    /// clingo facts (a domino instance's `tile/4`, `size/1`).
    Lp,
    /// The instance's JSON as the task carries it.
    Json,
}

impl DataFormat {
    pub fn extension(self) -> &'static str {
        match self {
            DataFormat::Dzn => "dzn",
            DataFormat::Lp => "lp",
            DataFormat::Json => "json",
        }
    }
}

/// What a command template prints on standard output: a machine format, never free text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum OutputFormat {
    /// MiniZinc's `--json-stream` objects, one a line.
    MinizincJson,
    /// clingo's `--outf=2` JSON document.
    ClingoJson,
    /// The lines of `domino-cpsat.py`: `place T ROW COL H|V M`, `objective N`, `bound B`,
    /// `status S`.
    DancehallLines,
}

/// A definition that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the configuration definition is malformed: {0}")]
pub struct ConfigDefError(pub String);

impl ConfigDef {
    /// The canonical text: the frozen file's text, whose SHA-256 is the definition's hash.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a ConfigDef always serialises")
    }

    /// Reads what [`ConfigDef::to_json`] writes.
    pub fn from_json(text: &str) -> Result<ConfigDef, ConfigDefError> {
        serde_json::from_str(text).map_err(|e| ConfigDefError(e.to_string()))
    }

    /// The capability a worker must advertise to run it: `None` for a built-in (the worker
    /// advertises the name itself), else `engine:minizinc:SOLVER`, `engine:clingo`,
    /// `engine:cp-sat` or `engine:command`.
    pub fn needs(&self) -> Option<String> {
        match &self.engine {
            EngineDef::BuiltIn => None,
            EngineDef::MiniZinc { solver, .. } => Some(format!("engine:minizinc:{solver}")),
            EngineDef::Clingo { .. } => Some("engine:clingo".into()),
            EngineDef::CpSat { .. } => Some("engine:cp-sat".into()),
            EngineDef::Command { .. } => Some(ENGINE_COMMAND.into()),
        }
    }
}

/// The capability of a worker that runs command templates (`--allow-commands`).
pub const ENGINE_COMMAND: &str = "engine:command";

/// Whether `name` may name a configuration: letters, digits, `.`, `_`, `-`, at most 64.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> ConfigDef {
        ConfigDef {
            name: "gecode-ff".into(),
            family: Family::Domino,
            base: None,
            about: "first fail".into(),
            engine: EngineDef::MiniZinc {
                solver: "org.gecode.gecode".into(),
                flags: vec![],
                search: Some("int_search(posX, first_fail, indomain_min)".into()),
                parameters: BTreeMap::new(),
            },
            files: vec![ModelHash {
                name: "gecode-ff/domino.mzn".into(),
                sha256: "ab".into(),
            }],
        }
    }

    #[test]
    fn a_definition_round_trips_and_is_canonical() {
        let d = def();
        let text = d.to_json();
        assert_eq!(ConfigDef::from_json(&text).unwrap(), d);
        assert!(text.contains(r#""kind":"minizinc""#), "{text}");
        assert_eq!(ConfigDef::from_json(&text).unwrap().to_json(), text);
        assert_eq!(
            d.needs().as_deref(),
            Some("engine:minizinc:org.gecode.gecode")
        );
        let e = ConfigDef::from_json(&text.replace("\"about\"", "\"abut\"")).unwrap_err();
        assert!(e.to_string().contains("abut"), "{e}");
    }

    #[test]
    fn names_are_plain() {
        assert!(valid_name("gecode-ff_2.1"));
        for bad in ["", "a b", "a/b", "é", &"x".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
