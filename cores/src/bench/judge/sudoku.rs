//! What Sudoku runs claim, judged: [`fault`] checks one record against its slice (and marks
//! the puzzles whose grids fail), [`cross_check`] the records of one slice against each other.
//! `super::judge` calls them for Sudoku instances; the grids are checked by the family's
//! verifier, `crate::problems::sudoku::verify`.
//!
//! Invariants:
//! - a run answers the slice's puzzles in order, one result per puzzle, on the slice's lines;
//! - a puzzle claimed `unique` or `solved` carries a grid, and one claimed `multiple` two
//!   distinct grids, that `crate::problems::sudoku::verify::check_grid` accepts with the
//!   puzzle's givens (that checker shares no code with any solver); a claim of `none` or of
//!   uniqueness is refuted only by verified grids of another run ([`cross_check`]);
//! - a record claiming `solved` has every puzzle answered.

use std::collections::{BTreeMap, BTreeSet};

use crate::bench::conflict::Conflict;
use crate::bench::record::{Answer, RunRecord, Status};
use crate::problems::sudoku::verify::check_grid;
use crate::sudoku::bench::{PuzzleRun, PuzzleStatus, Slice};

/// Why the grids of `run` do not hold for the puzzle `text` (`None`: they hold or there are
/// none to check).
fn puzzle_fault(slice: &Slice, text: &str, run: &PuzzleRun) -> Option<String> {
    let check = |grid: &Option<String>| -> Option<String> {
        let grid = grid.as_deref()?;
        check_grid(
            grid,
            slice.box_rows,
            slice.box_cols,
            &slice.variants,
            &[],
            Some(text.trim()),
        )
        .err()
    };
    match run.status {
        PuzzleStatus::Unique | PuzzleStatus::Solved => {
            if run.solution.is_none() {
                return Some(format!("{} without a grid", run.status));
            }
            check(&run.solution).map(|e| format!("the verifier rejects the grid: {e}"))
        }
        PuzzleStatus::Multiple => {
            if run.solution.is_none() || run.other.is_none() {
                return Some("multiple without two grids".into());
            }
            if run.solution == run.other {
                return Some("multiple with the same grid twice".into());
            }
            check(&run.solution)
                .or_else(|| check(&run.other))
                .map(|e| format!("the verifier rejects a grid: {e}"))
        }
        _ => None,
    }
}

/// Why `record`'s claims do not hold on `slice` (`None`: they hold). In the same pass, every
/// puzzle whose grids the verifier rejects is marked `wrong`, the reason in its message (all
/// of them, as evidence; the first fault found is the record's).
pub fn fault(slice: &Slice, record: &mut RunRecord) -> Option<String> {
    let status = record.status;
    if matches!(
        status,
        Status::Optimal | Status::Feasible | Status::Unsatisfiable
    ) {
        return Some(format!(
            "status {status} for a Sudoku slice (solved, or timeout)"
        ));
    }
    let Answer::Sudoku { puzzles } = &mut record.answer else {
        return Some("not a Sudoku answer".into());
    };
    if !status.is_solved() && puzzles.is_empty() {
        return None;
    }
    let mut first: Option<String> = None;
    let mut note = |why: String| {
        first.get_or_insert(why);
    };
    if puzzles.len() != slice.puzzles.len() {
        note(format!(
            "{} puzzle results for a slice of {} puzzles",
            puzzles.len(),
            slice.puzzles.len()
        ));
    }
    for (run, p) in puzzles.iter_mut().zip(&slice.puzzles) {
        if run.line != p.line {
            note(format!(
                "a result for line {} where the slice has line {}",
                run.line, p.line
            ));
            continue;
        }
        if let Some(why) = puzzle_fault(slice, &p.text, run) {
            run.status = PuzzleStatus::Wrong;
            run.message = Some(why);
        }
        if run.status == PuzzleStatus::Wrong {
            let why = run.message.as_deref().unwrap_or("marked wrong");
            note(format!("{}:{}: {why}", slice.file, p.line));
        } else if slice.unique && run.status == PuzzleStatus::Solved {
            note(format!(
                "{}:{}: solved without the uniqueness check the slice asks for",
                slice.file, p.line
            ));
        } else if status == Status::Solved && !run.status.is_answer() {
            note(format!(
                "status solved, but line {} is {}",
                p.line, run.status
            ));
        }
    }
    first
}

/// Cross-checks the runs of one slice puzzle by puzzle: a verified grid refutes another run's
/// `none`, and two distinct verified grids refute a `unique`. `wrong` records and puzzles are
/// no evidence. One [`Conflict`] per refuted record, naming its first refuted line.
pub fn cross_check<'r>(records: impl IntoIterator<Item = &'r RunRecord>) -> Vec<Conflict> {
    let records: Vec<&RunRecord> = records
        .into_iter()
        .filter(|r| r.status != Status::Wrong)
        .collect();
    let mut grids: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    for r in &records {
        for p in r.puzzles() {
            if matches!(
                p.status,
                PuzzleStatus::Unique | PuzzleStatus::Solved | PuzzleStatus::Multiple
            ) {
                let e = grids.entry(p.line).or_default();
                e.extend(p.solution.as_deref());
                e.extend(p.other.as_deref());
            }
        }
    }
    let mut conflicts = Vec::new();
    for r in &records {
        let refuted: Vec<(usize, String)> = r
            .puzzles()
            .iter()
            .filter_map(|p| {
                let known = grids.get(&p.line).map_or(0, BTreeSet::len);
                match p.status {
                    PuzzleStatus::NoSolution if known >= 1 => Some((
                        p.line,
                        "says no solution, but another run's grid is verified".to_string(),
                    )),
                    PuzzleStatus::Unique if known >= 2 => Some((
                        p.line,
                        format!("says unique, but {known} different grids are verified"),
                    )),
                    _ => None,
                }
            })
            .collect();
        if let Some((line, why)) = refuted.first() {
            conflicts.push(Conflict {
                instance: r.instance.clone(),
                config: r.config.clone(),
                reason: format!(
                    "line {line} {why}{}",
                    match refuted.len() {
                        1 => String::new(),
                        n => format!(" ({} more lines refuted)", n - 1),
                    }
                ),
            });
        }
    }
    conflicts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{judge, HostInfo, Instance};
    use crate::sudoku::bench::fixtures::*;

    fn record(config: &str, status: Status, puzzles: Vec<PuzzleRun>) -> RunRecord {
        let mut r = RunRecord::blank_of(
            crate::bench::Family::Sudoku,
            "t.txt:3-3",
            config,
            10.0,
            HostInfo::default(),
        );
        r.status = status;
        r.answer = Answer::Sudoku { puzzles };
        r
    }

    #[test]
    fn verified_grids_stand_and_a_wrong_grid_makes_the_puzzle_and_the_run_wrong() {
        let inst = Instance::Sudoku(slice(&[EXAMPLE_1]));
        let mut ok = record(
            "a",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(SOLUTION))],
        );
        assert_eq!(judge(&inst, &mut ok, "w"), None);
        assert_eq!(ok.status, Status::Solved);

        let mut swapped = SOLUTION.as_bytes().to_vec();
        swapped.swap(0, 1);
        let swapped = String::from_utf8(swapped).unwrap();
        let mut bad = record(
            "b",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(&swapped))],
        );
        let why = judge(&inst, &mut bad, "w").unwrap();
        assert!(why.starts_with("w: t.txt:3: the verifier rejects"), "{why}");
        assert_eq!(bad.status, Status::Wrong);
        assert_eq!(bad.puzzles()[0].status, PuzzleStatus::Wrong);
    }

    #[test]
    fn malformed_claims_are_wrong() {
        let inst = Instance::Sudoku(slice(&[EXAMPLE_1]));
        let cases = [
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Unique, None)],
                "without a grid",
            ),
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Multiple, Some(SOLUTION))],
                "two grids",
            ),
            (Status::Solved, vec![], "0 puzzle results"),
            (
                Status::Solved,
                vec![run(4, PuzzleStatus::NoSolution, None)],
                "line 4",
            ),
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Timeout, None)],
                "is timeout",
            ),
            (
                Status::Solved,
                vec![run(3, PuzzleStatus::Solved, Some(SOLUTION))],
                "uniqueness",
            ),
            (
                Status::Optimal,
                vec![run(3, PuzzleStatus::Unique, Some(SOLUTION))],
                "status optimal",
            ),
        ];
        for (status, puzzles, says) in cases {
            let mut r = record("c", status, puzzles);
            let why = judge(&inst, &mut r, "w").unwrap_or_else(|| panic!("{says}"));
            assert!(why.contains(says), "{why} (expected {says})");
            assert_eq!(r.status, Status::Wrong);
        }
        let mut domino = RunRecord::blank("t.txt:3-3", "d", 1.0, HostInfo::default());
        domino.status = Status::Timeout;
        let why = judge(&inst, &mut domino, "w").unwrap();
        assert!(
            why.contains("a domino answer for a sudoku instance"),
            "{why}"
        );
        let mut timeout = record(
            "t",
            Status::Timeout,
            vec![run(3, PuzzleStatus::Timeout, None)],
        );
        assert_eq!(judge(&inst, &mut timeout, "w"), None);
    }

    #[test]
    fn a_verified_grid_refutes_none_and_two_grids_refute_unique() {
        // The empty puzzle: every grid solves it.
        let open = ".".repeat(81);
        let a = SOLUTION.to_string();
        // Swapping digits 1 and 2 everywhere gives another valid grid of the empty puzzle.
        let b: String = SOLUTION
            .chars()
            .map(|c| match c {
                '1' => '2',
                '2' => '1',
                c => c,
            })
            .collect();
        let s = slice(&[&open]);
        let inst = Instance::Sudoku(s);
        let mut m = record(
            "m",
            Status::Solved,
            vec![run(3, PuzzleStatus::Multiple, Some(&a))],
        );
        if let Answer::Sudoku { puzzles } = &mut m.answer {
            puzzles[0].other = Some(b.clone());
        }
        assert_eq!(judge(&inst, &mut m, "w"), None);
        let u = record(
            "u",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(&a))],
        );
        let n = record(
            "n",
            Status::Solved,
            vec![run(3, PuzzleStatus::NoSolution, None)],
        );
        let c = cross_check([&m, &u, &n]);
        let refuted: Vec<&str> = c.iter().map(|c| c.config.as_str()).collect();
        assert_eq!(refuted, ["u", "n"], "{c:?}");
        assert!(
            c[0].reason.contains("line 3 says unique, but 2"),
            "{}",
            c[0]
        );
        // Agreeing runs have no conflict.
        let u2 = record(
            "u2",
            Status::Solved,
            vec![run(3, PuzzleStatus::Unique, Some(&a))],
        );
        assert_eq!(cross_check([&u, &u2]), vec![]);
    }
}
