//! The Slurm launcher against a real single-node Slurm cluster (started by
//! `scripts/launch/slurm-single-node.sh`, which installs munge, slurmctld, slurmd and
//! slurm-client when missing): a `dancehall coordinator` process on loopback, a counting job
//! submitted with `dancehall submit`, workers launched by `scripts/launch/slurm-workers.sbatch`
//! unchanged (only command-line options and the documented environment), the exact count;
//! then a second job whose worker array is cancelled (`scancel`: SIGTERM, the workers drain and
//! hand their units back) and finished by a second array.
//!
//! Counts: 14,200 solutions of 12 queens and 14,772,512 of 16 queens (OEIS A000170).
//! Needs root (or password-less sudo) and Debian's packages: without them the test fails, or
//! skips under `DANCEHALL_ALLOW_SKIP=1` (`common::tools`). Prints what it does, so that CI logs
//! show the Slurm job ids, array tasks and counts.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// `sbatch` of the project's script with the documented environment; returns the job id.
fn sbatch(coord: &Coord, token: &Path, logs: &Path, array: &str, wait: bool) -> u64 {
    let mut cmd = Command::new("sbatch");
    cmd.current_dir(repo())
        .env("DANCEHALL_COORDINATOR", &coord.url)
        .env("DANCEHALL_TOKEN_FILE", token)
        .env("DANCEHALL_BIN", BIN)
        .env("DANCEHALL_IDLE", "3")
        .env("DANCEHALL_LOG", "info")
        .arg("--parsable")
        .arg("--export=ALL")
        .arg(format!("--array={array}"))
        .arg(format!("--output={}/worker-%A_%a.log", logs.display()));
    if wait {
        cmd.arg("--wait");
    }
    cmd.arg("scripts/launch/slurm-workers.sbatch");
    let out = sh(&mut cmd);
    let id: u64 = stdout(&out)
        .split(';')
        .next()
        .unwrap()
        .parse()
        .expect("a job id from sbatch --parsable");
    println!("slurm: sbatch --array={array} -> job {id}");
    id
}

/// The array tasks of a Slurm job still known to `squeue`.
fn queued(job: u64) -> Vec<String> {
    let out = Command::new("squeue")
        .args(["-h", "-j", &job.to_string(), "-o", "%i %T"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn slurm_workers_count_exactly_and_drain_on_scancel() {
    let start = Command::new("bash")
        .arg(repo().join("scripts/launch/slurm-single-node.sh"))
        .arg("start")
        .output()
        .expect("bash runs");
    let install = format!(
        "scripts/launch/slurm-single-node.sh start (as root or with password-less sudo) failed: \
         {}{}",
        String::from_utf8_lossy(&start.stdout),
        String::from_utf8_lossy(&start.stderr).trim_end()
    );
    if !tools::present(start.status.success(), "a single-node Slurm", &install) {
        return;
    }
    let info = sh(Command::new("sinfo").args(["-h", "-o", "%N %c %T"]));
    println!("slurm: node {}", stdout(&info));

    let dir = tempfile::tempdir().unwrap();
    let token = write_token(dir.path(), "token", "slurm-test-token");
    let db = dir.path().join("d.db");
    let coord = start_coordinator(&db, &token, 0, 10);

    // Job 1: 12 queens, workers from an array of two tasks; sbatch --wait returns when the
    // workers have exited (idle for 3 s after the job).
    let job = submit(&coord.url, &token, &queens_spec_timed(dir.path(), 12, 0.2));
    let slurm = sbatch(&coord, &token, dir.path(), "0-1", true);
    let st = wait_done(&coord.url, &token, job);
    println!(
        "slurm: job {slurm} counted dancehall job {job}: {} solutions, {} units, {} workers",
        st["solutions"], st["units_total"], st["workers"]
    );
    assert_eq!(st["solutions"], "14200");
    assert_accepted_once(&db, job, 14_200);

    // Job 2: 16 queens; the first array is cancelled once units have been counted.
    let job2 = submit(&coord.url, &token, &queens_spec_timed(dir.path(), 16, 0.2));
    let first = sbatch(&coord, &token, dir.path(), "0-1", false);
    wait_until("the first array to count some units", || {
        status(&coord.url, &token, job2).filter(|s| s["units_done"].as_u64().unwrap_or(0) >= 3)
    });
    sh(Command::new("scancel").arg(first.to_string()));
    wait_until("the cancelled array to end", || {
        queued(first).is_empty().then_some(())
    });
    // The drained workers handed their units back: none is left leased by them.
    let mid = assert_drained(&coord.url, &token, job2);
    println!(
        "slurm: scancel {first}: dancehall job {job2} {} with {}/{} units done, {} leased",
        mid["state"], mid["units_done"], mid["units_total"], mid["units_leased"]
    );
    let released = db_rows(
        &db,
        &format!(
            "SELECT COUNT(*) FROM leases WHERE job_id = {job2} AND end_reason IN ('released', 'reported')"
        ),
    );
    println!(
        "slurm: leases of job {job2} ended by release or report: {}",
        released[0][0]
    );
    let second = sbatch(&coord, &token, dir.path(), "0-1", true);
    let st = wait_done(&coord.url, &token, job2);
    println!(
        "slurm: job {second} finished dancehall job {job2}: {} solutions, {} units",
        st["solutions"], st["units_total"]
    );
    assert_exact_after_drain(&db, job2, &st, 14_772_512);
}
