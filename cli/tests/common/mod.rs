//! Helpers of the end-to-end tests that run `dancehall` processes (`distributed.rs`,
//! `slurm.rs`, `ssh.rs`): starting coordinators and workers, submitting, waiting on conditions
//! with deadlines, running the project's scripts, reading the database; and [`tools`], what a
//! test does when a tool it needs is missing.
#![allow(dead_code)] // each test binary uses a part

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// What a test does when a tool it needs is missing (fail, or under `DANCEHALL_ALLOW_SKIP=1` a
/// recorded skip): the worker's tests' rule, from the one file that holds it.
#[path = "../../../worker/src/test_tools.rs"]
pub mod tools;

pub const BIN: &str = env!("CARGO_BIN_EXE_dancehall");
/// Generous: the machine is shared and the tests run in a debug build.
pub const DEADLINE: Duration = Duration::from_secs(90);

pub fn specs() -> PathBuf {
    repo().join("bench-specs")
}

/// The workspace root, where the project's scripts are.
pub fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Runs a command other than dancehall to completion; panics with its output unless it succeeds.
pub fn sh(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub fn dancehall() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("DANCEHALL_TOKEN")
        .env_remove("DANCEHALL_COORDINATOR")
        .env("DANCEHALL_LOG", "error");
    c
}

/// Runs to completion; panics with the output unless the exit status is `code`.
pub fn run_expect(cmd: &mut Command, code: i32) -> Output {
    let out = cmd.output().expect("start dancehall");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{cmd:?}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `dancehall run SPEC --db DB ARGS...` to completion, with exit status `code`.
pub fn run_spec(spec: &Path, db: &Path, args: &[&str], code: i32) -> Output {
    run_expect(
        dancehall()
            .arg("run")
            .arg(spec)
            .args(args)
            .arg("--db")
            .arg(db),
        code,
    )
}

/// Each stdout line as JSON.
pub fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

pub fn solutions(v: &Value) -> u128 {
    v["solutions"]
        .as_str()
        .unwrap_or_else(|| panic!("no solutions in {v}"))
        .parse()
        .unwrap()
}

/// The single-process count of a problem given by `count`'s arguments.
pub fn count(args: &[&str]) -> u128 {
    let out = run_expect(dancehall().arg("count").args(args).arg("--json"), 0);
    solutions(&json_lines(&out)[0])
}

pub fn wait_until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        if let Some(t) = f() {
            return t;
        }
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// A child process killed (SIGKILL) and reaped when dropped.
pub struct Proc(pub Child);

impl Proc {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    pub fn kill9(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }

    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.0.try_wait().unwrap()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill9();
    }
}

pub fn write_token(dir: &Path, name: &str, token: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, token).unwrap();
    path
}

/// A `dancehall coordinator` process.
pub struct Coord {
    pub proc: Proc,
    pub url: String,
    pub port: u16,
}

pub fn start_coordinator(db: &Path, token: &Path, port: u16, lease_seconds: u32) -> Coord {
    try_start_coordinator(db, token, port, lease_seconds).expect("the coordinator to start")
}

/// Starts a coordinator; None when it exits before listening (e.g. its port is still taken).
pub fn try_start_coordinator(
    db: &Path,
    token: &Path,
    port: u16,
    lease_seconds: u32,
) -> Option<Coord> {
    let mut child = dancehall()
        .arg("coordinator")
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--db")
        .arg(db)
        .arg("--token-file")
        .arg(token)
        .arg("--lease-seconds")
        .arg(lease_seconds.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read its stderr on a thread (and keep draining it) to learn the address.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on ").nth(1) {
                let url = rest.split_whitespace().next().unwrap_or("").to_string();
                let _ = tx.send(url);
            }
        }
    });
    let proc = Proc(child);
    // The reader thread ends (and the channel closes) if the coordinator exits first.
    let url = match rx.recv_timeout(DEADLINE) {
        Ok(url) => url,
        Err(mpsc::RecvTimeoutError::Disconnected) => return None,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("the coordinator never said where it listens")
        }
    };
    let port = url.rsplit(':').next().unwrap().parse().unwrap();
    Some(Coord { proc, url, port })
}

pub fn start_worker(url: &str, token: &Path, threads: u32, id: &str) -> Proc {
    Proc(
        dancehall()
            .args(["worker", "--coordinator", url, "--token-file"])
            .arg(token)
            .args(["--threads", &threads.to_string(), "--worker-id", id])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

pub fn submit(url: &str, token: &Path, spec: &Path) -> u64 {
    let out = run_expect(
        dancehall()
            .args(["submit", "--coordinator", url, "--token-file"])
            .arg(token)
            .arg(spec),
        0,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// `dancehall status JOB --json`, or None while the coordinator cannot answer.
pub fn status(url: &str, token: &Path, job: u64) -> Option<Value> {
    let out = dancehall()
        .args([
            "status",
            &job.to_string(),
            "--json",
            "--coordinator",
            url,
            "--token-file",
        ])
        .arg(token)
        .output()
        .unwrap();
    if !out.status.success() {
        return None;
    }
    json_lines(&out).into_iter().next()
}

pub fn wait_done(url: &str, token: &Path, job: u64) -> Value {
    wait_until("the job to finish", || {
        status(url, token, job).filter(|s| s["state"] == "done")
    })
}

/// A worker played by the test itself over the real protocol (reports, releases of its
/// choosing): connected to `url` with `token` and registered; returns it and its id.
pub async fn protocol_worker(url: &str, token: &str) -> (proto::client::WorkerClient, u64) {
    use proto::client;
    use proto::v1 as pb;
    let channel = client::connect(url, None).await.unwrap();
    let mut w = client::worker(channel, token).unwrap();
    let id = w
        .register(pb::RegisterRequest {
            header: client::header(),
            host: "test".into(),
            name: "test".into(),
            threads: 1,
            software_version: "test".into(),
            capabilities: None,
        })
        .await
        .unwrap()
        .into_inner()
        .worker_id;
    (w, id)
}

/// A spec file holding `body`, with an optional DLX file beside it.
pub fn write_spec(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

/// `n` queens cut into units of about `budget` nodes.
pub fn queens_spec(dir: &Path, n: usize, budget: u64) -> PathBuf {
    queens_spec_partition(dir, n, &format!("unit_node_budget = {budget}"))
}

/// `n` queens cut into units of about `seconds` of search each.
pub fn queens_spec_timed(dir: &Path, n: usize, seconds: f64) -> PathBuf {
    queens_spec_partition(dir, n, &format!("unit_seconds = {seconds}"))
}

/// Counted by the engine (`core = "dlx"`, not the queens spec's default, the bitboard queens
/// core): these jobs are there to last (kills, restarts, budgets, many units), and the queens
/// core counts them in milliseconds.
fn queens_spec_partition(dir: &Path, n: usize, partition: &str) -> PathBuf {
    write_spec(
        dir,
        &format!("queens-{n}.toml"),
        &format!(
            "name = \"queens-{n}\"\n[problem]\nfamily = \"queens\"\nn = {n}\n\
             [partition]\n{partition}\ncore = \"dlx\"\n"
        ),
    )
}

// ----- the database, read directly -------------------------------------------------------

pub fn db_rows(db: &Path, sql: &str) -> Vec<Vec<String>> {
    try_db_rows(db, sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Runs `sql` on the database read-write (as an older release or an operator would change it).
pub fn db_exec(db: &Path, sql: &str) {
    use sqlx::Connection;
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display()))
            .await
            .unwrap();
        sqlx::query(sql).execute(&mut conn).await.unwrap();
    })
}

/// The rows of `sql`, or the error (e.g. while the coordinator is still creating the tables).
pub fn try_db_rows(db: &Path, sql: &str) -> Result<Vec<Vec<String>>, sqlx::Error> {
    use sqlx::{Connection, Row};
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let url = format!("sqlite://{}?mode=ro", db.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await?;
        let rows = sqlx::query(sql).fetch_all(&mut conn).await?;
        Ok(rows
            .iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| {
                        r.try_get::<String, _>(i)
                            .or_else(|_| r.try_get::<i64, _>(i).map(|v| v.to_string()))
                            .or_else(|_| r.try_get::<f64, _>(i).map(|v| v.to_string()))
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect())
    })
}

/// Checks exactly-once accounting in the database: no unit has two accepted reports, and
/// the accepted unit results of `job` add up to `expected`.
pub fn assert_accepted_once(db: &Path, job: u64, expected: u128) {
    let twice = db_rows(
        db,
        "SELECT unit_id, COUNT(*) FROM report_audit WHERE verdict = 'accepted' \
         GROUP BY unit_id HAVING COUNT(*) > 1",
    );
    assert!(twice.is_empty(), "units accepted twice: {twice:?}");
    let results = db_rows(
        db,
        &format!("SELECT solutions FROM unit_results WHERE job_id = {job}"),
    );
    let sum: u128 = results.iter().map(|r| r[0].parse::<u128>().unwrap()).sum();
    assert_eq!(sum, expected, "sum of the accepted unit results");
}

/// The status of `job` just after all its workers were drained in the middle: still running,
/// and no unit left leased (the workers finished or handed back everything they held).
pub fn assert_drained(url: &str, token: &Path, job: u64) -> Value {
    let st = status(url, token, job).expect("the coordinator to answer");
    assert_eq!(st["state"], "running", "{st}");
    assert_eq!(st["units_leased"], 0, "{st}");
    st
}

/// The end of a job whose first workers were drained: the exact count in the status `st`,
/// each unit accepted once, and no lease expired (a drained worker lets none expire).
pub fn assert_exact_after_drain(db: &Path, job: u64, st: &Value, expected: u128) {
    assert_eq!(st["solutions"], expected.to_string().as_str(), "{st}");
    assert_accepted_once(db, job, expected);
    let expired = db_rows(
        db,
        &format!("SELECT COUNT(*) FROM leases WHERE job_id = {job} AND end_reason = 'expired'"),
    );
    assert_eq!(expired[0][0], "0", "a drained worker lets no lease expire");
}
