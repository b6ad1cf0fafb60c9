//! The benchmark configurations of the domino benchmark ("Solvers: each is a
//! benchmark configuration that a worker runs") and what this machine has of them.
//!
//! Names are stable: they are stored with every run. Detection runs each tool once per process
//! (`minizinc --version`, `minizinc --solvers-json`, `clingo --version`,
//! `python3 -m clingo --version`) and is cached. A configuration whose solver is missing is
//! `unavailable`, never failed. For clingo the newer of the Debian binary and the PyPI module
//! is used (the binary on a tie: it starts faster), and the record says which.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// A MiniZinc backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MznSolver {
    Gecode,
    Chuffed,
}

impl MznSolver {
    /// The solver id MiniZinc knows it by.
    pub fn id(self) -> &'static str {
        match self {
            MznSolver::Gecode => "org.gecode.gecode",
            MznSolver::Chuffed => "org.chuffed.chuffed",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MznSolver::Gecode => "gecode",
            MznSolver::Chuffed => "chuffed",
        }
    }
}

/// How a configuration solves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// `cores::domino::solve`, in this process.
    Native,
    /// `minizinc --solver ID` on these model files (see [`super::models`]).
    MiniZinc {
        solver: MznSolver,
        files: &'static [&'static str],
    },
    /// clingo on `domino.lp`.
    Clingo,
}

/// A named configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub name: &'static str,
    pub engine: Engine,
    /// One line for `dancehall domino solvers`.
    pub about: &'static str,
}

const SEED_BASIC: &[&str] = &["domino.mzn", "domino-solve-basic.mzn"];

/// Every configuration, in the order tables list them.
pub const CONFIGS: &[Config] = &[
    Config {
        name: "native",
        engine: Engine::Native,
        about: "dancehall's exact optimiser (cores::domino::solve), in process",
    },
    Config {
        name: "gecode-basic",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: SEED_BASIC,
        },
        about: "seed 001's model, solve maximize (Gecode's default search)",
    },
    Config {
        name: "gecode-inserted",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino.mzn", "domino-solve-inserted.mzn"],
        },
        about: "seed 001's model, int_search(inserted, input_order, indomain_min)",
    },
    Config {
        name: "gecode-orientation",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino.mzn", "domino-solve-orientation.mzn"],
        },
        about: "seed 001's model, int_search(orientation, input_order, indomain_random)",
    },
    Config {
        name: "gecode-posx",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino.mzn", "domino-solve-posx.mzn"],
        },
        about: "seed 001's model, int_search(posX, input_order, indomain)",
    },
    Config {
        name: "gecode-placement",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino-placement.mzn"],
        },
        about: "placement model: one 0/1 variable per tile, position, orientation, mirroring",
    },
    Config {
        name: "chuffed",
        engine: Engine::MiniZinc {
            solver: MznSolver::Chuffed,
            files: SEED_BASIC,
        },
        about: "seed 001's model, solve maximize, with Chuffed (where installed)",
    },
    Config {
        name: "clingo",
        engine: Engine::Clingo,
        about: "ASP model domino.lp (newest of the clingo binary and python3 -m clingo)",
    },
];

/// The configuration called `name`.
pub fn config(name: &str) -> Option<&'static Config> {
    CONFIGS.iter().find(|c| c.name == name)
}

/// The names of the configurations that run here (their solvers are installed).
pub fn available_configs() -> Vec<String> {
    CONFIGS
        .iter()
        .filter(|c| c.availability().available)
        .map(|c| c.name.to_string())
        .collect()
}

/// Whether and how a configuration runs here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Availability {
    pub available: bool,
    /// The solver program: `native`, `gecode`, `chuffed`, `clingo`.
    pub solver: String,
    /// Its version as reported (`Gecode 6.2.0, MiniZinc 2.6.4`), empty when unavailable.
    pub version: String,
    /// The command prefix that starts it (empty for native).
    pub program: Vec<String>,
    /// Why it is unavailable.
    pub reason: Option<String>,
}

impl Config {
    /// What this machine has of the configuration (detected once per process).
    pub fn availability(&self) -> Availability {
        let tools = tools();
        match self.engine {
            Engine::Native => Availability {
                available: true,
                solver: "native".into(),
                version: format!("dancehall {}", env!("CARGO_PKG_VERSION")),
                program: vec![],
                reason: None,
            },
            Engine::MiniZinc { solver, .. } => {
                let unavailable = |reason: String| Availability {
                    available: false,
                    solver: solver.name().into(),
                    version: String::new(),
                    program: vec![],
                    reason: Some(reason),
                };
                let Some(mzn) = &tools.minizinc else {
                    return unavailable("minizinc is not installed".into());
                };
                match mzn.solvers.iter().find(|(id, _)| id == solver.id()) {
                    Some((_, version)) => Availability {
                        available: true,
                        solver: solver.name().into(),
                        version: format!(
                            "{} {version}, MiniZinc {}",
                            capitalised(solver.name()),
                            mzn.version
                        ),
                        program: vec![mzn.path.display().to_string()],
                        reason: None,
                    },
                    None => unavailable(format!(
                        "MiniZinc {} has no solver {} (minizinc --solvers)",
                        mzn.version,
                        solver.id()
                    )),
                }
            }
            Engine::Clingo => match &tools.clingo {
                Some(c) => Availability {
                    available: true,
                    solver: "clingo".into(),
                    version: format!("clingo {} ({})", c.version, c.how),
                    program: c.program.clone(),
                    reason: None,
                },
                None => Availability {
                    available: false,
                    solver: "clingo".into(),
                    version: String::new(),
                    program: vec![],
                    reason: Some("neither a clingo binary nor python3 -m clingo works".into()),
                },
            },
        }
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[derive(Debug)]
struct Tools {
    minizinc: Option<MiniZinc>,
    clingo: Option<Clingo>,
}

#[derive(Debug)]
struct MiniZinc {
    path: PathBuf,
    version: String,
    /// (solver id, version).
    solvers: Vec<(String, String)>,
}

#[derive(Debug)]
struct Clingo {
    program: Vec<String>,
    version: String,
    /// `/usr/bin/clingo` or `python3 -m clingo`.
    how: String,
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| Tools {
        minizinc: detect_minizinc(),
        clingo: detect_clingo(),
    })
}

/// The first line of standard output of a successful run.
fn first_line(program: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(|l| l.trim().to_owned())
}

fn detect_minizinc() -> Option<MiniZinc> {
    let path = which("minizinc")?;
    // "MiniZinc to FlatZinc converter, version 2.6.4"
    let version = last_word(&first_line(&path, &["--version"])?)?;
    let out = Command::new(&path)
        .arg("--solvers-json")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let solvers = list
        .as_array()?
        .iter()
        .filter_map(|s| {
            let id = s.get("id")?.as_str()?.to_owned();
            let version = s.get("version").and_then(|v| v.as_str()).unwrap_or("");
            Some((id, version.to_owned()))
        })
        .collect();
    Some(MiniZinc {
        path,
        version,
        solvers,
    })
}

fn detect_clingo() -> Option<Clingo> {
    // "clingo version 5.4.1"
    let binary = which("clingo").and_then(|path| {
        let version = last_word(&first_line(&path, &["--version"])?)?;
        Some(Clingo {
            program: vec![path.display().to_string()],
            how: path.display().to_string(),
            version,
        })
    });
    // "pyclingo version 5.8.3"
    let module = which("python3").and_then(|path| {
        let version = last_word(&first_line(&path, &["-m", "clingo", "--version"])?)?;
        Some(Clingo {
            program: vec![path.display().to_string(), "-m".into(), "clingo".into()],
            how: "python3 -m clingo".into(),
            version,
        })
    });
    match (binary, module) {
        (Some(b), Some(m)) => {
            if version_key(&m.version) > version_key(&b.version) {
                Some(m)
            } else {
                Some(b)
            }
        }
        (b, m) => b.or(m),
    }
}

fn last_word(line: &str) -> Option<String> {
    line.split_whitespace().last().map(str::to_owned)
}

/// "5.8.3" -> [5, 8, 3] (non-numeric parts count as 0).
fn version_key(v: &str) -> Vec<u64> {
    v.split('.')
        .map(|p| {
            p.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .unwrap_or(0)
        })
        .collect()
}

/// The program `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (i, c) in CONFIGS.iter().enumerate() {
            assert_eq!(config(c.name), Some(c));
            assert!(CONFIGS[..i].iter().all(|d| d.name != c.name));
        }
        assert_eq!(config("cplex"), None);
    }

    #[test]
    fn versions_compare_numerically() {
        assert!(version_key("5.8.3") > version_key("5.4.1"));
        assert!(version_key("5.10.0") > version_key("5.9.9"));
        assert_eq!(version_key("6.2.0-rc1"), vec![6, 2, 0]);
    }

    #[test]
    fn native_is_always_available() {
        let a = config("native").unwrap().availability();
        assert!(a.available);
        assert_eq!(a.solver, "native");
    }

    #[test]
    fn an_unavailable_configuration_says_why() {
        for c in CONFIGS {
            let a = c.availability();
            assert_eq!(a.available, a.reason.is_none(), "{}: {a:?}", c.name);
            assert_eq!(a.available, !a.version.is_empty(), "{}: {a:?}", c.name);
        }
    }
}
