//! Readers of the external solvers' standard output, fed one line at a time while the solver
//! runs, so that the best solution printed before a kill is kept.
//!
//! - MiniZinc with `--json-stream --intermediate --statistics`: one JSON object per line; a
//!   `solution` object carries our models' text output (`place T ROW COL H|V MIRRORED` lines,
//!   then `objective N`; T is 0-based); `status` `OPTIMAL_SOLUTION` is the proof of
//!   optimality; `statistics` objects the solver's counters; `error` objects the message.
//! - clingo with `--outf=2 --stats`: one JSON document at the end (also when stopped by
//!   SIGTERM): the last call's `Witnesses`, each `Value` the shown atoms
//!   `place(T,ROW,COL,h|v,M)` with 1-based T (the facts of `cores::domino::to_clingo`) and
//!   `Costs` `[-N]`; `Result` `OPTIMUM FOUND` is the proof; `Stats.Core` the statistics.
//! - CP-SAT (`domino-cpsat.py`): `place T ROW COL H|V M` lines (T 0-based), then
//!   `objective N` ending each solution; at the end `bound B` (its proven upper bound, with a
//!   status OPTIMAL or FEASIBLE) and `status S`: OPTIMAL is the proof, FEASIBLE and UNKNOWN
//!   mean it stopped at its time limit, INFEASIBLE that it found no placement; before it,
//!   `stat NAME V` lines its search statistics (branches, conflicts, booleans, wall_time);
//!   `error M` lines carry the script's complaints.
//!
//! Invariant: `best` is the last solution printed in full; a solution is never mixed from two
//! blocks. A line the reader cannot understand inside a solution is kept as `malformed`
//! (the record becomes `error`), never silently skipped.

use cores::domino::{Orientation, Placement};

use super::process::LineSink;

/// What a solver's output said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The last complete solution: its placement and the objective the solver claimed.
    pub best: Option<(Vec<Placement>, u32)>,
    /// Solutions seen.
    pub solutions: u32,
    /// The solver printed its proof of optimality.
    pub proven: bool,
    /// The solver said the problem has no solution (never true for this benchmark).
    pub unsatisfiable: bool,
    /// A proven upper bound on the objective the solver printed (CP-SAT's, whether or not it
    /// proved optimality).
    pub bound: Option<u32>,
    /// The solver stopped itself at the time limit it was given, before a proof.
    pub stopped_at_limit: bool,
    /// Error messages the solver printed on standard output.
    pub errors: Vec<String>,
    /// The first line that could not be read.
    pub malformed: Option<String>,
    /// The solver's statistics, numbers only (MiniZinc's `statistics` objects, the last
    /// value of each name; clingo's `Stats.Core` and total time; CP-SAT's `stat` lines).
    pub stats: std::collections::BTreeMap<String, f64>,
}

impl Parsed {
    fn malformed(&mut self, line: &str) {
        if self.malformed.is_none() {
            self.malformed = Some(line.chars().take(200).collect());
        }
    }
}

/// Reads MiniZinc's `--json-stream` output.
#[derive(Debug, Default)]
pub struct MiniZincOutput {
    pub parsed: Parsed,
}

impl LineSink for MiniZincOutput {
    fn line(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            self.parsed.malformed(line);
            return;
        };
        let p = &mut self.parsed;
        match value.get("type").and_then(|t| t.as_str()) {
            Some("solution") => {
                let text = value
                    .pointer("/output/default")
                    .or_else(|| value.pointer("/output/raw"))
                    .and_then(|t| t.as_str());
                match text.and_then(parse_mzn_solution) {
                    Some(sol) => {
                        p.best = Some(sol);
                        p.solutions += 1;
                    }
                    None => p.malformed(line),
                }
            }
            Some("status") => match value.get("status").and_then(|s| s.as_str()) {
                Some("OPTIMAL_SOLUTION") => p.proven = true,
                Some("UNSATISFIABLE") => p.unsatisfiable = true,
                Some("ERROR") => p.errors.push("MiniZinc reported status ERROR".into()),
                _ => {}
            },
            Some("statistics") => read_statistics(&value, &mut p.stats),
            Some("error") => p.errors.push(error_message(&value)),
            // warnings, statistics, comments, timestamps
            _ => {}
        }
    }
}

/// Adds the numbers of a MiniZinc `statistics` object to `stats` (a later value of a name
/// replaces an earlier one).
pub fn read_statistics(
    value: &serde_json::Value,
    stats: &mut std::collections::BTreeMap<String, f64>,
) {
    let Some(object) = value.get("statistics").and_then(|s| s.as_object()) else {
        return;
    };
    for (k, v) in object {
        let x = v
            .as_f64()
            .or_else(|| v.as_str().and_then(|t| t.parse().ok()));
        if let Some(x) = x {
            stats.insert(k.clone(), x);
        }
    }
}

/// The message of a MiniZinc `error` object: `WHAT: MESSAGE`.
pub fn error_message(value: &serde_json::Value) -> String {
    let msg = value
        .get("message")
        .and_then(|m| m.as_str())
        .unwrap_or("(no message)");
    let what = value
        .get("what")
        .and_then(|m| m.as_str())
        .unwrap_or("error");
    format!("{what}: {msg}")
}

/// One solution's text: `place` lines then `objective N`.
fn parse_mzn_solution(text: &str) -> Option<(Vec<Placement>, u32)> {
    let mut placement = Vec::new();
    let mut objective = None;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["place", t, r, c, o, m] => placement.push(Placement {
                tile: t.parse().ok()?,
                row: r.parse().ok()?,
                col: c.parse().ok()?,
                orientation: orientation(o)?,
                mirrored: flag(m)?,
            }),
            ["objective", v] => objective = Some(v.parse().ok()?),
            _ => return None,
        }
    }
    Some((placement, objective?))
}

/// Reads clingo's `--outf=2` output: one JSON document, read whole when the process has
/// ended ([`ClingoOutput::finish`]; clingo prints it also when stopped by SIGTERM, with
/// result `UNKNOWN` or `SATISFIABLE`). Each witness's `Value` is its shown atoms
/// `place(T,ROW,COL,h|v,M)` with 1-based T (the facts of `cores::domino::to_clingo`), its
/// `Costs` the negated objective (`#maximize`); `Result` `OPTIMUM FOUND` (or `Models.Optimum`
/// `yes`) is the proof; `Stats.Core` (with `--stats`) gives choices, conflicts, restarts.
#[derive(Debug, Default)]
pub struct ClingoOutput {
    text: String,
}

impl LineSink for ClingoOutput {
    fn line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }
}

impl ClingoOutput {
    /// What the whole document said.
    pub fn finish(self) -> Parsed {
        let mut p = Parsed::default();
        let text = self.text.trim();
        if text.is_empty() {
            return p;
        }
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else {
            let first = text.lines().next().unwrap_or("");
            p.malformed(first);
            return p;
        };
        let witnesses = doc
            .get("Call")
            .and_then(|c| c.as_array())
            .and_then(|calls| calls.last())
            .and_then(|c| c.get("Witnesses"))
            .and_then(|w| w.as_array());
        for w in witnesses.into_iter().flatten() {
            let atoms: Option<Vec<&str>> = w
                .get("Value")
                .and_then(|v| v.as_array())
                .and_then(|v| v.iter().map(|a| a.as_str()).collect());
            let Some(placement) = atoms.and_then(|a| parse_clingo_atoms(&a)) else {
                p.malformed(&w.to_string());
                return p;
            };
            // `#maximize` is reported negated: -N for N tiles placed; without costs, the
            // atoms are the claim.
            let claimed = match w.get("Costs").and_then(|c| c.as_array()) {
                None => Some(placement.len() as u32),
                Some(costs) => costs
                    .first()
                    .and_then(|c| c.as_i64())
                    .and_then(|c| u32::try_from(-c).ok()),
            };
            let Some(claimed) = claimed else {
                p.malformed(&w.to_string());
                return p;
            };
            p.best = Some((placement, claimed));
            p.solutions += 1;
        }
        let result = doc.get("Result").and_then(|r| r.as_str()).unwrap_or("");
        let optimum = doc
            .pointer("/Models/Optimum")
            .and_then(|o| o.as_str())
            .is_some_and(|o| o == "yes");
        p.proven = result == "OPTIMUM FOUND" || optimum;
        p.unsatisfiable = result == "UNSATISFIABLE";
        if let Some(core) = doc.pointer("/Stats/Core").and_then(|c| c.as_object()) {
            for (k, v) in core {
                if let Some(x) = v.as_f64() {
                    p.stats.insert(k.to_lowercase(), x);
                }
            }
        }
        if let Some(t) = doc.pointer("/Time/Total").and_then(|t| t.as_f64()) {
            p.stats.insert("time".into(), t);
        }
        p
    }
}

/// `place(T,R,C,O,M)` atoms (T 1-based); anything else is malformed.
fn parse_clingo_atoms(atoms: &[&str]) -> Option<Vec<Placement>> {
    atoms
        .iter()
        .map(|atom| {
            let args = atom.strip_prefix("place(")?.strip_suffix(')')?;
            let parts: Vec<&str> = args.split(',').collect();
            let [t, r, c, o, m] = parts.as_slice() else {
                return None;
            };
            let tile: u32 = t.parse().ok()?;
            Some(Placement {
                tile: tile.checked_sub(1)?,
                row: r.parse().ok()?,
                col: c.parse().ok()?,
                orientation: orientation(o)?,
                mirrored: flag(m)?,
            })
        })
        .collect()
}

/// Reads the output of `domino-cpsat.py`.
#[derive(Debug, Default)]
pub struct CpSatOutput {
    pub parsed: Parsed,
    /// The placements of the solution being printed.
    pending: Vec<Placement>,
}

impl LineSink for CpSatOutput {
    fn line(&mut self, line: &str) {
        let p = &mut self.parsed;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["place", t, r, c, o, m] => {
                let placement = (|| {
                    Some(Placement {
                        tile: t.parse().ok()?,
                        row: r.parse().ok()?,
                        col: c.parse().ok()?,
                        orientation: orientation(o)?,
                        mirrored: flag(m)?,
                    })
                })();
                match placement {
                    Some(pl) => self.pending.push(pl),
                    None => p.malformed(line),
                }
            }
            ["objective", v] => match v.parse() {
                Ok(claimed) => {
                    p.best = Some((std::mem::take(&mut self.pending), claimed));
                    p.solutions += 1;
                }
                Err(_) => p.malformed(line),
            },
            ["bound", v] => match v.parse() {
                Ok(b) => p.bound = Some(b),
                Err(_) => p.malformed(line),
            },
            ["stat", name, v] => match v.parse::<f64>() {
                Ok(v) if v.is_finite() => {
                    p.stats.insert((*name).to_owned(), v);
                }
                _ => p.malformed(line),
            },
            ["status", "OPTIMAL"] => p.proven = true,
            ["status", "FEASIBLE" | "UNKNOWN"] => p.stopped_at_limit = true,
            ["status", "INFEASIBLE"] => p.unsatisfiable = true,
            ["error", ..] => {
                let message = line.trim().strip_prefix("error").unwrap_or(line);
                p.errors.push(message.trim().to_owned());
            }
            _ => p.malformed(line),
        }
    }
}

fn orientation(text: &str) -> Option<Orientation> {
    match text {
        "H" | "h" => Some(Orientation::H),
        "V" | "v" => Some(Orientation::V),
        _ => None,
    }
}

fn flag(text: &str) -> Option<bool> {
    match text {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed<S: LineSink>(text: &str) -> S {
        let mut s = S::default();
        for l in text.lines() {
            s.line(l);
        }
        s
    }

    fn p(tile: u32, row: u32, col: u32, o: Orientation, mirrored: bool) -> Placement {
        Placement {
            tile,
            row,
            col,
            orientation: o,
            mirrored,
        }
    }

    // Captured from `minizinc --json-stream --intermediate` (MiniZinc 2.6.4, Gecode 6.2.0)
    // on b01-e1 of the public suite, shortened to two solutions.
    const MZN: &str = r#"{"type": "warning", "message": "included file \"count.mzn\" overrides a global constraint file"}
{"type": "solution", "output": {"default": "place 1 0 0 H 0\nobjective 1\n", "raw": "place 1 0 0 H 0\nobjective 1\n"}, "sections": ["default", "raw"]}
{"type": "solution", "output": {"default": "place 0 1 4 V 1\nplace 1 3 0 H 0\nobjective 2\n", "raw": ""}, "sections": ["default", "raw"]}
{"type": "status", "status": "OPTIMAL_SOLUTION"}
"#;

    #[test]
    fn minizinc_keeps_the_last_solution_and_the_proof() {
        let out: MiniZincOutput = feed(MZN);
        let parsed = out.parsed;
        assert_eq!(parsed.solutions, 2);
        assert!(parsed.proven);
        assert_eq!(parsed.malformed, None);
        assert_eq!(
            parsed.best,
            Some((
                vec![
                    p(0, 1, 4, Orientation::V, true),
                    p(1, 3, 0, Orientation::H, false)
                ],
                2
            ))
        );
    }

    #[test]
    fn minizinc_without_status_is_unproven_and_errors_are_kept() {
        let text = MZN.lines().take(3).collect::<Vec<_>>().join("\n")
            + "\n{\"type\": \"error\", \"what\": \"type error\", \"message\": \"undefined identifier\"}\n";
        let parsed = feed::<MiniZincOutput>(&text).parsed;
        assert!(!parsed.proven);
        assert_eq!(parsed.best.unwrap().1, 2);
        assert_eq!(parsed.errors, vec!["type error: undefined identifier"]);
    }

    #[test]
    fn minizinc_garbage_is_malformed() {
        let parsed = feed::<MiniZincOutput>(
            "{\"type\": \"solution\", \"output\": {\"default\": \"place 1 x 0 H 0\\nobjective 1\\n\"}}\n",
        )
        .parsed;
        assert!(parsed.best.is_none());
        assert!(parsed.malformed.is_some());
        let parsed = feed::<MiniZincOutput>("not json\n").parsed;
        assert_eq!(parsed.malformed.as_deref(), Some("not json"));
    }

    // Captured from `python3 -m clingo --outf=2 --stats` (pyclingo 5.8.3) on b01-e1 of the
    // public suite, shortened to two witnesses and the core statistics.
    const CLINGO: &str = r#"{
  "Solver": "pyclingo version 5.8.3",
  "Call": [
    {
      "Witnesses": [
        { "Time": 0.01, "Value": [ ], "Costs": [ 0 ] },
        { "Time": 0.02, "Value": [ "place(2,1,0,v,0)", "place(3,0,1,h,0)" ], "Costs": [ -2 ] }
      ]
    }
  ],
  "Result": "OPTIMUM FOUND",
  "Models": { "Number": 2, "More": "no", "Optimum": "yes", "Optimal": 1, "Costs": [ -2 ] },
  "Time": { "Total": 0.287, "Solve": 0.012 },
  "Stats": { "Core": { "Choices": 13282, "Conflicts": 153, "Restarts": 1 } }
}
"#;

    fn clingo(text: &str) -> Parsed {
        feed::<ClingoOutput>(text).finish()
    }

    #[test]
    fn clingo_answers_are_read_with_one_based_tiles_and_statistics() {
        let parsed = clingo(CLINGO);
        assert_eq!(parsed.solutions, 2);
        assert!(parsed.proven);
        assert_eq!(parsed.malformed, None);
        assert_eq!(
            parsed.best,
            Some((
                vec![
                    p(1, 1, 0, Orientation::V, false),
                    p(2, 0, 1, Orientation::H, false)
                ],
                2
            ))
        );
        assert_eq!(parsed.stats.get("choices"), Some(&13282.0));
        assert_eq!(parsed.stats.get("conflicts"), Some(&153.0));
        assert_eq!(parsed.stats.get("time"), Some(&0.287));
    }

    #[test]
    fn clingo_interrupted_keeps_the_last_answer_unproven() {
        let text = CLINGO
            .replace("OPTIMUM FOUND", "SATISFIABLE")
            .replace("\"Optimum\": \"yes\"", "\"Optimum\": \"unknown\"");
        let parsed = clingo(&text);
        assert!(!parsed.proven);
        assert_eq!(parsed.best.as_ref().unwrap().0.len(), 2);
    }

    #[test]
    fn clingo_claimed_objective_is_kept_apart_from_the_atoms() {
        // A solver claiming 3 tiles while showing 2: the judge compares the two.
        let parsed = clingo(&CLINGO.replace("\"Costs\": [ -2 ] }", "\"Costs\": [ -3 ] }"));
        let (placement, claimed) = parsed.best.unwrap();
        assert_eq!((placement.len(), claimed), (2, 3));
    }

    // What domino-cpsat.py printed on b01-e3 (OR-Tools 9.15.6755), with an earlier
    // one-tile solution put in front.
    const CPSAT: &str = "place 0 0 1 H 0
objective 1
place 0 0 1 H 0
place 1 4 0 H 0
place 2 2 1 H 0
objective 3
bound 3
stat branches 41
stat conflicts 0
stat booleans 25
stat wall_time 0.0125
status OPTIMAL
";

    #[test]
    fn cp_sat_keeps_the_last_solution_its_bound_and_the_proof() {
        let parsed = feed::<CpSatOutput>(CPSAT).parsed;
        assert_eq!(parsed.solutions, 2);
        assert!(parsed.proven && !parsed.stopped_at_limit);
        assert_eq!(parsed.bound, Some(3));
        assert_eq!(parsed.malformed, None);
        assert_eq!(
            (parsed.stats["branches"], parsed.stats["wall_time"]),
            (41.0, 0.0125)
        );
        assert_eq!(parsed.stats.len(), 4);
        assert_eq!(
            parsed.best,
            Some((
                vec![
                    p(0, 0, 1, Orientation::H, false),
                    p(1, 4, 0, Orientation::H, false),
                    p(2, 2, 1, Orientation::H, false)
                ],
                3
            ))
        );
    }

    #[test]
    fn cp_sat_stopped_at_its_limit_is_unproven_with_its_bound() {
        let text = CPSAT
            .replace("status OPTIMAL", "status FEASIBLE")
            .replace("bound 3", "bound 4");
        let parsed = feed::<CpSatOutput>(&text).parsed;
        assert!(!parsed.proven && parsed.stopped_at_limit);
        assert_eq!(parsed.bound, Some(4));
        assert_eq!(parsed.best.unwrap().1, 3);
        // Killed while printing a solution: the half-printed one is not taken.
        let text: String = CPSAT.lines().take(4).map(|l| format!("{l}\n")).collect();
        let parsed = feed::<CpSatOutput>(&text).parsed;
        assert_eq!(
            parsed.best,
            Some((vec![p(0, 0, 1, Orientation::H, false)], 1))
        );
        assert_eq!(parsed.bound, None);
    }

    #[test]
    fn cp_sat_errors_are_kept_and_garbage_is_malformed() {
        let parsed = feed::<CpSatOutput>("error the data has no `n = N;`\n").parsed;
        assert_eq!(parsed.errors, vec!["the data has no `n = N;`"]);
        assert_eq!(parsed.malformed, None);
        let parsed = feed::<CpSatOutput>("stat branches many\n").parsed;
        assert!(parsed.malformed.is_some() && parsed.stats.is_empty());
        let parsed = feed::<CpSatOutput>("place 0 0 0 D 0\nobjective 1\n").parsed;
        assert_eq!(parsed.malformed.as_deref(), Some("place 0 0 0 D 0"));
        let parsed = feed::<CpSatOutput>("Traceback (most recent call last):\n").parsed;
        assert!(parsed.malformed.is_some());
    }

    #[test]
    fn clingo_tile_zero_and_free_text_are_malformed() {
        let parsed = clingo(&CLINGO.replace("place(2,1,0,v,0)", "place(0,1,0,v,0)"));
        assert!(parsed.malformed.is_some());
        let parsed = clingo("clingo version 5.4.1\nAnswer: 1\n");
        assert_eq!(parsed.malformed.as_deref(), Some("clingo version 5.4.1"));
        assert!(parsed.best.is_none());
    }
}
