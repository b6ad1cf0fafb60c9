//! The generic MiniZinc suite (family `mzn-suite`): any MiniZinc model run on its data files
//! (`.dzn` or `.json`), each (data file, configuration) one unit, as mzn-bench runs a model's
//! instances (MiniZinc's benchmarking scripts, github.com/MiniZinc/mzn-bench). An instance
//! ([`MznInstance`]) names the job's frozen model files and optional solution checker (`.mzc`,
//! MiniZinc's own mechanism) and carries its data file's text, so the task's SHA-256 covers the
//! data; the objective's sense ([`Sense`]) is read from the model's solve item ([`sense_of`])
//! when the spec is read, since PAR2 and the contradictions between configurations depend on it.
//!
//! Invariant: an instance names exactly one sense, read from the one solve item of its model
//! files; a text without one, or with two, is an error naming the file and line.

use serde::{Deserialize, Serialize};

/// What a model asks for (its solve item).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sense {
    Satisfy,
    Minimize,
    Maximize,
}

impl Sense {
    pub fn as_str(self) -> &'static str {
        match self {
            Sense::Satisfy => "satisfy",
            Sense::Minimize => "minimize",
            Sense::Maximize => "maximize",
        }
    }

    /// Whether objective `a` is better than `b` (never for a satisfaction problem).
    pub fn better(self, a: i64, b: i64) -> bool {
        match self {
            Sense::Satisfy => false,
            Sense::Minimize => a < b,
            Sense::Maximize => a > b,
        }
    }

    /// The best of `values` in this sense (`None` for none, or for a satisfaction problem).
    pub fn best(self, values: impl IntoIterator<Item = i64>) -> Option<i64> {
        match self {
            Sense::Satisfy => None,
            Sense::Minimize => values.into_iter().min(),
            Sense::Maximize => values.into_iter().max(),
        }
    }
}

impl std::fmt::Display for Sense {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One instance of a MiniZinc suite: a data file under the suite's model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MznInstance {
    /// The data file's name without its extension (`k04`).
    pub id: String,
    /// The data file's name (`k04.dzn`, `b01-e1.json`): a `batch` file of the job.
    pub data: String,
    /// Its text, as frozen.
    pub text: String,
    /// The suite's model files, by their names among the job's frozen `model` files, in the
    /// order MiniZinc takes them.
    pub models: Vec<String>,
    /// The suite's solution checker (`.mzc`), a frozen `model` file, when it has one.
    pub checker: Option<String>,
    /// The objective's sense, from the models' solve item.
    pub sense: Sense,
}

impl MznInstance {
    /// The instance as a task's `instance_json`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an instance always serialises")
    }

    /// Reads what [`MznInstance::to_json`] writes.
    pub fn from_json(text: &str) -> Result<MznInstance, String> {
        serde_json::from_str(text).map_err(|e| format!("not a MiniZinc suite instance: {e}"))
    }
}

/// A model text whose sense cannot be read: the 1-based line, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}: {problem}")]
pub struct SenseError {
    pub line: usize,
    pub problem: String,
}

/// The sense of the solve item in a MiniZinc model `text` (`None`: it has no solve item), and
/// its line. Comments (`% ...`, `/* ... */`) and string literals are skipped; `solve` is a
/// keyword of MiniZinc, so the word where an item can start is the solve item. A solve item
/// that names none of `satisfy`, `minimize`, `maximize` before its `;`, or a second solve
/// item, is an error at its line.
pub fn sense_of(text: &str) -> Result<Option<(Sense, usize)>, SenseError> {
    let code = blank_comments(text);
    let words = words(&code);
    let mut found: Option<(Sense, usize)> = None;
    for (i, (word, at)) in words.iter().enumerate() {
        if *word != "solve" {
            continue;
        }
        let line = line_of(&code, *at);
        if let Some((_, first)) = found {
            return Err(SenseError {
                line,
                problem: format!("a second solve item (the first is on line {first})"),
            });
        }
        let end = code[*at..].find(';').map_or(code.len(), |e| at + e);
        let sense = words[i + 1..]
            .iter()
            .take_while(|(_, p)| *p < end)
            .find_map(|(w, _)| match *w {
                "satisfy" => Some(Sense::Satisfy),
                "minimize" => Some(Sense::Minimize),
                "maximize" => Some(Sense::Maximize),
                _ => None,
            })
            .ok_or_else(|| SenseError {
                line,
                problem: "the solve item names none of satisfy, minimize, maximize".into(),
            })?;
        found = Some((sense, line));
    }
    Ok(found)
}

/// `text` with comments and string literals replaced by spaces (newlines kept), so byte
/// offsets and lines are the text's.
fn blank_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        let blank_to = |out: &mut Vec<u8>, from: usize, to: usize| {
            for c in out.iter_mut().take(to).skip(from) {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
        };
        match b[i] {
            b'%' => {
                let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
                blank_to(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                blank_to(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(b.len());
                blank_to(&mut out, i, end);
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, by ASCII spaces, outside multi-byte characters.
    String::from_utf8(out).unwrap_or_default()
}

/// The identifiers of `code` with their byte offsets.
fn words(code: &str) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in code.char_indices() {
        let ident = c.is_ascii_alphanumeric() || c == '_';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((&code[s..i], s));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((&code[s..], s));
    }
    out
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sense_is_read_from_the_solve_item() {
        let t = "int: n;\n% solve maximize x;\nvar 1..n: x;\nsolve :: int_search([x], input_order, indomain_min)\n  minimize x;\n";
        assert_eq!(sense_of(t), Ok(Some((Sense::Minimize, 4))));
        assert_eq!(
            sense_of("var 1..3: x;\nsolve satisfy;"),
            Ok(Some((Sense::Satisfy, 2)))
        );
        assert_eq!(
            sense_of("/* solve minimize y; */ var 1..3: x; solve maximize x;"),
            Ok(Some((Sense::Maximize, 1)))
        );
        assert_eq!(
            sense_of("var 1..3: x; output [\"solve minimize\"];"),
            Ok(None)
        );
        assert_eq!(
            sense_of("var 1..3: solved;\nconstraint solved > 1;"),
            Ok(None)
        );
    }

    #[test]
    fn a_solve_item_without_a_sense_or_a_second_one_names_its_line() {
        let e = sense_of("var 1..3: x;\n\nsolve x;\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.problem.contains("satisfy, minimize, maximize"), "{e}");
        let e = sense_of("solve satisfy;\nsolve minimize 1;\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.problem.contains("second solve item"), "{e}");
    }

    #[test]
    fn better_and_best_follow_the_sense() {
        assert!(Sense::Maximize.better(5, 3) && Sense::Minimize.better(3, 5));
        assert!(!Sense::Satisfy.better(5, 3));
        assert_eq!(Sense::Minimize.best([4, 2, 7]), Some(2));
        assert_eq!(Sense::Maximize.best([4, 2, 7]), Some(7));
        assert_eq!(Sense::Satisfy.best([4]), None);
    }

    #[test]
    fn an_instance_round_trips() {
        let i = MznInstance {
            id: "k04".into(),
            data: "k04.dzn".into(),
            text: "n = 4;\n".into(),
            models: vec!["knapsack.mzn".into()],
            checker: Some("knapsack.mzc".into()),
            sense: Sense::Maximize,
        };
        assert_eq!(MznInstance::from_json(&i.to_json()), Ok(i));
        assert!(MznInstance::from_json("{}").is_err());
    }
}
