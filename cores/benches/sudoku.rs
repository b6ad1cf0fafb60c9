//! Puzzles per second with the uniqueness check (count up to two), per solver, on the
//! shared Sudoku collections (bench-specs/sudoku/collections, copies of
//! ../shared/data/sudoku; see their README), beside the `sudoku`
//! crate (crates.io, a port of JCZSolve) and, when `TDOKU_BENCH` names a tdoku timing
//! program built locally from tdoku's public source (never committed), beside tdoku, all
//! in the same run.
//!
//! Usage: `cargo bench -p cores --bench sudoku -- [--seconds S] [--first N] [--quick |
//! --alldiff] [FILE...]` (`--first N`: only the first N puzzles of each file; `--quick`: only
//! the band kernel, the `sudoku` crate and tdoku; `--alldiff`: those and the three levels of
//! `cores::sudoku::alldiff`, seed 000 sections 1.5-1.6, whose search statistics over the
//! puzzles they did are printed in every mode: nodes, failures and filter runs (propagations)
//! per puzzle, values removed per propagation, microseconds per propagation). Each
//! configuration runs over the file's puzzles in order until all are done or S seconds
//! (default 3) have passed, and reports the rate over the puzzles it did (a set done in
//! less than half of S is run again until half of S has passed: the mean pass). Timing covers the
//! solving only: the answers of our solvers are then checked by the verifier (a grid that
//! fails it aborts the benchmark) and every status must agree with the file's README.
//! `TDOKU_BENCH=/path/prog` is run as `prog FILE` (tdoku's `run_benchmark` or a wrapper of
//! it) on a temporary copy of each file with `.` for an empty cell (tdoku reads no other
//! empty cell; the 17-clue file has `0`), on every file before anything else, and the
//! `puzzles/sec` column of its table is quoted. A peer that fails (it cannot be run, exits
//! non-zero, e.g. tdoku's "Error during warmup", or prints no such table) stops the
//! benchmark before it starts: the message says which file and what the peer printed, and
//! the exit status is 1.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cores::sudoku::{
    answer, bands, solutions_with_stats, Level, Puzzle, PuzzleReader, SearchStats, Solver, Status,
};

/// The puzzles of `file`, one a line, read by our reader.
fn read_puzzles(file: &Path) -> Vec<Puzzle> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    PuzzleReader::new(None)
        .unwrap()
        .parse_all(&text)
        .map(|p| p.unwrap_or_else(|e| panic!("{}: {e}", file.display())))
        .collect()
}

/// One row of the peer's table: the solver it names and its puzzles per second.
struct PeerFigure {
    solver: String,
    per_second: f64,
}

/// Runs the tdoku program `prog` on the puzzles of `file`, written to a temporary copy
/// with `.` for an empty cell, and reads its figures; an error says what went wrong and
/// what the program printed.
fn run_tdoku(prog: &std::ffi::OsStr, file: &Path) -> Result<Vec<PeerFigure>, String> {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let copy = std::env::temp_dir().join(format!("dancehall-tdoku-{}-{name}", std::process::id()));
    let mut lines: String = read_puzzles(file)
        .iter()
        .map(Puzzle::text)
        .collect::<Vec<_>>()
        .join("\n");
    lines.push('\n');
    std::fs::write(&copy, lines).map_err(|e| format!("writing {}: {e}", copy.display()))?;
    let run = Command::new(prog).arg(&copy).output();
    // The copy is ours to remove whatever the program did.
    let removed = std::fs::remove_file(&copy);
    let o = run.map_err(|e| format!("cannot run {}: {e}", Path::new(prog).display()))?;
    removed.map_err(|e| format!("removing {}: {e}", copy.display()))?;
    let printed = || {
        format!(
            "stdout:\n{}stderr:\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    if !o.status.success() {
        return Err(format!(
            "{} on its copy {} (now removed)\n{}",
            o.status,
            copy.display(),
            printed()
        ));
    }
    let figures = tdoku_figures(&String::from_utf8_lossy(&o.stdout));
    if figures.is_empty() {
        return Err(format!(
            "no line of a `puzzles/sec` table with a figure\n{}",
            printed()
        ));
    }
    Ok(figures)
}

/// The rows of tdoku's `run_benchmark` table (markdown: a header with `puzzles/sec` in its
/// second column, a rule, then `|solver |puzzles/sec |usec/puzzle |...`), figures written
/// with or without thousands separators; none if there is no such table.
fn tdoku_figures(stdout: &str) -> Vec<PeerFigure> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut lines = stdout.lines().skip_while(|l| {
        !(l.trim_start().starts_with('|') && cells(l).get(1).is_some_and(|c| c == "puzzles/sec"))
    });
    // The header, then the rule under it.
    if lines.next().is_none() || lines.next().is_none() {
        return Vec::new();
    }
    let mut figures = Vec::new();
    for line in lines.take_while(|l| l.trim_start().starts_with('|')) {
        let row = cells(line);
        let figure = row.get(1).map(|f| f.replace([',', '\'', ' '], ""));
        match figure.and_then(|f| f.parse::<f64>().ok()) {
            Some(per_second) if per_second > 0.0 => figures.push(PeerFigure {
                solver: row[0].clone(),
                per_second,
            }),
            _ => return Vec::new(),
        }
    }
    figures
}

fn default_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs/sudoku/collections");
    [
        "royle_17clue_49151.txt",
        "magictour_top1465.txt",
        "forum_hardest_1106_375.txt",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect()
}

struct Row {
    config: String,
    done: usize,
    secs: f64,
    unique: usize,
    /// The sums of the search statistics, for a solver that keeps them.
    stats: Option<SearchStats>,
}

/// Adds `s` to the sums `total` (a field either has kept it throughout or is `None`).
fn add(total: &mut Option<SearchStats>, s: &SearchStats) {
    let t = total.get_or_insert(SearchStats {
        removed: Some(0),
        ..SearchStats::default()
    });
    t.nodes += s.nodes;
    t.failures += s.failures;
    t.propagations += s.propagations;
    t.removed = t.removed.zip(s.removed).map(|(a, b)| a + b);
}

/// Runs `solve` on puzzles in order until all are done or the budget is spent; a set done
/// within half the budget is run again, pass after pass, until half the budget has passed,
/// and the figure is the mean time of the complete passes after the first (a warm-up): an
/// average over about a second and a half, as tdoku's timing program averages over its 3 s
/// (a best-of-three of passes of 30 ms swung by a third between runs on the shared VM).
fn timed<T>(
    puzzles: &[Puzzle],
    budget: Duration,
    mut solve: impl FnMut(&Puzzle) -> T,
) -> (Vec<T>, f64) {
    let start = Instant::now();
    let mut first: Option<Vec<T>> = None;
    let (mut passes, mut total) = (0u32, 0.0);
    loop {
        let pass = Instant::now();
        let mut out = Vec::with_capacity(puzzles.len());
        for chunk in puzzles.chunks(64) {
            for p in chunk {
                out.push(solve(p));
            }
            if start.elapsed() >= budget {
                break;
            }
        }
        let secs = pass.elapsed().as_secs_f64();
        let complete = out.len() == puzzles.len();
        if !complete {
            // The budget ran out within the first pass: its partial figure is the one.
            return (out, secs);
        }
        if first.is_none() {
            first = Some(out);
            // The first pass warms up (caches, the CPU's clock); it counts only if alone.
            if start.elapsed() >= budget / 2 {
                return (first.expect("just set"), secs);
            }
            continue;
        }
        passes += 1;
        total += secs;
        if start.elapsed() >= budget / 2 {
            break;
        }
    }
    (first.expect("at least one pass"), total / f64::from(passes))
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let mut seconds = 3.0;
    let mut quick = false;
    let mut alldiff_only = false;
    let mut first = usize::MAX;
    let mut files = Vec::new();
    while let Some(a) = args.next() {
        if a == "--quick" {
            quick = true;
        } else if a == "--alldiff" {
            alldiff_only = true;
        } else if a == "--first" {
            first = args.next().and_then(|s| s.parse().ok()).expect("--first N");
        } else if a == "--seconds" {
            seconds = args
                .next()
                .and_then(|s| s.parse().ok())
                .expect("--seconds S");
        } else {
            files.push(PathBuf::from(a));
        }
    }
    if files.is_empty() {
        files = default_files();
    }
    let budget = Duration::from_secs_f64(seconds);
    // The peer on every file first: a peer that fails stops the benchmark before it starts.
    let mut tdoku: Vec<Vec<PeerFigure>> = Vec::new();
    if let Some(prog) = std::env::var_os("TDOKU_BENCH") {
        for file in &files {
            match run_tdoku(&prog, file) {
                Ok(figures) => tdoku.push(figures),
                Err(e) => {
                    eprintln!(
                        "error: the tdoku peer (TDOKU_BENCH={}) failed on {}: {e}",
                        Path::new(&prog).display(),
                        file.display()
                    );
                    std::process::exit(1);
                }
            }
        }
    }
    println!(
        "{:<36}{:<15}{:>8}{:>10}{:>13}{:>8}",
        "file", "config", "puzzles", "seconds", "puzzles/s", "unique"
    );
    for (i, file) in files.iter().enumerate() {
        let mut puzzles = read_puzzles(file);
        puzzles.truncate(first);
        // serg_benchmark: every puzzle has 2+ solutions (README); the others are unique.
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let want = if name.starts_with("serg") {
            Status::Multiple
        } else {
            Status::Unique
        };
        let mut rows = Vec::new();

        // Our fastest path without allocation: the band kernel's counter.
        let (counts, secs) = timed(&puzzles, budget, |p| {
            bands::count(p.givens().try_into().expect("9x9"), 2)
        });
        for (p, c) in puzzles.iter().zip(&counts) {
            let found = if c.solutions > 0 {
                vec![c.first.to_vec()]
            } else {
                vec![]
            };
            // The second grid is not kept by `count`: check the first, and the number.
            let a = answer(p, "ps12 band kernel", found, true).unwrap_or_else(|e| panic!("{e}"));
            let status = if c.solutions >= 2 {
                Status::Multiple
            } else {
                a.status
            };
            assert_eq!(status, want, "ps12 on {}", p.text());
        }
        let guesses: u64 = counts.iter().map(|c| c.guesses).sum();
        println!(
            "{name:<36}ps12 (bands): {:.2} guesses per puzzle",
            guesses as f64 / counts.len().max(1) as f64
        );
        rows.push(Row {
            config: "ps12 (bands)".into(),
            done: counts.len(),
            secs,
            unique: counts.iter().filter(|c| c.solutions == 1).count(),
            stats: None,
        });

        let levels = Level::ALL.map(Solver::Alldiff);
        let slow: &[Solver] = if quick {
            &[]
        } else if alldiff_only {
            &levels
        } else {
            &[
                Solver::Ps12Generic,
                Solver::Dlx,
                levels[0],
                levels[1],
                levels[2],
                Solver::Sat,
                Solver::SatNaive,
            ]
        };
        for &solver in slow {
            let (found, secs) = timed(&puzzles, budget, |p| solutions_with_stats(p, solver, 2));
            let done = found.len();
            let mut unique = 0;
            let mut stats = None;
            for (p, f) in puzzles.iter().zip(found) {
                let (f, s) = f.unwrap_or_else(|e| panic!("{solver}: {e}"));
                let a = answer(p, solver.name(), f, true).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(a.status, want, "{solver} on {}", p.text());
                unique += usize::from(a.status == Status::Unique);
                if let Some(s) = s {
                    add(&mut stats, &s);
                }
            }
            rows.push(Row {
                config: solver.name().into(),
                done,
                secs,
                unique,
                stats,
            });
        }

        let (verdicts, secs) = timed(&puzzles, budget, |p| {
            sudoku::Sudoku::from_bytes_slice(p.givens())
                .map(|s| s.is_uniquely_solvable())
                .unwrap_or(false)
        });
        rows.push(Row {
            config: "sudoku crate".into(),
            done: verdicts.len(),
            secs,
            unique: verdicts.iter().filter(|&&u| u).count(),
            stats: None,
        });

        for r in &rows {
            println!(
                "{name:<36}{:<15}{:>8}{:>10.3}{:>13.0}{:>8}",
                r.config,
                r.done,
                r.secs,
                r.done as f64 / r.secs,
                r.unique
            );
        }
        for r in &rows {
            let Some(s) = r.stats else { continue };
            let per_puzzle = |n: u64| n as f64 / r.done.max(1) as f64;
            let removed = s.removed.map_or("-".into(), |n| {
                format!("{:.2}", n as f64 / s.propagations.max(1) as f64)
            });
            // The statistics are of the first pass, the seconds of the mean pass: the same
            // puzzles and the same search every pass.
            let micros = r.secs * 1e6 / s.propagations.max(1) as f64;
            println!(
                "{name:<36}{:<15}{:>12.1} nodes/puzzle{:>12.1} failures/puzzle{:>12.1} \
                 propagations/puzzle{:>8} removed/propagation{:>8.2} us/propagation",
                r.config,
                per_puzzle(s.nodes),
                per_puzzle(s.failures),
                per_puzzle(s.propagations),
                removed,
                micros,
            );
        }
        for f in tdoku.get(i).into_iter().flatten() {
            println!(
                "{name:<36}{:<15}{:>8}{:>10}{:>13.0}{:>8}   ({})",
                "tdoku", "-", "-", f.per_second, "-", f.solver
            );
        }
    }
}
