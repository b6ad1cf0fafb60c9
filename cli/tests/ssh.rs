//! The ssh launcher against a real sshd: `scripts/launch/ssh-workers.sh` unchanged (only its
//! documented environment) starts one `dancehall worker` per line of a hosts file through an
//! `sshd` that this test runs on a free loopback port, with its own host key, a client key made
//! for the test and its own configuration. The sessions get a HOME of their own in the test's
//! temporary directory (sshd's `SetEnv`), so the user's `~/.dancehall` is never touched.
//!
//! Two workers (127.0.0.1 twice, one thread each) count a job exactly; then a second job's
//! script gets SIGTERM mid-run: the workers drain (units handed back, none left leased, nothing
//! lost), the script exits 0, and a second launch of the script finishes the job exactly.
//!
//! Counts (OEIS A000170): 2,279,184 solutions of 15 queens
//! (`bench-specs/queens-15-tiny-budget.toml`) and 14,772,512 of 16 queens. Needs /usr/sbin/sshd
//! (Debian's openssh-server): when it is missing the test runs scripts/install-test-tools.sh,
//! and if sshd still cannot be had it fails, or skips under `DANCEHALL_ALLOW_SKIP=1`
//! (`common::tools`). Prints what it does, so that CI logs show the counts and the drain.

mod common;

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use common::*;

const SSHD: &str = "/usr/sbin/sshd";

/// An sshd of the test's own, and the remote side of its sessions.
struct Sshd {
    _proc: Proc,
    port: u16,
    /// The client's private key (its public half is the only authorized key).
    key: PathBuf,
    /// HOME of the sessions: the script's `~/.dancehall` is `home/.dancehall`.
    home: PathBuf,
}

impl Sshd {
    fn dancehall_dir(&self) -> PathBuf {
        self.home.join(".dancehall")
    }

    /// The pid files of the workers running now (the script's remote shell removes a worker's
    /// file when the worker exits).
    fn worker_pids(&self) -> Vec<i32> {
        let Ok(entries) = fs::read_dir(self.dancehall_dir()) else {
            return Vec::new();
        };
        entries
            .map_while(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "pid"))
            .filter_map(|e| fs::read_to_string(e.path()).ok()?.trim().parse().ok())
            .collect()
    }

    /// The `SSH` command the script is given.
    fn ssh_command(&self) -> String {
        format!(
            "ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no \
             -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o IdentitiesOnly=yes \
             -i {} -p {}",
            self.key.display(),
            self.port
        )
    }
}

impl Drop for Sshd {
    /// Workers still running when the test ends (it failed) are started by sshd, not by the
    /// test: kill them by their pid files.
    fn drop(&mut self) {
        for pid in self.worker_pids() {
            // SAFETY: kill(2) on a worker this test started through its own sshd.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn keygen(path: &Path) {
    sh(Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "dancehall-test",
            "-f",
        ])
        .arg(path));
}

/// sshd is there, or the project's install script puts it there.
fn sshd_available() -> bool {
    if Path::new(SSHD).exists() {
        return true;
    }
    println!("ssh: {SSHD} is missing: running scripts/install-test-tools.sh");
    let _ = Command::new("bash")
        .arg(repo().join("scripts/install-test-tools.sh"))
        .status();
    Path::new(SSHD).exists()
}

fn sshd_config(dir: &Path, port: u16, home: &Path) -> String {
    let d = dir.display();
    let mut config = format!(
        "ListenAddress 127.0.0.1:{port}\n\
         HostKey {d}/host_ed25519\n\
         AuthorizedKeysFile {d}/id_ed25519.pub\n\
         PidFile {d}/sshd.pid\n\
         StrictModes no\n\
         UsePAM no\n\
         PasswordAuthentication no\n\
         KbdInteractiveAuthentication no\n\
         PubkeyAuthentication yes\n\
         SetEnv HOME={}\n",
        home.display()
    );
    if is_root() {
        config.push_str("PermitRootLogin prohibit-password\n");
    }
    config
}

/// Starts sshd as the current user on a free loopback port (another port if the one picked
/// was taken meanwhile).
fn start_sshd(dir: &Path) -> Sshd {
    let key = dir.join("id_ed25519");
    keygen(&key);
    keygen(&dir.join("host_ed25519"));
    let home = dir.join("home");
    fs::create_dir(&home).unwrap();
    if is_root() {
        // sshd run by root wants its privilege separation directory, which Debian's service
        // units make and a container without them lacks.
        fs::create_dir_all("/run/sshd").unwrap();
        fs::set_permissions("/run/sshd", fs::Permissions::from_mode(0o755)).unwrap();
    }
    let config = dir.join("sshd_config");
    let log = dir.join("sshd.log");
    for _ in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        fs::write(&config, sshd_config(dir, port, &home)).unwrap();
        sh(Command::new(SSHD).arg("-t").arg("-f").arg(&config));
        let mut proc = Proc(
            Command::new(SSHD)
                .arg("-D")
                .arg("-f")
                .arg(&config)
                .arg("-E")
                .arg(&log)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let up = wait_until("sshd to listen", || {
            if proc.exited().is_some() {
                return Some(false);
            }
            TcpStream::connect(("127.0.0.1", port))
                .is_ok()
                .then_some(true)
        });
        if up {
            println!(
                "ssh: sshd (pid {}) listening on 127.0.0.1:{port}",
                proc.pid()
            );
            return Sshd {
                _proc: proc,
                port,
                key,
                home,
            };
        }
    }
    panic!(
        "sshd did not start: {}",
        fs::read_to_string(&log).unwrap_or_default()
    );
}

/// One run of `ssh-workers.sh HOSTS` with the documented environment, its output in `log`.
struct Script {
    proc: Proc,
    log: PathBuf,
}

impl Script {
    fn start(sshd: &Sshd, coord: &Coord, token: &Path, hosts: &Path, log: PathBuf) -> Script {
        let out = fs::File::create(&log).unwrap();
        let proc = Proc(
            Command::new("bash")
                .arg(repo().join("scripts/launch/ssh-workers.sh"))
                .arg(hosts)
                .env("DANCEHALL_COORDINATOR", &coord.url)
                .env("DANCEHALL_TOKEN_FILE", token)
                .env("DANCEHALL_BIN", BIN)
                .env("DANCEHALL_IDLE", "3")
                .env("SSH", sshd.ssh_command())
                .stdin(Stdio::null())
                .stdout(out.try_clone().unwrap())
                .stderr(out)
                .spawn()
                .unwrap(),
        );
        Script { proc, log }
    }

    fn sigterm(&self) {
        // SAFETY: kill(2) on the script this test started.
        unsafe {
            libc::kill(self.proc.pid() as libc::pid_t, libc::SIGTERM);
        }
    }

    /// Waits for the script to exit and checks that it exited 0; returns its output.
    fn wait_ok(mut self) -> String {
        let st: ExitStatus = wait_until("the ssh script to exit", || self.proc.exited());
        let text = fs::read_to_string(&self.log).unwrap();
        assert!(st.success(), "ssh-workers.sh: {st}\n{text}");
        text
    }
}

/// Prints the script's drain line and the workers' closing lines
/// (`[ssh-127.0.0.1-0] dancehall worker 1: 91 units run, ...`); returns how many workers closed.
fn print_summaries(log: &str) -> usize {
    let mut closed = 0;
    for l in log.lines() {
        if l.contains("units run") {
            closed += 1;
        } else if !l.starts_with("draining") {
            continue;
        }
        println!("ssh: {l}");
    }
    closed
}

fn sessions_accepted(dir: &Path) -> usize {
    fs::read_to_string(dir.join("sshd.log"))
        .unwrap_or_default()
        .matches("Accepted publickey")
        .count()
}

#[test]
fn ssh_workers_count_exactly_and_drain_on_sigterm() {
    let install = "scripts/install-test-tools.sh could not install openssh-server (needs root)";
    if !tools::present(sshd_available(), SSHD, install) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sshd = start_sshd(dir.path());
    let token = write_token(dir.path(), "token", "ssh-test-token");
    let db = dir.path().join("d.db");
    let coord = start_coordinator(&db, &token, 0, 10);
    let hosts = dir.path().join("hosts");
    fs::write(
        &hosts,
        "# two workers on this machine\n127.0.0.1 1\n127.0.0.1 1\n",
    )
    .unwrap();
    let launch = |log: &str| Script::start(&sshd, &coord, &token, &hosts, dir.path().join(log));

    // Job 1: 15 queens (a few seconds: both workers take part); the workers exit 3 s after the
    // job, and the script with them.
    let job = submit(
        &coord.url,
        &token,
        &specs().join("queens-15-tiny-budget.toml"),
    );
    let text = launch("launch-1.log").wait_ok();
    let st = wait_done(&coord.url, &token, job);
    println!(
        "ssh: launch 1 counted dancehall job {job}: {} solutions, {} units, {} workers",
        st["solutions"], st["units_total"], st["workers"]
    );
    assert_eq!(print_summaries(&text), 2, "{text}");
    assert_eq!(st["solutions"], "2279184");
    assert_accepted_once(&db, job, 2_279_184);
    // The token reached the session's HOME, readable by its owner only; sshd really served
    // the script (two sessions per host line: the token's copy and the worker).
    let copied = sshd.dancehall_dir().join("token");
    assert_eq!(fs::read_to_string(&copied).unwrap(), "ssh-test-token");
    let mode = fs::metadata(&copied).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode of {}", copied.display());
    let sessions = sessions_accepted(dir.path());
    println!("ssh: sshd accepted {sessions} sessions");
    assert!(sessions >= 4, "sshd accepted {sessions} sessions");
    assert!(sshd.worker_pids().is_empty(), "workers left running");

    // Job 2: 16 queens; the script gets SIGTERM once both workers run and units are counted.
    let job2 = submit(&coord.url, &token, &queens_spec_timed(dir.path(), 16, 0.2));
    let script = launch("launch-2.log");
    wait_until("both workers to run and count some units", || {
        let counted = status(&coord.url, &token, job2)?["units_done"].as_u64()? >= 3;
        (counted && sshd.worker_pids().len() == 2).then_some(())
    });
    script.sigterm();
    let text = script.wait_ok();
    // Both workers drained and said so; none is left running, none holds a unit.
    let mid = assert_drained(&coord.url, &token, job2);
    println!(
        "ssh: SIGTERM: script exit 0, dancehall job {job2} {} with {}/{} units done, {} leased",
        mid["state"], mid["units_done"], mid["units_total"], mid["units_leased"]
    );
    assert!(text.contains("draining 2 workers"), "{text}");
    assert_eq!(print_summaries(&text), 2, "{text}");
    assert!(sshd.worker_pids().is_empty(), "workers left running");
    let ended = db_rows(
        &db,
        &format!(
            "SELECT end_reason, COUNT(*) FROM leases WHERE job_id = {job2} GROUP BY end_reason"
        ),
    );
    println!("ssh: leases of job {job2} after the drain, by end: {ended:?}");

    // A second launch of the script finishes the job.
    let text = launch("launch-3.log").wait_ok();
    let st = wait_done(&coord.url, &token, job2);
    println!(
        "ssh: launch 3 finished dancehall job {job2}: {} solutions, {} units",
        st["solutions"], st["units_total"]
    );
    assert_eq!(print_summaries(&text), 2, "{text}");
    assert_exact_after_drain(&db, job2, &st, 14_772_512);
}
