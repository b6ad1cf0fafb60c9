//! What a test does when a tool it needs (an external solver, sshd, Chromium, Slurm,
//! kubernetes-validate) is missing: it fails, naming the tool and how to install it. Skipping
//! is a developer's explicit choice, `DANCEHALL_ALLOW_SKIP=1` (for a machine without root,
//! where the install scripts cannot install Debian packages), never the default; and a skip is
//! never silent: its line goes to the process's real stderr (past the test harness's capture,
//! so `cargo test` shows it even for a passing test) and is appended to the file named by
//! `DANCEHALL_SKIP_LOG`, which `scripts/test.sh` sets and lists after `cargo test` ends.
//!
//! One file for every test crate: the worker's tests declare it as a module, the CLI's tests
//! include it by path (`cli/tests/common/mod.rs`).

use std::io::Write as _;
use std::path::Path;

/// Set to `1` to let tests skip what needs a missing tool.
pub const ALLOW_SKIP: &str = "DANCEHALL_ALLOW_SKIP";
/// The file each skip is appended to, one line each.
pub const SKIP_LOG: &str = "DANCEHALL_SKIP_LOG";

/// Whether the test may go on with `tool`: `true` when it was `found`. Otherwise panics with
/// the tool and `install` (how to get it), unless skipping is allowed: then the skip is
/// recorded (test, tool, `install`) and the caller skips what needs the tool.
pub fn present(found: bool, tool: &str, install: &str) -> bool {
    if found {
        return true;
    }
    let line = skip_line(
        tool,
        install,
        std::env::var(ALLOW_SKIP).as_deref() == Ok("1"),
    );
    // `std::io::stderr()` itself, not `eprintln!`: the harness captures only the macros.
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {line}");
    if let Some(path) = std::env::var_os(SKIP_LOG) {
        append(Path::new(&path), &line);
    }
    false
}

/// The skip log's line for this test and the missing `tool`; panics unless `allow`.
pub fn skip_line(tool: &str, install: &str, allow: bool) -> String {
    if !allow {
        panic!("{tool} is missing: {install} (or set {ALLOW_SKIP}=1 to skip what needs it)");
    }
    // libtest runs each test on a thread named after it.
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    format!("{test}: {tool} is missing: {install}")
}

/// Appends `line` to the skip log `path`.
pub fn append(path: &Path, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{SKIP_LOG}={}: {e}", path.display()));
    writeln!(file, "{line}").expect("the skip log is writable");
}

/// Whether `program` is an executable file in a folder of `PATH`.
pub fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(program))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}
