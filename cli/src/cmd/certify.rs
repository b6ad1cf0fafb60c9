//! `dancehall domino certify`: a bound of the native optimiser checked outside it. Native
//! proves "`k` tiles do not fit" with CaDiCaL in process, whose refutations leave no proof.
//! Here the same formula (`cores::domino::FitCnf`, DIMACS) goes to another solver binary,
//! Debian's `cadical`, which refutes it and writes a DRAT proof, and the proof goes to an
//! independent checker, `rate` (crates.io), which replays it: only its `s VERIFIED` makes the
//! bound certified. Should the solver find a model instead, it is decoded to a placement and
//! judged by `cores::domino::verify`: `k` tiles then fit, and the claim is wrong. Both tools
//! are installed by `scripts/install-solvers.sh`.
//!
//! Exit: 0 certified; 1 not certified (the tiles fit, the proof is rejected, or the solver
//! stopped at its time limit), said first on stderr; 2 bad input or a missing tool.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use cores::domino::{self, FitCnf};

use crate::exit::user_error;

/// The solver that writes the proof, and the checker that replays it.
const SOLVER: &str = "cadical";
const CHECKER: &str = "rate";

#[derive(clap::Args, Debug)]
pub struct CertifyArgs {
    /// A batch file: one JSON instance per line.
    pub file: PathBuf,
    /// The instance (needed when the file holds more than one).
    #[arg(long)]
    pub id: Option<String>,
    /// The claim to certify: this many tiles do not fit (so the optimum is at most one
    /// fewer).
    #[arg(long, value_name = "K")]
    pub tiles: u32,
    /// Give the solver at most this many seconds (default: no limit).
    #[arg(long, value_name = "S")]
    pub time_limit: Option<u32>,
    /// Check this DRAT proof of the formula instead of running the solver.
    #[arg(long, value_name = "FILE")]
    pub proof: Option<PathBuf>,
    /// Keep the formula (K.cnf) and the proof (K.drat) in DIR (default: a temporary folder,
    /// removed at the end).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
}

pub fn certify(a: CertifyArgs) -> anyhow::Result<()> {
    let inst = super::domino::one_instance(&a.file, a.id.as_deref())?;
    let cnf = FitCnf::new(&inst, a.tiles)
        .map_err(|e| user_error(format!("{}: {}: {e}", a.file.display(), inst.id)))?;
    for tool in [SOLVER, CHECKER] {
        if a.proof.is_some() && tool == SOLVER {
            continue;
        }
        if worker::bench::config::which(tool).is_none() {
            return Err(user_error(format!(
                "`{tool}` is not on PATH: scripts/install-solvers.sh installs it"
            )));
        }
    }
    let temp = tempfile::tempdir().context("a temporary folder")?;
    let dir = match &a.keep {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
            d.clone()
        }
        None => temp.path().to_path_buf(),
    };
    let formula = dir.join(format!("{}.cnf", a.tiles));
    std::fs::write(&formula, cnf.dimacs())
        .with_context(|| format!("writing {}", formula.display()))?;
    let what = format!(
        "{} tiles on {} ({} x {}, {} tiles)",
        a.tiles,
        inst.id,
        inst.n,
        inst.n,
        inst.tiles.len()
    );
    let (proof, solved) = match &a.proof {
        Some(p) => (p.clone(), String::from("the proof given")),
        None => {
            let proof = dir.join(format!("{}.drat", a.tiles));
            let secs = refute(&a, &cnf, &inst, &formula, &proof, &what)?;
            (proof, format!("{SOLVER} refuted it in {secs:.1} s"))
        }
    };
    let bytes = std::fs::metadata(&proof)
        .with_context(|| format!("reading {}", proof.display()))?
        .len();
    let start = Instant::now();
    let out = Command::new(CHECKER)
        .arg(&formula)
        .arg(&proof)
        .output()
        .with_context(|| format!("running {CHECKER}"))?;
    let checked = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !stdout.lines().any(|l| l.trim() == "s VERIFIED") {
        let verdict = stdout
            .lines()
            .find(|l| l.starts_with("s "))
            .unwrap_or("no verdict");
        anyhow::bail!(
            "PROOF REJECTED: {CHECKER} did not verify {} as a refutation of {what} ({verdict}; \
             {}); the bound is not certified",
            proof.display(),
            out.status
        );
    }
    println!(
        "CERTIFIED: {what} do not fit, so its optimum is at most {}: {solved}, and its DRAT \
         proof ({bytes} bytes) was verified by {CHECKER} in {checked:.1} s",
        a.tiles - 1
    );
    Ok(())
}

/// Runs the solver on `formula`, writing its proof to `proof`; the seconds it took. An error
/// when it does not refute the formula: a model (decoded and verified: the tiles fit) or its
/// time limit.
fn refute(
    a: &CertifyArgs,
    cnf: &FitCnf,
    inst: &domino::Instance,
    formula: &Path,
    proof: &Path,
    what: &str,
) -> anyhow::Result<f64> {
    let mut cmd = Command::new(SOLVER);
    cmd.arg("-q").arg("--unsat");
    if let Some(t) = a.time_limit {
        cmd.arg("-t").arg(t.to_string());
    }
    cmd.arg(formula).arg(proof);
    let start = Instant::now();
    let out = cmd.output().with_context(|| format!("running {SOLVER}"))?;
    let secs = start.elapsed().as_secs_f64();
    match out.status.code() {
        Some(20) => Ok(secs),
        Some(10) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let true_lits: HashSet<i32> = text
                .lines()
                .filter_map(|l| l.strip_prefix("v "))
                .flat_map(|l| l.split_whitespace().filter_map(|t| t.parse().ok()))
                .filter(|&l: &i32| l > 0)
                .collect();
            let placement = cnf.placement(&true_lits);
            match domino::verify(inst, &placement) {
                Ok(()) => anyhow::bail!(
                    "NOT CERTIFIED: {what} fit: {SOLVER} found a placement of {} tiles in \
                     {secs:.1} s, and the verifier accepts it",
                    placement.len()
                ),
                Err(v) => anyhow::bail!(
                    "NOT CERTIFIED: {SOLVER} says {what} fit, but its model decodes to a \
                     placement the verifier refuses ({v})"
                ),
            }
        }
        _ => anyhow::bail!(
            "NOT CERTIFIED: {SOLVER} neither refuted {what} nor placed them in {secs:.1} s \
             ({}{})",
            out.status,
            a.time_limit
                .map_or(String::new(), |t| format!("; its time limit was {t} s"))
        ),
    }
}
