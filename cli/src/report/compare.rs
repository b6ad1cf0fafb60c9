//! `dancehall report compare A B`: two benchmark jobs side by side, one row per (instance,
//! configuration) run in both, with B's time over A's. A regression is a run that A finished
//! (proved optimal; a Sudoku slice: solved) and B did not, or that B finished more than
//! `threshold` times slower than A (runs faster than `min_seconds` in both are noise and never
//! regress). A run's time is its wall time; a Sudoku slice's is its solver's seconds over its
//! puzzles (the difficulty measure is not the solver's).
//!
//! Two runs are of the same configuration only when their definitions are equal
//! (`RunRecord::config_sha256`): configurations that share a name but differ (a flag, a model
//! file, a search) are never paired, and are listed apart (`Comparison::redefined`). Runs
//! stored before definitions were hashed pair by name.

use std::fmt::Write as _;

use cores::bench::{Family, RunRecord, Status};
use serde::Serialize;

use super::model::BenchReport;
use super::text::field;

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub a: u64,
    pub b: u64,
    pub threshold: f64,
    pub rows: Vec<Pair>,
    /// Configuration names whose definitions differ between A and B: not compared.
    pub redefined: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    pub instance: String,
    pub config: String,
    pub status_a: Status,
    pub status_b: Status,
    pub seconds_a: f64,
    pub seconds_b: f64,
    /// `seconds_b / seconds_a`.
    pub ratio: f64,
    pub regression: bool,
}

impl Comparison {
    pub fn regressions(&self) -> Vec<&Pair> {
        self.rows.iter().filter(|p| p.regression).collect()
    }
}

/// Compares the current runs of `a` and `b`.
pub fn compare(a: &BenchReport, b: &BenchReport, threshold: f64, min_seconds: f64) -> Comparison {
    let mut rows = Vec::new();
    let mut redefined = std::collections::BTreeSet::new();
    for ra in &a.runs {
        let (ia, ca) = (&ra.record.instance, &ra.record.config);
        let Some(rb) = b
            .runs
            .iter()
            .find(|r| &r.record.instance == ia && &r.record.config == ca)
        else {
            continue;
        };
        if let (Some(ha), Some(hb)) = (&ra.record.config_sha256, &rb.record.config_sha256) {
            if ha != hb {
                redefined.insert(ca.clone());
                continue;
            }
        }
        let (ta, tb) = (seconds(&ra.record), seconds(&rb.record));
        let ratio = tb.max(1e-6) / ta.max(1e-6);
        let proved = |s: Status| s.is_finished();
        let lost = proved(ra.record.status) && !proved(rb.record.status);
        let slower = proved(rb.record.status) && ratio > threshold && tb >= min_seconds;
        rows.push(Pair {
            instance: ia.clone(),
            config: ca.clone(),
            status_a: ra.record.status,
            status_b: rb.record.status,
            seconds_a: ta,
            seconds_b: tb,
            ratio,
            regression: lost || slower,
        });
    }
    Comparison {
        a: a.head.id,
        b: b.head.id,
        threshold,
        rows,
        redefined: redefined.into_iter().collect(),
    }
}

/// The time a run is compared by (see the module docs).
fn seconds(r: &RunRecord) -> f64 {
    match r.family() {
        Family::Domino | Family::MznSuite => r.wall_seconds,
        Family::Sudoku => r.puzzles().iter().map(|p| p.seconds).sum(),
    }
}

/// The first line: the regressions, or that there are none.
pub fn verdict(c: &Comparison) -> String {
    let r = c.regressions();
    if r.is_empty() {
        format!(
            "NO REGRESSION: job {} against job {} (threshold {}x)",
            c.b, c.a, c.threshold
        )
    } else {
        format!(
            "REGRESSIONS ({}): job {} against job {} (threshold {}x)",
            r.len(),
            c.b,
            c.a,
            c.threshold
        )
    }
}

pub fn table(c: &Comparison) -> String {
    let mut s = verdict(c);
    s.push('\n');
    for name in &c.redefined {
        let _ = writeln!(
            s,
            "not compared: configuration {name} has different definitions in the two jobs"
        );
    }
    let _ = writeln!(
        s,
        "{:<12} {:<19} {:<9} {:<9} {:>9} {:>9} {:>8}",
        "instance", "configuration", "status A", "status B", "A s", "B s", "B/A"
    );
    for p in &c.rows {
        let _ = writeln!(
            s,
            "{:<12} {:<19} {:<9} {:<9} {:>9.3} {:>9.3} {:>8.2}{}",
            p.instance,
            p.config,
            p.status_a,
            p.status_b,
            p.seconds_a,
            p.seconds_b,
            p.ratio,
            if p.regression { "  REGRESSION" } else { "" }
        );
    }
    s
}

pub fn csv(c: &Comparison) -> String {
    let mut s = format!("# {}\n", verdict(c));
    s.push_str("instance,config,status_a,status_b,seconds_a,seconds_b,ratio,regression\n");
    for p in &c.rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{:.3},{:.3},{:.3},{}",
            field(&p.instance),
            field(&p.config),
            p.status_a,
            p.status_b,
            p.seconds_a,
            p.seconds_b,
            p.ratio,
            p.regression
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use coordinator::job::BenchRecord;
    use coordinator::store::BenchRun;
    use cores::bench::{Answer, HostInfo};
    use cores::sudoku::bench::{PuzzleRun, PuzzleStatus};

    use super::super::model::{bench_report, Head};
    use super::*;

    /// A Sudoku job of one slice under `ps12`: its status, and each puzzle's solver seconds.
    fn sudoku_job(id: u64, status: Status, seconds: &[f64]) -> BenchReport {
        let mut r = RunRecord::blank_of(
            Family::Sudoku,
            "f.txt:1-2",
            "ps12",
            60.0,
            HostInfo::default(),
        );
        r.status = status;
        // The unit's wall time includes what is not the solver's (the difficulty measure).
        r.wall_seconds = 10.0;
        r.answer = Answer::Sudoku {
            puzzles: seconds
                .iter()
                .enumerate()
                .map(|(i, &s)| PuzzleRun {
                    status: if status == Status::Solved {
                        PuzzleStatus::Unique
                    } else {
                        PuzzleStatus::Timeout
                    },
                    seconds: s,
                    ..PuzzleRun::timeout(i + 1)
                })
                .collect(),
        };
        let run = BenchRun {
            unit: 1,
            job: id,
            batch: "f.txt".into(),
            run: BenchRecord {
                record: r,
                difficulty: None,
            },
            accepted_at: 0,
            current: true,
        };
        let head = Head {
            id,
            name: format!("j{id}"),
            state: coordinator::job::JobState::Done,
            wall_seconds: 10.0,
            alarms: vec![],
            deaths: Default::default(),
        };
        bench_report(head, Family::Sudoku, &[run], BTreeMap::new())
    }

    #[test]
    fn two_definitions_that_share_a_name_are_never_paired() {
        let mut a = sudoku_job(1, Status::Solved, &[0.1, 0.1]);
        let mut b = sudoku_job(2, Status::Timeout, &[0.0, 0.0]);
        a.runs[0].record.config_sha256 = Some("aa".into());
        b.runs[0].record.config_sha256 = Some("bb".into());
        let c = compare(&a, &b, 1.5, 0.01);
        assert!(c.rows.is_empty());
        assert_eq!(c.redefined, vec!["ps12".to_string()]);
        assert!(
            table(&c).contains("not compared: configuration ps12"),
            "{}",
            table(&c)
        );
        b.runs[0].record.config_sha256 = Some("aa".into());
        assert_eq!(compare(&a, &b, 1.5, 0.01).rows.len(), 1);
    }

    #[test]
    fn a_sudoku_slice_is_compared_by_its_solver_seconds_and_solved_counts_as_finished() {
        let a = sudoku_job(1, Status::Solved, &[0.1, 0.1]);
        // Same wall time, five times the solver's seconds: a regression.
        let slower = compare(&a, &sudoku_job(2, Status::Solved, &[0.5, 0.5]), 1.5, 0.01);
        assert_eq!(slower.rows.len(), 1);
        assert!(
            (slower.rows[0].ratio - 5.0).abs() < 1e-9,
            "{}",
            slower.rows[0].ratio
        );
        assert!(slower.rows[0].regression);
        let same = compare(&a, &sudoku_job(2, Status::Solved, &[0.1, 0.11]), 1.5, 0.01);
        assert!(!same.rows[0].regression);
        // Solved in A, not in B: lost.
        let lost = compare(&a, &sudoku_job(2, Status::Timeout, &[0.0, 0.0]), 1.5, 0.01);
        assert!(lost.rows[0].regression);
        assert!(verdict(&lost).starts_with("REGRESSIONS (1)"));
    }
}
