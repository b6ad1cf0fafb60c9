//! Sudoku by external programs, seed 000's own tools: `minisat` fed the DIMACS
//! text of `cores::sudoku::sat` (extended encoding), a GNU Prolog CLP(FD) program with
//! `fd_domain`, `fd_all_different` and `fd_labeling` with the most-constrained variable first
//! (seed 000 section 1.4), and MiniZinc models run by Gecode: the seed's, with MiniZinc's
//! `alldifferent`, and one per level of Gecode's own `all_different_int` (value, bounds,
//! domain consistency; seed 000 section 1.6), beside `cores::sudoku::alldiff`'s levels. Each
//! runs as a process on files in a temporary directory; a program that is not installed is
//! [`ExternalError::Unavailable`], never a wrong answer. Their grids go back through
//! the independent verifier like every other solver's (`cores::sudoku::answer` in `dancehall
//! solve sudoku`, the benchmark judge in a unit); MiniZinc's runs also bring back Gecode's
//! statistics (`minizinc --statistics`: nodes, failures, propagations, solve time).
//!
//! With the Debian packages (MiniZinc 2.6.4, Gecode 6.2.0) the seed's model does not reach
//! Gecode's alldifferent: MiniZinc's library defines `alldifferent` through
//! `fzn_all_different_int`, which Gecode's older library does not declare, so each group
//! becomes its 36 pairwise disequalities (`int_lin_ne`). The level models call
//! `all_different_int`, which Gecode's library declares, so the FlatZinc keeps one
//! `all_different_int` per group with its annotation (Gecode's `distinct` at `IPL_DEF`, that
//! is value propagation, `IPL_BND` or `IPL_DOM`).

use std::fmt::Write as _;
use std::io::ErrorKind;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cores::sudoku::{sat, Puzzle, SearchStats};

/// The external configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum External {
    Minisat,
    Gprolog,
    /// The seed's MiniZinc model (`alldifferent`, Gecode's default search).
    Minizinc,
    /// Gecode's `all_different_int` at one level, search first-fail then smallest value.
    MinizincLevel(Consistency),
}

/// A consistency level of Gecode's alldifferent (`distinct`), as a FlatZinc annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consistency {
    /// No annotation: Gecode's default for `distinct`, value propagation (an assigned
    /// value leaves the other domains).
    Value,
    /// `::bounds`: Gecode's bounds propagator (López-Ortiz et al.), which also propagates
    /// assigned values.
    Bounds,
    /// `::domain`: Gecode's domain propagator (Régin's matching).
    Domain,
}

impl Consistency {
    /// The annotation that asks for it.
    fn annotation(self) -> &'static str {
        match self {
            Consistency::Value => "",
            Consistency::Bounds => " :: bounds",
            Consistency::Domain => " :: domain",
        }
    }
}

impl External {
    pub fn name(self) -> &'static str {
        match self {
            External::Minisat => "minisat",
            External::Gprolog => "gprolog",
            External::Minizinc => "minizinc",
            External::MinizincLevel(Consistency::Value) => "minizinc-value",
            External::MinizincLevel(Consistency::Bounds) => "minizinc-bounds",
            External::MinizincLevel(Consistency::Domain) => "minizinc-domain",
        }
    }

    /// The program it starts.
    pub fn program(self) -> &'static str {
        match self {
            External::Minisat => "minisat",
            External::Gprolog => "gprolog",
            External::Minizinc | External::MinizincLevel(_) => "minizinc",
        }
    }
}

/// What an external solve gave: up to the grids asked for (unverified) and, for MiniZinc,
/// Gecode's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub grids: Vec<Vec<u8>>,
    pub stats: Option<SearchStats>,
}

impl Found {
    fn grids(grids: Vec<Vec<u8>>) -> Found {
        Found { grids, stats: None }
    }
}

/// Why an external solver gave no grids.
#[derive(Debug)]
pub enum ExternalError {
    /// The program (or its back end) is not installed here.
    Unavailable(String),
    /// It ran but failed, or said something we cannot read.
    Failed(String),
    /// It was stopped at its time limit.
    Timeout(String),
}

impl std::fmt::Display for ExternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExternalError::Unavailable(why) => write!(f, "unavailable: {why}"),
            ExternalError::Failed(why) => write!(f, "failed: {why}"),
            ExternalError::Timeout(why) => write!(f, "timeout: {why}"),
        }
    }
}

impl std::error::Error for ExternalError {}

/// A solver process running longer than this is killed (with its children) and reported as
/// failed (`dancehall solve sudoku`; a benchmark unit gives its own limit).
pub const TIME_LIMIT: Duration = Duration::from_secs(60);

/// Runs `program` in a process group of its own (MiniZinc starts its back end as a child),
/// collecting its output; past `limit` the whole group is killed. With `tmp`, the process's
/// `TMPDIR` is that folder (GNU Prolog leaves a compiled file in `/tmp` for every consult,
/// MiniZinc its FlatZinc; in the solve's own folder they go with it).
fn run_limited(
    program: &str,
    args: &[&str],
    limit: Duration,
    tmp: Option<&Path>,
) -> Result<Output, ExternalError> {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(program);
    if let Some(dir) = tmp {
        command.env("TMPDIR", dir);
    }
    let mut child = command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| {
            if e.kind() == ErrorKind::NotFound {
                ExternalError::Unavailable(format!("`{program}` is not installed (not on PATH)"))
            } else {
                ExternalError::Failed(format!("cannot run `{program}`: {e}"))
            }
        })?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            outcome => {
                // The child leads its group (pid = pgid).
                kill_group(child.id() as libc::pid_t);
                let _ = child.wait();
                let _ = (out.join(), err.join());
                return Err(match outcome {
                    Err(e) => failed(format!("waiting for `{program}`: {e}")),
                    _ => ExternalError::Timeout(format!(
                        "`{program}` ran longer than {limit:?}: stopped"
                    )),
                });
            }
        }
    };
    Ok(Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// SIGKILL to the process group `pgid`.
fn kill_group(pgid: libc::pid_t) {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

fn failed(what: impl Into<String>) -> ExternalError {
    ExternalError::Failed(what.into())
}

fn write(path: &Path, text: &str) -> Result<(), ExternalError> {
    std::fs::write(path, text).map_err(|e| failed(format!("{}: {e}", path.display())))
}

/// Up to `limit` grids of `puzzle` (unverified: the caller verifies them), each
/// process stopped after [`TIME_LIMIT`].
pub fn solutions(
    external: External,
    puzzle: &Puzzle,
    limit: usize,
) -> Result<Found, ExternalError> {
    solutions_within(external, puzzle, limit, Instant::now() + TIME_LIMIT)
}

/// [`solutions`], every process stopped at `deadline` (a benchmark unit's end).
pub fn solutions_within(
    external: External,
    puzzle: &Puzzle,
    limit: usize,
    deadline: Instant,
) -> Result<Found, ExternalError> {
    let dir = tempfile::tempdir().map_err(|e| failed(format!("temporary directory: {e}")))?;
    let run = Runner {
        deadline,
        tmp: dir.path().to_path_buf(),
    };
    match external {
        External::Minisat => minisat(&run, dir.path(), puzzle, limit).map(Found::grids),
        External::Gprolog => gprolog(&run, dir.path(), puzzle, limit).map(Found::grids),
        External::Minizinc => minizinc(&run, dir.path(), puzzle, None, limit),
        External::MinizincLevel(c) => minizinc(&run, dir.path(), puzzle, Some(c), limit),
    }
}

/// Runs the processes of one solve, each stopped at the common deadline, with the solve's
/// folder as their temporary folder.
struct Runner {
    deadline: Instant,
    tmp: std::path::PathBuf,
}

impl Runner {
    fn run(&self, program: &str, args: &[&str]) -> Result<Output, ExternalError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ExternalError::Timeout(format!(
                "no time left to start `{program}`"
            )));
        }
        run_limited(program, args, left, Some(&self.tmp))
    }
}

/// Solves, adds a clause blocking the grid found, solves again (one process each).
fn minisat(
    run: &Runner,
    dir: &Path,
    puzzle: &Puzzle,
    limit: usize,
) -> Result<Vec<Vec<u8>>, ExternalError> {
    let mut cnf = sat::encode(puzzle, sat::Encoding::Extended);
    let side = puzzle.side();
    let (input, output) = (dir.join("sudoku.cnf"), dir.join("model.txt"));
    let mut found = Vec::new();
    while found.len() < limit {
        write(&input, &cnf.to_dimacs())?;
        let o = run.run(
            "minisat",
            &[
                "-verb=0",
                &input.to_string_lossy(),
                &output.to_string_lossy(),
            ],
        )?;
        // MiniSat exits with 10 (satisfiable) or 20 (unsatisfiable).
        let text = std::fs::read_to_string(&output).unwrap_or_default();
        let mut lines = text.lines();
        match (o.status.code(), lines.next()) {
            (Some(20), _) | (_, Some("UNSAT")) => break,
            (Some(10), Some("SAT")) => {}
            (code, first) => {
                return Err(failed(format!(
                    "minisat exited with {code:?}, first line {first:?}: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                )))
            }
        }
        let mut model = vec![false; cnf.vars as usize + 1];
        for tok in lines.flat_map(str::split_whitespace) {
            let lit: i64 = tok
                .parse()
                .map_err(|_| failed(format!("minisat model: bad literal `{tok}`")))?;
            if lit > 0 && (lit as usize) < model.len() {
                model[lit as usize] = true;
            }
        }
        let grid = sat::decode(side, |v| model[v as usize]);
        cnf.clauses.push(sat::blocking_clause(side, &grid));
        found.push(grid);
    }
    Ok(found)
}

/// Reads grids printed as `[v1,v2,...]` (Prolog) or `[v1, v2, ...]` (MiniZinc), one a line.
fn grids(text: &str, cells: usize) -> Result<Vec<Vec<u8>>, ExternalError> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('['))
        .map(|l| {
            let grid: Vec<u8> = l
                .trim_matches(|c| c == '[' || c == ']')
                .split(',')
                .map(|t| t.trim().parse::<u8>())
                .collect::<Result<_, _>>()
                .map_err(|_| failed(format!("cannot read the grid `{l}`")))?;
            if grid.len() == cells {
                Ok(grid)
            } else {
                Err(failed(format!("{} cells in `{l}`", grid.len())))
            }
        })
        .collect()
}

/// The cells of each group as lists of variable names `X<cell>`.
fn group_lists(puzzle: &Puzzle, name: impl Fn(usize) -> String) -> Vec<String> {
    puzzle
        .geometry()
        .groups
        .iter()
        .map(|g| {
            let names: Vec<String> = g.cells.iter().map(|&c| name(c)).collect();
            format!("[{}]", names.join(","))
        })
        .collect()
}

/// The CLP(FD) program of seed 000 section 1.4, for any shape, printing up to `limit`
/// solutions.
pub fn prolog_program(puzzle: &Puzzle, limit: usize) -> String {
    let side = puzzle.side();
    let cell = |c: usize| match puzzle.givens()[c] {
        0 => format!("X{c}"),
        v => v.to_string(),
    };
    let all: Vec<String> = (0..side * side).map(cell).collect();
    let mut p = String::from(":- initialization(main).\n\nsudoku(L) :-\n");
    let _ = writeln!(p, "    L = [{}],", all.join(","));
    let _ = writeln!(p, "    fd_domain(L, 1, {side}),");
    for g in group_lists(puzzle, cell) {
        let _ = writeln!(p, "    fd_all_different({g}),");
    }
    p.push_str("    fd_labeling(L, [variable_method(most_constrained)]).\n\n");
    let _ = writeln!(
        p,
        "main :- g_assign(n, 0),\n    ( sudoku(L), write(L), nl, g_inc(n), g_read(n, N), \
         N >= {limit} -> true ; true ),\n    halt."
    );
    p
}

fn gprolog(
    run: &Runner,
    dir: &Path,
    puzzle: &Puzzle,
    limit: usize,
) -> Result<Vec<Vec<u8>>, ExternalError> {
    let file = dir.join("sudoku.pl");
    write(&file, &prolog_program(puzzle, limit))?;
    let o = run.run("gprolog", &["--consult-file", &file.to_string_lossy()])?;
    let text = String::from_utf8_lossy(&o.stdout);
    if !o.status.success() {
        return Err(failed(format!(
            "gprolog exited with {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    grids(&text, puzzle.side() * puzzle.side())
}

/// A MiniZinc model: one variable per cell, an alldifferent per group. Without a level, the
/// seed's: MiniZinc's `alldifferent` and the solver's default search. At a level: Gecode's
/// `all_different_int` with the level's annotation, and the search of
/// `cores::sudoku::alldiff` (a smallest domain first, the first such cell, smallest value
/// first; Gecode branches `x = v`, then `x != v`).
pub fn minizinc_model(puzzle: &Puzzle, level: Option<Consistency>) -> String {
    let side = puzzle.side();
    let n = side * side;
    let mut m = String::from(match level {
        None => "include \"alldifferent.mzn\";\n",
        Some(_) => "include \"all_different_int.mzn\";\n",
    });
    let _ = writeln!(m, "array[0..{}] of var 1..{side}: x;", n - 1);
    for (c, &v) in puzzle.givens().iter().enumerate() {
        if v > 0 {
            let _ = writeln!(m, "constraint x[{c}] = {v};");
        }
    }
    for g in group_lists(puzzle, |c| format!("x[{c}]")) {
        let _ = match level {
            None => writeln!(m, "constraint alldifferent({g});"),
            Some(l) => writeln!(m, "constraint all_different_int({g}){};", l.annotation()),
        };
    }
    m.push_str(match level {
        None => "solve satisfy;\n",
        Some(_) => "solve :: int_search(x, first_fail, indomain_min) satisfy;\n",
    });
    m.push_str("output [show(x), \"\\n\"];\n");
    m
}

/// Gecode's statistics among MiniZinc's `%%%mzn-stat: key=value` lines (the last value of
/// each key); `None` without `nodes`.
fn gecode_stats(out: &str) -> Option<SearchStats> {
    let stat = |key: &str| {
        out.lines()
            .rev()
            .filter_map(|l| l.trim().strip_prefix("%%%mzn-stat: "))
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.trim())
    };
    let count = |key: &str| stat(key).and_then(|v| v.parse::<u64>().ok());
    Some(SearchStats {
        nodes: count("nodes")?,
        failures: count("failures")?,
        propagations: count("propagations")?,
        removed: None,
        solve_seconds: stat("solveTime").and_then(|v| v.parse().ok()),
    })
}

fn minizinc(
    run: &Runner,
    dir: &Path,
    puzzle: &Puzzle,
    level: Option<Consistency>,
    limit: usize,
) -> Result<Found, ExternalError> {
    let file = dir.join("sudoku.mzn");
    write(&file, &minizinc_model(puzzle, level))?;
    let o = run.run(
        "minizinc",
        &[
            "--solver",
            "gecode",
            "--statistics",
            "--num-solutions",
            &limit.to_string(),
            &file.to_string_lossy(),
        ],
    )?;
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    if !o.status.success() {
        if err.contains("not found") || err.contains("no solver") {
            return Err(ExternalError::Unavailable(format!(
                "minizinc has no Gecode: {}",
                err.trim()
            )));
        }
        return Err(failed(format!(
            "minizinc exited with {}: {}",
            o.status,
            err.trim()
        )));
    }
    let stats = gecode_stats(&out);
    if out.contains("=====UNSATISFIABLE=====") {
        return Ok(Found {
            grids: Vec::new(),
            stats,
        });
    }
    Ok(Found {
        grids: grids(&out, puzzle.side() * puzzle.side())?,
        stats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solver_past_its_time_limit_is_stopped_with_its_children() {
        let started = Instant::now();
        // A shell whose child outlives it unless the group is killed (it holds the pipes).
        let got = run_limited(
            "sh",
            &["-c", "sleep 30 & sleep 30"],
            Duration::from_millis(200),
            None,
        );
        assert!(
            matches!(&got, Err(ExternalError::Timeout(why)) if why.contains("longer than")),
            "{got:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        let ok = run_limited("sh", &["-c", "echo grid"], Duration::from_secs(10), None).unwrap();
        assert_eq!(ok.stdout, b"grid\n");
        let dir = tempfile::tempdir().unwrap();
        let tmp = run_limited(
            "sh",
            &["-c", "echo $TMPDIR"],
            Duration::from_secs(10),
            Some(dir.path()),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&tmp.stdout).trim(),
            dir.path().to_string_lossy()
        );
        assert!(matches!(
            run_limited("no-such-solver-here", &[], Duration::from_secs(1), None),
            Err(ExternalError::Unavailable(_))
        ));
    }

    /// What `minizinc --statistics` printed for a 4-cell model with Gecode 6.2.0 (the
    /// FlatZinc block, two solutions, Gecode's block, MiniZinc's count).
    const STATISTICS: &str = "\
% Generated FlatZinc statistics:
%%%mzn-stat: paths=0
%%%mzn-stat: flatIntVars=3
%%%mzn-stat: method=\"satisfy\"
%%%mzn-stat: flatTime=0.0931448
%%%mzn-stat-end
[1, 4, 3, 2]
----------
[1, 3, 4, 2]
----------
%%%mzn-stat: initTime=0.000409
%%%mzn-stat: solveTime=0.000377
%%%mzn-stat: solutions=2
%%%mzn-stat: variables=4
%%%mzn-stat: propagators=3
%%%mzn-stat: propagations=6
%%%mzn-stat: nodes=4
%%%mzn-stat: failures=0
%%%mzn-stat: restarts=0
%%%mzn-stat: peakDepth=2
%%%mzn-stat-end
%%%mzn-stat: nSolutions=2
%%%mzn-stat-end
";

    #[test]
    fn gecode_statistics_are_read_from_minizinc_output() {
        assert_eq!(
            gecode_stats(STATISTICS),
            Some(SearchStats {
                nodes: 4,
                failures: 0,
                propagations: 6,
                removed: None,
                solve_seconds: Some(0.000377),
            })
        );
        assert_eq!(grids(STATISTICS, 4).unwrap().len(), 2);
        // Without Gecode's block (no `nodes`): no statistics, not zeros.
        let flat_only = STATISTICS.split("[1, 4").next().unwrap();
        assert_eq!(gecode_stats(flat_only), None);
    }

    #[test]
    fn the_level_models_call_gecodes_alldifferent_with_their_annotation() {
        let p = cores::sudoku::PuzzleReader::new(None)
            .unwrap()
            .parse_line(1, "1...........4..3")
            .unwrap();
        let seed = minizinc_model(&p, None);
        assert!(seed.contains("constraint alldifferent([x[0],x[1],x[2],x[3]]);"));
        assert!(seed.contains("solve satisfy;"));
        for (level, annotation) in [
            (Consistency::Value, ");"),
            (Consistency::Bounds, ") :: bounds;"),
            (Consistency::Domain, ") :: domain;"),
        ] {
            let m = minizinc_model(&p, Some(level));
            let first = format!("constraint all_different_int([x[0],x[1],x[2],x[3]]{annotation}");
            assert!(m.contains(&first), "{level:?}:\n{m}");
            assert_eq!(m.matches("all_different_int(").count(), 12, "{level:?}");
            assert!(m.contains("constraint x[12] = 4;"));
            assert!(m.contains("solve :: int_search(x, first_fail, indomain_min) satisfy;"));
        }
    }
}
