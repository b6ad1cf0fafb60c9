//! Runs one external solver process under limits and measures it ("Every run has a
//! time limit ... and an optional memory limit").
//!
//! - The solver starts in a session and process group of its own (`setsid` between fork and
//!   exec), with `PR_SET_PDEATHSIG` so that it dies with the thread that started it.
//! - At the wall-time limit (or a CPU-time limit read from the cgroup) the watchdog sends
//!   the run's `stop_signal` (SIGTERM, or SIGINT for MiniZinc) to the whole group, then
//!   SIGKILL after the grace period; after the leader exits, any process left in its group
//!   (or in its cgroup) is killed too.
//! - Measurement: a cgroup v2 child ([`super::cgroup`]) where this machine allows one (CPU of
//!   the whole tree; peak memory when the memory controller is delegated), otherwise `wait4`
//!   rusage; which one was used is returned with each figure.
//! - Memory limit: `memory.max` of the run's cgroup where it is writable, else `RLIMIT_AS` per
//!   process. A CPU-time limit is also set as `RLIMIT_CPU` per process.
//!
//! Invariant: the group's leader is reaped only after the rest of its group was killed. Until
//! then its zombie keeps the process-group id reserved, so no signal of ours can reach an
//! unrelated process that reused the id. Standard output is handed to a [`LineSink`] one
//! complete line at a time; a last line without its newline (the process was killed while
//! writing it) is dropped.

use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::cgroup::{self, RunCgroup};
use cores::bench::{Measure, Termination};

/// Limits of one solver run.
#[derive(Debug, Clone)]
pub struct ProcessLimits {
    pub wall: Duration,
    pub cpu: Option<Duration>,
    /// Bytes.
    pub memory: Option<u64>,
    /// Between the stop signal and SIGKILL.
    pub grace: Duration,
    /// What the group gets first at a limit: SIGTERM, or SIGINT for a solver that prints its
    /// statistics only when interrupted (MiniZinc: Gecode prints them on SIGINT, not SIGTERM).
    pub stop_signal: libc::c_int,
    /// Raised to stop the process early (as at a limit; the outcome's limit is `killed`).
    pub stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl ProcessLimits {
    /// These limits with SIGINT as the stop signal: MiniZinc passes it to its solver, and
    /// Gecode, interrupted, stops its search and prints the statistics it would print at its
    /// end (killed by SIGTERM it prints none), in the same grace before SIGKILL.
    pub fn interrupting(self) -> ProcessLimits {
        ProcessLimits {
            stop_signal: libc::SIGINT,
            ..self
        }
    }
}

/// Receives the solver's standard output line by line (without the newline).
pub trait LineSink: Send + Default + 'static {
    fn line(&mut self, line: &str);
}

/// What happened to the process.
#[derive(Debug)]
pub struct ProcessOutcome<S> {
    pub sink: S,
    /// The end of standard error (at most [`STDERR_KEEP`] bytes).
    pub stderr_tail: String,
    pub wall: Duration,
    pub cpu: Option<Duration>,
    pub cpu_measure: Measure,
    pub peak_memory: Option<u64>,
    pub memory_measure: Measure,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// The limit that ended the run (walltime, cputime, memory), if one did.
    pub limit: Option<Termination>,
}

impl<S> ProcessOutcome<S> {
    /// The same outcome with the sink replaced by what `f` makes of it.
    pub fn map_sink<T>(self, f: impl FnOnce(S) -> T) -> ProcessOutcome<T> {
        ProcessOutcome {
            sink: f(self.sink),
            stderr_tail: self.stderr_tail,
            wall: self.wall,
            cpu: self.cpu,
            cpu_measure: self.cpu_measure,
            peak_memory: self.peak_memory,
            memory_measure: self.memory_measure,
            exit_code: self.exit_code,
            signal: self.signal,
            limit: self.limit,
        }
    }
}

#[cfg(test)]
thread_local! {
    /// The process group of the last run started on this thread (tests check it is empty).
    pub(crate) static LAST_GROUP: std::cell::Cell<libc::pid_t> = const { std::cell::Cell::new(0) };
}

/// Bytes of standard error kept for the record's message.
pub const STDERR_KEEP: usize = 4096;

/// Runs `argv` in `cwd` under `limits`, feeding its standard output to a fresh `S`.
/// An `Err` means the process could not be started at all.
pub fn run_process<S: LineSink>(
    argv: &[String],
    cwd: &Path,
    limits: &ProcessLimits,
) -> io::Result<ProcessOutcome<S>> {
    let Some((program, args)) = argv.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty command"));
    };
    let group = RunCgroup::create(limits.memory).map(Arc::new);
    let cgroup_fd = group.as_ref().map(|g| g.procs_fd());
    let rlimit_as = match (&group, limits.memory) {
        (Some(g), Some(_)) if g.limits_memory() => None,
        (_, memory) => memory,
    };
    let rlimit_cpu = limits.cpu.map(|c| {
        let soft = c.as_secs() + u64::from(c.subsec_nanos() > 0);
        (soft.max(1), soft.max(1) + limits.grace.as_secs() + 1)
    });

    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the closure runs between fork and exec and only makes system calls (setsid,
    // prctl, write, setrlimit) on values copied in before the fork; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            );
            if let Some(fd) = cgroup_fd {
                cgroup::join_from_child(fd)?;
            }
            if let Some(bytes) = rlimit_as {
                let lim = libc::rlimit {
                    rlim_cur: bytes as libc::rlim_t,
                    rlim_max: bytes as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some((soft, hard)) = rlimit_cpu {
                let lim = libc::rlimit {
                    rlim_cur: soft as libc::rlim_t,
                    rlim_max: hard as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_CPU, &lim) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }

    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    #[cfg(test)]
    LAST_GROUP.with(|g| g.set(pid));

    // Readers: standard output to the sink, standard error to a bounded tail.
    let sink = Arc::new(Mutex::new(S::default()));
    let (out_done_tx, out_done_rx) = mpsc::channel::<()>();
    let stdout = child.stdout.take().expect("stdout is piped");
    let out_sink = Arc::clone(&sink);
    std::thread::spawn(move || {
        read_lines(stdout, &out_sink);
        let _ = out_done_tx.send(());
    });
    let (err_tx, err_rx) = mpsc::channel::<String>();
    let stderr = child.stderr.take().expect("stderr is piped");
    std::thread::spawn(move || {
        let _ = err_tx.send(read_tail(stderr));
    });

    // Watchdog: wall time, and CPU time where the cgroup can tell it.
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watch_group = group.clone();
    let (wall, cpu_limit, grace) = (limits.wall, limits.cpu, limits.grace);
    let stop_signal = limits.stop_signal;
    let stop = limits.stop.clone();
    let watchdog = std::thread::spawn(move || {
        watch(
            pid,
            start + wall,
            Watch {
                cpu_limit,
                grace,
                stop_signal,
                group: watch_group.as_deref(),
                stop: stop.as_deref(),
            },
            &done_rx,
        )
    });

    // Wait for the leader to exit without reaping it, so that its group id stays reserved.
    let waited = wait_exited_no_reap(pid);
    let end = Instant::now();
    let _ = done_tx.send(());
    let limit = watchdog.join().unwrap_or(None);
    // Only fails if the child was reaped behind our back: then signal nothing more.
    waited?;
    // SAFETY: kill has no memory-safety preconditions; the group id is still reserved by the
    // zombie leader, so this reaches only the solver's own processes.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    if let Some(g) = &group {
        g.kill_all();
    }
    // SIGKILL is delivered asynchronously: wait (briefly) until the group's other members are
    // gone, so that the caller never sees a solver process outlive its run.
    let settle = Instant::now() + Duration::from_secs(2);
    while live_group_members(pid).iter().any(|&p| p != pid) && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(5));
    }
    let (status, usage) = reap(pid)?;
    // The child is reaped: `child` must not be waited for again (dropping it does not wait).
    drop(child);

    let _ = out_done_rx.recv_timeout(grace + Duration::from_secs(2));
    let stderr_tail = err_rx
        .recv_timeout(Duration::from_millis(500))
        .unwrap_or_default();
    let sink = std::mem::take(&mut *sink.lock().unwrap_or_else(|e| e.into_inner()));

    let rusage_cpu = timeval(usage.ru_utime) + timeval(usage.ru_stime);
    let (cpu, cpu_measure) = match group.as_ref().and_then(|g| g.cpu_usage()) {
        Some(c) => (c, Measure::CgroupV2),
        None => (rusage_cpu, Measure::Rusage),
    };
    let (peak_memory, memory_measure) = match group.as_ref().and_then(|g| g.memory_peak()) {
        Some(p) => (p, Measure::CgroupV2),
        None => ((usage.ru_maxrss.max(0) as u64) * 1024, Measure::Rusage),
    };
    let (exit_code, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    };

    let oom = group.as_ref().is_some_and(|g| g.oom_kills() > 0);
    let failed = exit_code != Some(0);
    let limit = limit.or_else(|| {
        if oom || (limits.memory.is_some() && failed && mentions_memory(&stderr_tail)) {
            Some(Termination::Memory)
        } else if signal == Some(libc::SIGXCPU)
            || (signal == Some(libc::SIGKILL) && cpu_limit.is_some_and(|l| rusage_cpu >= l))
        {
            Some(Termination::Cputime)
        } else {
            None
        }
    });
    drop(group);

    Ok(ProcessOutcome {
        sink,
        stderr_tail,
        wall: end - start,
        cpu: Some(cpu),
        cpu_measure,
        peak_memory: Some(peak_memory),
        memory_measure,
        exit_code,
        signal,
        limit,
    })
}

/// What the watchdog enforces besides the wall-clock deadline.
struct Watch<'a> {
    cpu_limit: Option<Duration>,
    grace: Duration,
    stop_signal: libc::c_int,
    group: Option<&'a RunCgroup>,
    stop: Option<&'a std::sync::atomic::AtomicBool>,
}

/// The watchdog's loop: returns the limit it enforced, or `None` when told the process ended.
fn watch(
    pid: libc::pid_t,
    deadline: Instant,
    w: Watch<'_>,
    done: &mpsc::Receiver<()>,
) -> Option<Termination> {
    let Watch {
        cpu_limit,
        grace,
        stop_signal,
        group,
        stop,
    } = w;
    let poll = (cpu_limit.is_some() && group.is_some()) || stop.is_some();
    let reason = loop {
        let now = Instant::now();
        if now >= deadline {
            break Termination::Walltime;
        }
        if stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            break Termination::Killed;
        }
        let mut wait = deadline - now;
        if poll {
            wait = wait.min(Duration::from_millis(100));
        }
        match done.recv_timeout(wait) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let (Some(limit), Some(g)) = (cpu_limit, group) {
            if g.cpu_usage().is_some_and(|used| used >= limit) {
                break Termination::Cputime;
            }
        }
    };
    // SAFETY: kill has no memory-safety preconditions; the leader is not reaped before this
    // thread is joined, so the group id is still the solver's.
    unsafe { libc::kill(-pid, stop_signal) };
    if let Err(RecvTimeoutError::Timeout) = done.recv_timeout(grace) {
        // SAFETY: as above.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    Some(reason)
}

/// Blocks until `pid` has exited, leaving it a zombie (`waitid` with `WNOWAIT`).
fn wait_exited_no_reap(pid: libc::pid_t) -> io::Result<()> {
    loop {
        // SAFETY: `info` is a valid, writable siginfo_t.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Reaps `pid` and returns its wait status and resource usage (its own and that of the
/// descendants it waited for).
fn reap(pid: libc::pid_t) -> io::Result<(libc::c_int, libc::rusage)> {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `usage` is a valid, writable rusage.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if rc == pid {
            return Ok((status, usage));
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// The processes of group `pgid` that are still alive (not zombies), from `/proc`.
pub fn live_group_members(pgid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let name = e.ok()?.file_name();
        let pid: libc::pid_t = name.to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        let rest = &stat[stat.rfind(')')? + 1..];
        let mut fields = rest.split_whitespace();
        let state = fields.next()?;
        let _ppid = fields.next()?;
        let pgrp: libc::pid_t = fields.next()?.parse().ok()?;
        (pgrp == pgid && state != "Z" && state != "X").then_some(pid)
    })
    .collect()
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec.max(0) as u64)
}

fn read_lines<S: LineSink>(out: impl Read, sink: &Mutex<S>) {
    let mut reader = BufReader::with_capacity(1 << 16, out);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if buf.last() != Some(&b'\n') {
                    return; // cut off mid-line: the writer was killed
                }
                buf.pop();
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                let line = String::from_utf8_lossy(&buf);
                sink.lock().unwrap_or_else(|e| e.into_inner()).line(&line);
            }
        }
    }
}

fn read_tail(mut err: impl Read) -> String {
    let mut tail: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match err.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(k) => {
                tail.extend_from_slice(&chunk[..k]);
                if tail.len() > 2 * STDERR_KEEP {
                    tail.drain(..tail.len() - STDERR_KEEP);
                }
            }
        }
    }
    if tail.len() > STDERR_KEEP {
        tail.drain(..tail.len() - STDERR_KEEP);
    }
    String::from_utf8_lossy(&tail).into_owned()
}

/// Whether a solver's error output reports an allocation failure.
fn mentions_memory(stderr: &str) -> bool {
    const SIGNS: [&str; 6] = [
        "bad_alloc",
        "out of memory",
        "Out of memory",
        "MemoryError",
        "Cannot allocate memory",
        "memory exhausted",
    ];
    SIGNS.iter().any(|s| stderr.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default)]
    struct Lines(Vec<String>);
    impl LineSink for Lines {
        fn line(&mut self, line: &str) {
            self.0.push(line.to_owned());
        }
    }

    fn limits(wall_ms: u64) -> ProcessLimits {
        ProcessLimits {
            wall: Duration::from_millis(wall_ms),
            cpu: None,
            memory: None,
            grace: Duration::from_millis(500),
            stop: None,
            stop_signal: libc::SIGTERM,
        }
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    fn group_is_gone(pgid: libc::pid_t) -> bool {
        live_group_members(pgid).is_empty()
    }

    #[test]
    fn complete_lines_reach_the_sink_and_the_exit_code_is_kept() {
        let dir = std::env::temp_dir();
        let out: ProcessOutcome<Lines> = run_process(
            &sh("echo one; echo two; printf cut; echo oops >&2; exit 3"),
            &dir,
            &limits(10_000),
        )
        .unwrap();
        assert_eq!(out.sink.0, vec!["one", "two"]);
        assert_eq!(out.exit_code, Some(3));
        assert_eq!(out.signal, None);
        assert_eq!(out.limit, None);
        assert_eq!(out.stderr_tail, "oops\n");
        assert!(out.cpu.is_some() && out.peak_memory.is_some());
    }

    #[test]
    fn the_wall_limit_kills_the_whole_group() {
        // The shell starts a background sleeper in its group and prints its pid.
        let dir = std::env::temp_dir();
        let out: ProcessOutcome<Lines> =
            run_process(&sh("sleep 30 & echo $$ $!; wait"), &dir, &limits(300)).unwrap();
        assert_eq!(out.limit, Some(Termination::Walltime));
        assert_eq!(out.signal, Some(libc::SIGTERM));
        let pids: Vec<libc::pid_t> = out.sink.0[0]
            .split(' ')
            .map(|p| p.parse().unwrap())
            .collect();
        assert!(group_is_gone(pids[0]), "the solver's group survived");
        assert_ne!(pids[0], pids[1]);
    }

    #[test]
    fn an_interrupting_run_gets_sigint_at_its_limit_and_may_print_before_it_ends() {
        // As Gecode under MiniZinc does: interrupted, it prints what it did and exits. The
        // grace is 2 s, not `limits`' 0.5 s: this lib's other tests keep both cores busy
        // (busy loops until their limits), and a shell starved that long before its trap ran
        // would be killed before it prints (seen once in a full run of scripts/test.sh on 2
        // cores, not in six runs of the lib's tests alone).
        let dir = std::env::temp_dir();
        let out: ProcessOutcome<Lines> = run_process(
            &sh("trap 'echo interrupted; exit 0' INT; echo started; while :; do sleep 0.01; done"),
            &dir,
            &ProcessLimits {
                grace: Duration::from_secs(2),
                ..limits(300).interrupting()
            },
        )
        .unwrap();
        assert_eq!(out.limit, Some(Termination::Walltime));
        assert_eq!(out.sink.0, vec!["started", "interrupted"]);
        assert_eq!((out.exit_code, out.signal), (Some(0), None));
    }

    #[test]
    fn a_process_ignoring_sigterm_is_killed_after_the_grace() {
        let dir = std::env::temp_dir();
        let out: ProcessOutcome<Lines> = run_process(
            &sh("trap '' TERM; echo $$; while :; do :; done"),
            &dir,
            &limits(200),
        )
        .unwrap();
        assert_eq!(out.limit, Some(Termination::Walltime));
        assert_eq!(out.signal, Some(libc::SIGKILL));
        let pgid: libc::pid_t = out.sink.0[0].parse().unwrap();
        assert!(group_is_gone(pgid));
        assert!(out.cpu.unwrap() > Duration::ZERO);
    }

    #[test]
    fn a_missing_program_is_an_error_to_start() {
        let dir = std::env::temp_dir();
        let r: io::Result<ProcessOutcome<Lines>> =
            run_process(&["/nonexistent/solver".to_owned()], &dir, &limits(1000));
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn the_memory_limit_makes_allocation_fail() {
        let dir = std::env::temp_dir();
        let mut l = limits(20_000);
        l.memory = Some(64 << 20);
        // python3 runs the install scripts' pip and the cp-sat configuration.
        let python = crate::test_tools::on_path("python3");
        if !crate::test_tools::present(python, "python3", "apt-get install python3") {
            return;
        }
        let argv: Vec<String> = ["python3", "-c", "x = bytearray(512 << 20)"]
            .map(String::from)
            .to_vec();
        let out = run_process::<Lines>(&argv, &dir, &l).unwrap();
        assert_eq!(out.limit, Some(Termination::Memory), "{out:?}");
    }

    #[test]
    fn the_cpu_limit_stops_a_busy_loop() {
        let dir = std::env::temp_dir();
        let mut l = limits(30_000);
        l.cpu = Some(Duration::from_millis(300));
        let out: ProcessOutcome<Lines> = run_process(&sh("while :; do :; done"), &dir, &l).unwrap();
        assert_eq!(out.limit, Some(Termination::Cputime), "{out:?}");
    }

    #[test]
    fn a_raised_stop_flag_ends_the_whole_group() {
        let dir = std::env::temp_dir();
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut l = limits(30_000);
        l.stop = Some(flag.clone());
        let raiser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let out: ProcessOutcome<Lines> =
            run_process(&sh("sleep 60 & sleep 60; wait"), &dir, &l).unwrap();
        raiser.join().unwrap();
        assert_eq!(out.limit, Some(Termination::Killed), "{out:?}");
        assert!(out.wall < Duration::from_secs(20), "{:?}", out.wall);
    }
}
