//! A cgroup v2 child per solver run, for measuring the whole process tree however it forks
//! (BenchExec's method; REFERENCES.md: "measure without root, fall back to getrusage, record
//! how").
//!
//! The child is created under this process's own cgroup v2 (from `/proc/self/cgroup` and the
//! `cgroup2` mount in `/proc/self/mountinfo`); nothing else in the hierarchy is changed (no
//! controller is enabled anywhere). What the child offers depends on the parent: `cpu.stat`
//! always, `memory.peak`/`memory.max`/`memory.events` only when the parent delegates the memory
//! controller. [`RunCgroup::create`] returns `None` when no child can be made (no cgroup v2, no
//! permission): the runner then measures with `wait4` rusage.
//!
//! Invariant: the directory is removed when the [`RunCgroup`] is dropped, after every process
//! still in it was killed.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A cgroup v2 directory made for one run.
#[derive(Debug)]
pub struct RunCgroup {
    dir: PathBuf,
    /// `cgroup.procs`, opened before the fork so that the child can move itself in by writing
    /// "0" (the kernel reads 0 as "the writing process") without allocating.
    procs: File,
    /// `memory.peak` exists (the memory controller is delegated).
    has_memory: bool,
    /// A memory limit was written to `memory.max`.
    limited: bool,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl RunCgroup {
    /// Creates a child of this process's cgroup v2; `memory_limit` goes to `memory.max` when
    /// the memory controller is there (see [`RunCgroup::limits_memory`]).
    pub fn create(memory_limit: Option<u64>) -> Option<RunCgroup> {
        let parent = own_cgroup_dir()?;
        remove_stale(&parent);
        let name = format!(
            "dancehall-run-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = parent.join(name);
        fs::create_dir(&dir).ok()?;
        let procs = match OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(dir.join("cgroup.procs"))
        {
            Ok(f) => f,
            Err(_) => {
                let _ = fs::remove_dir(&dir);
                return None;
            }
        };
        if !dir.join("cpu.stat").exists() {
            let _ = fs::remove_dir(&dir);
            return None;
        }
        let has_memory = dir.join("memory.peak").exists();
        let mut limited = false;
        if let (Some(limit), true) = (memory_limit, dir.join("memory.max").exists()) {
            limited = fs::write(dir.join("memory.max"), limit.to_string()).is_ok();
            // Without swap accounting a limited group could swap instead of failing.
            let _ = fs::write(dir.join("memory.swap.max"), "0");
        }
        Some(RunCgroup {
            dir,
            procs,
            has_memory,
            limited,
        })
    }

    /// The descriptor a child writes "0" to in order to join (async-signal-safe).
    pub fn procs_fd(&self) -> libc::c_int {
        self.procs.as_raw_fd()
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Whether peak memory can be read from the group.
    pub fn measures_memory(&self) -> bool {
        self.has_memory
    }

    /// Whether the group enforces the memory limit (`memory.max`).
    pub fn limits_memory(&self) -> bool {
        self.limited
    }

    /// CPU time (user + system) of every process that ran in the group.
    pub fn cpu_usage(&self) -> Option<Duration> {
        let text = fs::read_to_string(self.dir.join("cpu.stat")).ok()?;
        let usec = keyed(&text, "usage_usec")?;
        Some(Duration::from_micros(usec))
    }

    /// The group's peak memory in bytes (`memory.peak`).
    pub fn memory_peak(&self) -> Option<u64> {
        if !self.has_memory {
            return None;
        }
        fs::read_to_string(self.dir.join("memory.peak"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Processes the kernel killed for exceeding `memory.max`.
    pub fn oom_kills(&self) -> u64 {
        fs::read_to_string(self.dir.join("memory.events"))
            .ok()
            .and_then(|t| keyed(&t, "oom_kill"))
            .unwrap_or(0)
    }

    /// Kills every process still in the group (`cgroup.kill`, else one by one).
    pub fn kill_all(&self) {
        if fs::write(self.dir.join("cgroup.kill"), "1").is_ok() {
            return;
        }
        if let Ok(text) = fs::read_to_string(self.dir.join("cgroup.procs")) {
            for pid in text
                .lines()
                .filter_map(|l| l.trim().parse::<libc::pid_t>().ok())
            {
                // SAFETY: kill has no memory-safety preconditions.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }

    /// Whether any process is still in the group.
    pub fn is_populated(&self) -> bool {
        match fs::read_to_string(self.dir.join("cgroup.procs")) {
            Ok(text) => !text.trim().is_empty(),
            Err(_) => false,
        }
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        // Killed processes leave the group once the kernel has torn them down: retry briefly.
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            self.kill_all();
            if fs::remove_dir(&self.dir).is_ok() || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Moves the calling process into the group whose `cgroup.procs` is open as `fd`. For use
/// between fork and exec: only a `write` system call.
pub fn join_from_child(fd: libc::c_int) -> std::io::Result<()> {
    // SAFETY: writes one byte from a static buffer to a descriptor we own.
    let rc = unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) };
    if rc == 1 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Removes the empty run groups left behind by dancehall processes that died before their
/// drop ran (`dancehall-run-PID-N` whose PID is gone); populated ones are left alone.
fn remove_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("dancehall-run-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next() else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_dir(entry.path());
        }
    }
}

/// `key value` lines (cpu.stat, memory.events).
fn keyed(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok())?
    })
}

/// This process's cgroup v2 directory: the `0::PATH` line of `/proc/self/cgroup` under the
/// `cgroup2` mount whose root contains it.
fn own_cgroup_dir() -> Option<PathBuf> {
    let cgroup = fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        if right.split_whitespace().next() != Some("cgroup2") {
            continue;
        }
        let fields: Vec<&str> = left.split_whitespace().collect();
        let (root, mount_point) = (fields.get(3)?, fields.get(4)?);
        let relative = if *root == "/" {
            path
        } else {
            match path.strip_prefix(root) {
                Some(rest) => rest,
                None => continue,
            }
        };
        let dir = Path::new(mount_point).join(relative.trim_start_matches('/'));
        if dir.join("cgroup.procs").exists() {
            return Some(dir);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keyed_files() {
        let stat = "usage_usec 1234\nuser_usec 1000\nsystem_usec 234\n";
        assert_eq!(keyed(stat, "usage_usec"), Some(1234));
        assert_eq!(keyed(stat, "system_usec"), Some(234));
        assert_eq!(keyed(stat, "nr_periods"), None);
        let events = "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n";
        assert_eq!(keyed(events, "oom_kill"), Some(1));
    }

    /// Where this machine allows a child cgroup, a process moved in by the child-side call is
    /// listed in it and its CPU time is counted; the directory is gone after the drop.
    #[test]
    fn a_child_process_is_measured_when_cgroups_allow_it() {
        let Some(group) = RunCgroup::create(None) else {
            eprintln!("no writable cgroup v2 here: the rusage fallback is used instead");
            return;
        };
        let fd = group.procs_fd();
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"]);
        // SAFETY: the closure only performs a write system call.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || join_from_child(fd));
        }
        let status = cmd.status().expect("sh runs");
        assert!(status.success());
        let cpu = group.cpu_usage().expect("cpu.stat is readable");
        assert!(cpu > Duration::ZERO, "{cpu:?}");
        let dir = group.path().to_owned();
        drop(group);
        assert!(!dir.exists());
    }
}
