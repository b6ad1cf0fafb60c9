//! [`ProblemSpec`]: the serialisable name of a problem (family and parameters) that the CLI,
//! bench specs (TOML) and the coordinator pass around, and [`ProblemSpec::build`], which turns
//! it into a [`Built`] problem: the exact-cover problem, the prefix to start from, the factor
//! to multiply counts by, and a label.
//!
//! Invariant: `build` validates every parameter and returns a [`BuildError`] for anything out
//! of range; a spec that deserialises never panics when built. Unknown fields are refused at
//! deserialisation, so a typo in a bench spec is an error, not a silent default.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::langford::Langford;
use super::latin::Latin;
use super::pentomino::Pentomino;
use super::queens::Queens;
use super::sudoku::{Sudoku, SudokuConfig, Variant};
use super::BuildError;
use crate::xcc::{OptionId, Problem};

/// A problem family and its parameters, e.g. in TOML:
/// `family = "sudoku"`, `box_rows = 2`, `box_cols = 3`, `fix_first_row = true`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ProblemSpec {
    /// Sudoku with `box_rows x box_cols` boxes; see [`super::sudoku`] for the variants, the
    /// extra groups (1-based `[row, col]` cells) and the givens format.
    Sudoku {
        box_rows: usize,
        box_cols: usize,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        variants: Vec<Variant>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        extra_groups: Vec<Vec<(usize, usize)>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        givens: Option<String>,
        #[serde(default, skip_serializing_if = "is_false")]
        fix_first_row: bool,
    },
    /// Latin squares of order `n`; `reduced` fixes the first row and column.
    Latin {
        n: usize,
        #[serde(default, skip_serializing_if = "is_false")]
        reduced: bool,
    },
    /// `n` queens on an `n x n` board.
    Queens { n: usize },
    /// Langford pairings L(2,n); `break_symmetry` halves the count (reversals).
    Langford {
        n: usize,
        #[serde(default, skip_serializing_if = "is_false")]
        break_symmetry: bool,
    },
    /// The 12 pentominoes in a `width x height` rectangle (area 60).
    Pentomino {
        width: usize,
        height: usize,
        #[serde(default, skip_serializing_if = "is_false")]
        break_symmetry: bool,
    },
}

fn is_false(b: &bool) -> bool {
    !b
}

/// A built problem, ready for the engine.
#[derive(Debug, Clone)]
pub struct Built {
    pub problem: Problem,
    /// How one solution is drawn in its family's own picture.
    pub picture: Picture,
    /// Options chosen before the search starts (givens, fixed rows); may be empty.
    pub prefix: Vec<OptionId>,
    /// Multiply counts by this to get the full count; 1 if no symmetry was broken.
    pub symmetry_factor: u128,
    /// A short description, e.g. "sudoku 2x3 fixed-first-row".
    pub label: String,
}

impl ProblemSpec {
    /// A plain Sudoku with `box_rows x box_cols` boxes.
    pub fn sudoku(box_rows: usize, box_cols: usize) -> Self {
        ProblemSpec::Sudoku {
            box_rows,
            box_cols,
            variants: Vec::new(),
            extra_groups: Vec::new(),
            givens: None,
            fix_first_row: false,
        }
    }

    /// The family name as written in specs ("sudoku", "latin", ...).
    pub fn family(&self) -> &'static str {
        match self {
            ProblemSpec::Sudoku { .. } => "sudoku",
            ProblemSpec::Latin { .. } => "latin",
            ProblemSpec::Queens { .. } => "queens",
            ProblemSpec::Langford { .. } => "langford",
            ProblemSpec::Pentomino { .. } => "pentomino",
        }
    }

    /// A Sudoku spec as the Sudoku builder's configuration (`None` for the other families).
    pub fn sudoku_config(&self) -> Option<SudokuConfig> {
        match self {
            ProblemSpec::Sudoku {
                box_rows,
                box_cols,
                variants,
                extra_groups,
                givens,
                fix_first_row,
            } => Some(SudokuConfig {
                box_rows: *box_rows,
                box_cols: *box_cols,
                variants: variants.clone(),
                extra_groups: extra_groups.clone(),
                givens: givens.clone(),
                fix_first_row: *fix_first_row,
            }),
            _ => None,
        }
    }

    /// Builds the problem, checking every parameter.
    pub fn build(&self) -> Result<Built, BuildError> {
        let label = self.to_string();
        let (problem, prefix, symmetry_factor, picture) = match self {
            ProblemSpec::Sudoku { .. } => {
                let config = self.sudoku_config().expect("a Sudoku spec");
                let mut s = Sudoku::build(&config)?;
                let factor = s.symmetry_factor();
                let (problem, prefix) = (std::mem::take(&mut s.problem), s.prefix.clone());
                let picture = Picture::Sudoku(Box::new(s), config.box_rows, config.box_cols);
                (problem, prefix, factor, picture)
            }
            ProblemSpec::Latin { n, reduced } => {
                let mut l = Latin::build(*n, *reduced)?;
                let factor = l.symmetry_factor();
                let (problem, prefix) = (std::mem::take(&mut l.problem), l.prefix.clone());
                (problem, prefix, factor, Picture::Latin(l))
            }
            ProblemSpec::Queens { n } => {
                let mut q = Queens::build(*n)?;
                (
                    std::mem::take(&mut q.problem),
                    Vec::new(),
                    1,
                    Picture::Queens(q),
                )
            }
            ProblemSpec::Langford { n, break_symmetry } => {
                let mut l = Langford::build(*n, *break_symmetry)?;
                let factor = l.symmetry_factor();
                let problem = std::mem::take(&mut l.problem);
                (problem, Vec::new(), factor, Picture::Langford(l))
            }
            ProblemSpec::Pentomino {
                width,
                height,
                break_symmetry,
            } => {
                let mut p = Pentomino::build(*width, *height, *break_symmetry)?;
                let factor = p.symmetry_factor();
                let problem = std::mem::take(&mut p.problem);
                (problem, Vec::new(), factor, Picture::Pentomino(p))
            }
        };
        Ok(Built {
            problem,
            picture,
            prefix,
            symmetry_factor,
            label,
        })
    }
}

/// The label of [`Built`]: family, size and options, e.g. "sudoku 2x2 diagonal",
/// "langford 7 symmetry-broken".
impl fmt::Display for ProblemSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flag = |f: &mut fmt::Formatter<'_>, on: bool, name: &str| {
            if on {
                write!(f, " {name}")
            } else {
                Ok(())
            }
        };
        match self {
            ProblemSpec::Sudoku {
                box_rows,
                box_cols,
                variants,
                extra_groups,
                givens,
                fix_first_row,
            } => {
                write!(f, "sudoku {box_rows}x{box_cols}")?;
                for v in variants {
                    write!(f, " {v}")?;
                }
                match extra_groups.len() {
                    0 => {}
                    1 => write!(f, " +1 group")?,
                    n => write!(f, " +{n} groups")?,
                }
                flag(f, givens.is_some(), "puzzle")?;
                flag(f, *fix_first_row, "fixed-first-row")
            }
            ProblemSpec::Latin { n, reduced } => {
                write!(f, "latin {n}")?;
                flag(f, *reduced, "reduced")
            }
            ProblemSpec::Queens { n } => write!(f, "queens {n}"),
            ProblemSpec::Langford { n, break_symmetry } => {
                write!(f, "langford {n}")?;
                flag(f, *break_symmetry, "symmetry-broken")
            }
            ProblemSpec::Pentomino {
                width,
                height,
                break_symmetry,
            } => {
                write!(f, "pentomino {width}x{height}")?;
                flag(f, *break_symmetry, "symmetry-broken")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        let mut s = ProblemSpec::sudoku(2, 3);
        if let ProblemSpec::Sudoku { fix_first_row, .. } = &mut s {
            *fix_first_row = true;
        }
        let built = s.build().unwrap();
        assert_eq!(built.label, "sudoku 2x3 fixed-first-row");
        assert_eq!(built.symmetry_factor, 720);
        assert_eq!(built.prefix.len(), 6);
        let d = ProblemSpec::Sudoku {
            box_rows: 2,
            box_cols: 2,
            variants: vec![Variant::Diagonal],
            extra_groups: vec![vec![(1, 1), (2, 2)]],
            givens: Some("1...............".into()),
            fix_first_row: false,
        };
        assert_eq!(d.to_string(), "sudoku 2x2 diagonal +1 group puzzle");
        let l = ProblemSpec::Langford {
            n: 7,
            break_symmetry: true,
        };
        assert_eq!(l.to_string(), "langford 7 symmetry-broken");
        assert_eq!(l.build().unwrap().symmetry_factor, 2);
        let r = ProblemSpec::Latin {
            n: 5,
            reduced: true,
        };
        assert_eq!(r.build().unwrap().symmetry_factor, 120 * 24);
        assert_eq!(r.to_string(), "latin 5 reduced");
        assert_eq!(
            ProblemSpec::Queens { n: 8 }
                .build()
                .unwrap()
                .problem
                .num_options(),
            64
        );
        let p = ProblemSpec::Pentomino {
            width: 6,
            height: 10,
            break_symmetry: true,
        };
        assert_eq!(p.to_string(), "pentomino 6x10 symmetry-broken");
        assert_eq!(p.build().unwrap().symmetry_factor, 4);
        assert_eq!(p.family(), "pentomino");
    }

    #[test]
    fn json_round_trip_and_defaults() {
        let spec: ProblemSpec = serde_json::from_str(
            r#"{"family":"sudoku","box_rows":2,"box_cols":2,"variants":["diagonal"]}"#,
        )
        .unwrap();
        assert_eq!(
            spec,
            ProblemSpec::Sudoku {
                box_rows: 2,
                box_cols: 2,
                variants: vec![Variant::Diagonal],
                extra_groups: vec![],
                givens: None,
                fix_first_row: false,
            }
        );
        let text = serde_json::to_string(&spec).unwrap();
        assert_eq!(
            text,
            r#"{"family":"sudoku","box_rows":2,"box_cols":2,"variants":["diagonal"]}"#
        );
        let groups: ProblemSpec = serde_json::from_str(
            r#"{"family":"sudoku","box_rows":2,"box_cols":2,"extra_groups":[[[1,1],[2,2]]]}"#,
        )
        .unwrap();
        assert_eq!(
            serde_json::from_str::<ProblemSpec>(&serde_json::to_string(&groups).unwrap()).unwrap(),
            groups
        );
        let l: ProblemSpec = serde_json::from_str(r#"{"family":"langford","n":7}"#).unwrap();
        assert_eq!(
            l,
            ProblemSpec::Langford {
                n: 7,
                break_symmetry: false
            }
        );
    }

    #[test]
    fn bad_specs_are_errors() {
        let parse = |s: &str| {
            serde_json::from_str::<ProblemSpec>(s)
                .unwrap_err()
                .to_string()
        };
        assert!(parse(r#"{"family":"chess","n":8}"#).contains("unknown variant `chess`"));
        assert!(parse(r#"{"family":"queens","n":8,"colour":1}"#).contains("unknown field `colour`"));
        assert!(parse(r#"{"family":"queens"}"#).contains("missing field `n`"));
        assert!(
            parse(r#"{"family":"sudoku","box_rows":2,"box_cols":2,"variants":["x"]}"#)
                .contains("unknown variant `x`")
        );
        let err = |spec: ProblemSpec| spec.build().unwrap_err().to_string();
        assert_eq!(
            err(ProblemSpec::Queens { n: 0 }),
            "queens n = 0 is out of range (1..=256)"
        );
        assert_eq!(
            err(ProblemSpec::Latin {
                n: 100_000,
                reduced: false
            }),
            "Latin square order n = 100000 is out of range (1..=64)"
        );
        assert!(err(ProblemSpec::sudoku(usize::MAX, usize::MAX)).contains("out of range"));
        assert!(err(ProblemSpec::sudoku(9, 9)).contains("side"));
        assert!(err(ProblemSpec::Pentomino {
            width: 7,
            height: 9,
            break_symmetry: false
        })
        .contains("60 cells"));
    }
}

/// How a family draws one solution (its builder, whose problem moved into [`Built`]): a
/// Sudoku grid with its boxes, a Latin square, a queens board, a Langford sequence, a
/// pentomino packing. A problem read from a DLX file has no picture: its options.
#[derive(Debug, Clone)]
pub enum Picture {
    Options,
    Sudoku(Box<Sudoku>, usize, usize),
    Latin(Latin),
    Queens(Queens),
    Langford(Langford),
    Pentomino(Pentomino),
}

impl Picture {
    /// `solution` (prefix options included) in the family's picture; the option lines of
    /// `problem` for [`Picture::Options`], or when the options do not make a picture.
    pub fn draw(&self, problem: &Problem, solution: &[OptionId]) -> String {
        let options = || {
            solution
                .iter()
                .map(|&o| problem.option_text(o))
                .collect::<Vec<_>>()
                .join("\n")
        };
        match self {
            Picture::Options => options(),
            Picture::Sudoku(s, box_rows, box_cols) => match s.decode(solution) {
                Ok(line) => draw_sudoku(&line, *box_rows, *box_cols),
                Err(_) => options(),
            },
            Picture::Latin(l) => l
                .decode(solution)
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Picture::Queens(q) => q
                .decode(solution)
                .iter()
                .map(|col| {
                    let n = q.n();
                    (0..n)
                        .map(|j| if *col == Some(j) { "Q" } else { "." })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Picture::Langford(l) => l
                .decode(solution)
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            Picture::Pentomino(p) => p.decode(solution),
        }
    }
}

/// A grid line (givens format, one character a cell) as rows with `|` between boxes and a
/// rule between bands.
fn draw_sudoku(line: &str, box_rows: usize, box_cols: usize) -> String {
    let side = box_rows * box_cols;
    let cells: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    for r in 0..side {
        if r > 0 && r % box_rows == 0 {
            let rule = vec!["-".repeat(2 * box_cols - 1); side / box_cols].join("-+-");
            out.push(rule);
        }
        let row: Vec<String> = (0..side / box_cols)
            .map(|b| {
                (0..box_cols)
                    .map(|c| cells[r * side + b * box_cols + c].to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        out.push(row.join(" | "));
    }
    out.join("\n")
}
