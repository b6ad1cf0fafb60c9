//! Any MiniZinc model run as a benchmark, read in MiniZinc's machine format (the runner of
//! the `mzn-suite` family, `super::mzn_suite`): the objective's sense read from the model itself
//! ([`cores::bench::mzn_suite::sense_of`], `minizinc --model-interface-only`), and one run of a model on a data file
//! under limits ([`run_model`]) read from `--json-stream --intermediate --output-objective
//! --output-mode json --output-time --statistics`: every solution with its objective and the
//! milliseconds at which it was printed, the final status and when it came (the proof), the
//! solver's statistics, and, when a solution checker (`.mzc`, MiniZinc's own mechanism) is
//! given, its verdict on every solution.
//!
//! Invariant: a run whose checker called any solution `INCORRECT` is never an answer
//! ([`MznRun::checker_failures`] is not empty); a solution without a checker verdict is
//! `unchecked`, never counted as checked.

use std::collections::BTreeMap;
use std::path::Path;

use cores::bench::{Measure, Termination};

use super::output::{error_message, read_statistics};
use super::process::{run_process, LineSink, ProcessLimits};

pub use cores::bench::Sense;

/// One solution as MiniZinc printed it.
#[derive(Debug, Clone, PartialEq)]
pub struct MznSolution {
    /// `_objective` (none for a satisfaction problem).
    pub objective: Option<i64>,
    /// The output variables (the `json` section, `_objective` included).
    pub values: serde_json::Value,
    /// Milliseconds since MiniZinc started (`--output-time`).
    pub millis: Option<u64>,
    /// The checker's verdict on it (`None`: no checker ran).
    pub checked: Option<Result<(), String>>,
}

/// What a run printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MznParsed {
    pub solutions: Vec<MznSolution>,
    /// The final status (`OPTIMAL_SOLUTION`, `ALL_SOLUTIONS`, `UNSATISFIABLE`, `UNKNOWN`,
    /// `ERROR`, ...), and when it was printed.
    pub status: Option<String>,
    pub status_millis: Option<u64>,
    /// Statistics by name, numbers only (the last value of each).
    pub stats: BTreeMap<String, f64>,
    /// Error messages.
    pub errors: Vec<String>,
    /// The first line that could not be read.
    pub malformed: Option<String>,
    /// A checker verdict waiting for its solution (MiniZinc prints it first).
    pending_check: Option<Result<(), String>>,
}

/// Reads MiniZinc's `--json-stream` lines.
#[derive(Debug, Default)]
pub struct MznOutput {
    pub parsed: MznParsed,
}

impl LineSink for MznOutput {
    fn line(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let p = &mut self.parsed;
        let malformed = |p: &mut MznParsed| {
            if p.malformed.is_none() {
                p.malformed = Some(line.chars().take(200).collect());
            }
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            malformed(p);
            return;
        };
        let millis = value.get("time").and_then(|t| t.as_u64());
        match value.get("type").and_then(|t| t.as_str()) {
            Some("solution") => {
                let Some(values) = value.pointer("/output/json").cloned() else {
                    malformed(p);
                    return;
                };
                let objective = values.get("_objective").and_then(|o| o.as_i64());
                p.solutions.push(MznSolution {
                    objective,
                    values,
                    millis,
                    checked: p.pending_check.take(),
                });
            }
            Some("checker") => {
                let text = value
                    .pointer("/output/default")
                    .or_else(|| value.pointer("/output/raw"))
                    .and_then(|t| t.as_str())
                    .unwrap_or("")
                    .trim();
                p.pending_check = Some(if text.starts_with("CORRECT") {
                    Ok(())
                } else {
                    Err(text.lines().next().unwrap_or("(no verdict)").to_owned())
                });
            }
            Some("status") => {
                p.status = value
                    .get("status")
                    .and_then(|s| s.as_str())
                    .map(str::to_owned);
                p.status_millis = millis;
            }
            Some("statistics") => read_statistics(&value, &mut p.stats),
            Some("error") => p.errors.push(error_message(&value)),
            _ => {}
        }
    }
}

/// The outcome of one run of a model on a data file.
#[derive(Debug, Clone)]
pub struct MznRun {
    pub argv: Vec<String>,
    pub parsed: MznParsed,
    pub termination: Termination,
    pub wall_seconds: f64,
    pub cpu_seconds: Option<f64>,
    pub cpu_measure: Measure,
    pub peak_memory: Option<u64>,
    pub memory_measure: Measure,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stderr_tail: String,
}

impl MznRun {
    /// The best solution: the last one printed (MiniZinc prints improving solutions).
    pub fn best(&self) -> Option<&MznSolution> {
        self.parsed.solutions.last()
    }

    /// Seconds to the best solution, and to the proof (the final status of a run that
    /// ended by itself with `OPTIMAL_SOLUTION`, `ALL_SOLUTIONS` or `UNSATISFIABLE`).
    pub fn time_to_best(&self) -> Option<f64> {
        self.best()?.millis.map(|m| m as f64 / 1000.0)
    }

    pub fn time_to_proof(&self) -> Option<f64> {
        self.proven()
            .then_some(self.parsed.status_millis)
            .flatten()
            .map(|m| m as f64 / 1000.0)
    }

    /// The run proved its answer (optimality, or unsatisfiability; a satisfaction problem's
    /// first solution needs no proof).
    pub fn proven(&self) -> bool {
        matches!(
            self.parsed.status.as_deref(),
            Some("OPTIMAL_SOLUTION" | "ALL_SOLUTIONS" | "UNSATISFIABLE")
        )
    }

    /// Every checker complaint, in solution order.
    pub fn checker_failures(&self) -> Vec<String> {
        self.parsed
            .solutions
            .iter()
            .filter_map(|s| s.checked.as_ref()?.as_ref().err().cloned())
            .collect()
    }
}

/// Runs `minizinc --solver SOLVER FLAGS MODELS DATA [CHECKER]` in `dir` under `limits`.
pub fn run_model(
    minizinc: &Path,
    solver: &str,
    flags: &[String],
    files: &[&Path],
    checker: Option<&Path>,
    dir: &Path,
    limits: &ProcessLimits,
) -> std::io::Result<MznRun> {
    let mut argv: Vec<String> = vec![minizinc.display().to_string()];
    argv.extend(
        [
            "--solver",
            solver,
            "--json-stream",
            "--intermediate",
            "--output-objective",
            "--output-mode",
            "json",
            "--output-time",
            "--statistics",
        ]
        .map(String::from),
    );
    argv.extend(flags.iter().cloned());
    argv.extend(files.iter().map(|f| f.display().to_string()));
    argv.extend(checker.map(|c| c.display().to_string()));
    let outcome = run_process::<MznOutput>(&argv, dir, limits)?;
    let termination = match outcome.limit {
        Some(limit) => limit,
        None if outcome.signal.is_some() => Termination::Killed,
        None if outcome.exit_code != Some(0) => Termination::Failed,
        None => Termination::Normal,
    };
    Ok(MznRun {
        argv,
        parsed: outcome.sink.parsed,
        termination,
        wall_seconds: outcome.wall.as_secs_f64(),
        cpu_seconds: outcome.cpu.map(|c| c.as_secs_f64()),
        cpu_measure: outcome.cpu_measure,
        peak_memory: outcome.peak_memory,
        memory_measure: outcome.memory_measure,
        exit_code: outcome.exit_code,
        signal: outcome.signal,
        stderr_tail: outcome.stderr_tail,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    fn knapsack(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../bench-specs/minizinc/knapsack")
            .join(name)
    }

    /// minizinc with Gecode, or the test fails naming it (`DANCEHALL_ALLOW_SKIP=1`: a skip).
    fn minizinc() -> Option<PathBuf> {
        let a = super::super::config("gecode-basic").unwrap().availability();
        crate::test_tools::present(a.available, "minizinc", "run scripts/install-solvers.sh")
            .then(|| PathBuf::from(&a.program[0]))
    }

    fn limits(seconds: u64) -> ProcessLimits {
        ProcessLimits {
            wall: Duration::from_secs(seconds),
            cpu: None,
            memory: None,
            grace: Duration::from_secs(2),
            stop: None,
            stop_signal: libc::SIGINT,
        }
    }

    /// The sense of a model's files as the suite reads it (`cores::bench::mzn_suite::sense_of`
    /// on the file that holds the solve item).
    fn sense(file: &Path) -> Option<Sense> {
        let text = std::fs::read_to_string(file).unwrap();
        cores::bench::mzn_suite::sense_of(&text)
            .unwrap()
            .map(|(s, _)| s)
    }

    #[test]
    fn the_sense_comes_from_the_model() {
        assert_eq!(sense(&knapsack("knapsack.mzn")), Some(Sense::Maximize));
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/domino/models");
        assert_eq!(
            sense(&models.join("domino-solve-basic.mzn")),
            Some(Sense::Maximize)
        );
    }

    #[test]
    fn a_checked_run_proves_the_optimum_with_its_times() {
        let Some(mzn) = minizinc() else { return };
        let dir = tempfile::tempdir().unwrap();
        let run = run_model(
            &mzn,
            "org.gecode.gecode",
            &[],
            &[&knapsack("knapsack.mzn"), &knapsack("k04.dzn")],
            Some(&knapsack("knapsack.mzc")),
            dir.path(),
            &limits(60),
        )
        .unwrap();
        assert_eq!(run.termination, Termination::Normal, "{run:?}");
        assert!(run.proven(), "{run:?}");
        // Items 2 and 4: weight 7, value 90 (the only way to 90 within 10).
        let best = run.best().unwrap();
        assert_eq!(best.objective, Some(90));
        assert_eq!(best.values["x"], serde_json::json!([0, 1, 0, 1]));
        assert!(run
            .parsed
            .solutions
            .iter()
            .all(|s| s.checked == Some(Ok(()))));
        assert!(run.checker_failures().is_empty());
        let (best_s, proof_s) = (run.time_to_best().unwrap(), run.time_to_proof().unwrap());
        assert!(best_s <= proof_s && proof_s <= run.wall_seconds, "{run:?}");
        assert!(run.parsed.stats.get("nodes").is_some_and(|n| *n >= 1.0));
    }

    #[test]
    fn a_broken_model_is_caught_by_the_checker() {
        let Some(mzn) = minizinc() else { return };
        let dir = tempfile::tempdir().unwrap();
        // The capacity constraint left out: the "optimum" takes every item.
        let text = std::fs::read_to_string(knapsack("knapsack.mzn")).unwrap();
        let broken = text.replace("constraint sum(i in 1..n)(w[i] * x[i]) <= cap;", "");
        assert_ne!(broken, text);
        let model = dir.path().join("knapsack.mzn");
        std::fs::write(&model, broken).unwrap();
        let run = run_model(
            &mzn,
            "org.gecode.gecode",
            &[],
            &[&model, &knapsack("k04.dzn")],
            Some(&knapsack("knapsack.mzc")),
            dir.path(),
            &limits(60),
        )
        .unwrap();
        assert_eq!(run.best().unwrap().objective, Some(130));
        let failures = run.checker_failures();
        assert!(
            failures.iter().any(|f| f.contains("over capacity")),
            "{failures:?}"
        );
    }

    /// Seed 001's domino model run through the generic runner proves the optima the domino
    /// family's native optimiser proves (on instances Gecode proves within seconds), and its
    /// best solution's placement passes the domino verifier.
    #[test]
    fn seed_001s_model_as_a_generic_model_agrees_with_the_domino_family() {
        let Some(mzn) = minizinc() else { return };
        let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs");
        let models = specs.join("domino/models");
        let dir = tempfile::tempdir().unwrap();
        for (batch, id) in [("batch01.txt", "b01-e1"), ("batch03.txt", "b03-m2")] {
            let text =
                std::fs::read_to_string(specs.join("domino/suite-public").join(batch)).unwrap();
            let inst = cores::domino::parse_batch(&text)
                .unwrap()
                .into_iter()
                .find(|i| i.id == id)
                .unwrap();
            let data = dir.path().join(format!("{id}.dzn"));
            std::fs::write(&data, cores::domino::to_dzn(&inst)).unwrap();
            let files = [
                models.join("domino.mzn"),
                models.join("domino-solve-basic.mzn"),
                data,
            ];
            let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
            assert_eq!(sense(files[1]), Some(Sense::Maximize));
            let run = run_model(
                &mzn,
                "org.gecode.gecode",
                &[],
                &files,
                None,
                dir.path(),
                &limits(60),
            )
            .unwrap();
            assert!(run.proven(), "{id}: {run:?}");
            let native = cores::domino::solve(&inst, &cores::domino::SolveLimits::default());
            assert_eq!(native.status, cores::domino::SolveStatus::Optimal, "{id}");
            let best = run.best().unwrap();
            assert_eq!(best.objective, Some(i64::from(native.objective)), "{id}");
            // No checker here: the answer is unchecked, and stays so.
            assert!(run.parsed.solutions.iter().all(|s| s.checked.is_none()));
        }
    }

    #[test]
    fn output_lines_are_read_in_order_and_garbage_is_malformed() {
        let mut out = MznOutput::default();
        for l in [
            r#"{"type": "checker", "output": {"default": "INCORRECT: no\n"}}"#,
            r#"{"type": "solution", "output": {"json": {"x": 1, "_objective": 3}}, "time": 12}"#,
            r#"{"type": "solution", "output": {"json": {"x": 2, "_objective": 5}}, "time": 20}"#,
            r#"{"type": "status", "status": "OPTIMAL_SOLUTION", "time": 30}"#,
            "% not json",
        ] {
            out.line(l);
        }
        let p = out.parsed;
        assert_eq!(p.solutions.len(), 2);
        assert_eq!(p.solutions[0].checked, Some(Err("INCORRECT: no".into())));
        assert_eq!(p.solutions[1].checked, None);
        assert_eq!(p.solutions[1].objective, Some(5));
        assert_eq!(p.status_millis, Some(30));
        assert_eq!(p.malformed.as_deref(), Some("% not json"));
    }
}
