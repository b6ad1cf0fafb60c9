//! The benchmark configurations of every family ("Solvers: each is a benchmark configuration
//! that a worker runs") and what this machine has of them: the domino benchmark's (seed 001)
//! and the Sudoku solvers' (seed 000: the in-process `cores::sudoku` solvers, alldifferent at
//! three levels among them, and minisat, gprolog and MiniZinc as processes, Gecode's
//! alldifferent at three levels among them).
//!
//! Names are stable and unique across families: they are stored with every run. Detection
//! runs each tool once per process (`minizinc --version`, `minizinc --solvers-json`,
//! `clingo --version`, `python3 -m clingo --version`, `gprolog --version`, the Debian
//! package version of minisat, python3 importing `ortools`) and is cached. A configuration
//! whose solver is missing is `unavailable`, never failed. For clingo the newer of the Debian
//! binary and the PyPI module is used (the binary on a tie: it starts faster), and the record
//! says which. CP-SAT runs under the interpreter that imported `ortools` (`sys.executable`,
//! not a wrapper such as a pyenv shim), so a run uses the package that detection saw.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

pub use cores::bench::sha256_hex;
use cores::bench::{ConfigDef, EngineDef, Family, ModelHash};
use cores::sudoku::{Level, Solver};

use super::sudoku_external::{Consistency, External};

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
    /// OR-Tools' CP-SAT through python3 on `domino-cpsat.py`.
    CpSat,
    /// A `cores::sudoku` solver, in this process.
    Sudoku(Solver),
    /// A Sudoku solver run as a process per puzzle (`super::sudoku_external`).
    SudokuExternal(External),
}

/// A named configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub name: &'static str,
    /// The family whose instances it solves.
    pub family: Family,
    pub engine: Engine,
    /// One line for `dancehall domino solvers` and `dancehall sudoku solvers`.
    pub about: &'static str,
    /// Instances per benchmark unit by default: 1 for a domino instance; for Sudoku, puzzles
    /// per slice, chosen so that a unit of 17-clue puzzles lasts about a second or more on
    /// the development machine (`bench-specs/README.md` quotes the rates), never
    /// microseconds. A spec may override it.
    pub unit_puzzles: usize,
}

const SEED_BASIC: &[&str] = &["domino.mzn", "domino-solve-basic.mzn"];

/// Every configuration, in the order tables list them.
pub const CONFIGS: &[Config] = &[
    Config {
        family: Family::Domino,
        name: "native",
        engine: Engine::Native,
        about: "dancehall's exact optimiser (cores::domino::solve), in process",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "gecode-basic",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: SEED_BASIC,
        },
        about: "seed 001's model, solve maximize (Gecode's default search)",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "gecode-inserted",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino.mzn", "domino-solve-inserted.mzn"],
        },
        about: "seed 001's model, int_search(inserted, input_order, indomain_min)",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "gecode-orientation",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino.mzn", "domino-solve-orientation.mzn"],
        },
        about: "seed 001's model, int_search(orientation, input_order, indomain_random)",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "gecode-posx",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino.mzn", "domino-solve-posx.mzn"],
        },
        about: "seed 001's model, int_search(posX, input_order, indomain)",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "gecode-placement",
        engine: Engine::MiniZinc {
            solver: MznSolver::Gecode,
            files: &["domino-placement.mzn"],
        },
        about: "placement model: one 0/1 variable per tile, position, orientation, mirroring",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "chuffed",
        engine: Engine::MiniZinc {
            solver: MznSolver::Chuffed,
            files: SEED_BASIC,
        },
        about: "seed 001's model, solve maximize, with Chuffed (where installed)",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "clingo",
        engine: Engine::Clingo,
        about: "ASP model domino.lp (newest of the clingo binary and python3 -m clingo)",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Domino,
        name: "cp-sat",
        engine: Engine::CpSat,
        about: "OR-Tools CP-SAT (python3, one worker) on the placement model domino-cpsat.py",
        unit_puzzles: 1,
    },
    Config {
        family: Family::Sudoku,
        name: "ps12",
        engine: Engine::Sudoku(Solver::Ps12),
        about: "PS-1-2 (seed 000 1.2-1.3), bit-parallel on digit bands for plain 9x9",
        unit_puzzles: 50000,
    },
    Config {
        family: Family::Sudoku,
        name: "ps12-generic",
        engine: Engine::Sudoku(Solver::Ps12Generic),
        about: "PS-1-2 on bit-set domains, any shape (the seed-faithful statistics)",
        unit_puzzles: 40000,
    },
    Config {
        family: Family::Sudoku,
        name: "dlx",
        engine: Engine::Sudoku(Solver::Dlx),
        about: "Dancing Links exact cover, givens as the prefix (seed 000 2.3)",
        unit_puzzles: 20000,
    },
    Config {
        family: Family::Sudoku,
        name: "sat",
        engine: Engine::Sudoku(Solver::Sat),
        about: "extended CNF (seed 000 1.4), CaDiCaL in process",
        unit_puzzles: 1000,
    },
    Config {
        family: Family::Sudoku,
        name: "sat-naive",
        engine: Engine::Sudoku(Solver::SatNaive),
        about: "seed 000's naive CNF, CaDiCaL in process",
        unit_puzzles: 500,
    },
    Config {
        family: Family::Sudoku,
        name: "alldiff",
        engine: Engine::Sudoku(Solver::Alldiff(Level::Hyperarc)),
        about: "Régin's matching-based alldifferent filtering and search (seed 000 1.5)",
        unit_puzzles: 5000,
    },
    Config {
        family: Family::Sudoku,
        name: "alldiff-range",
        engine: Engine::Sudoku(Solver::Alldiff(Level::Range)),
        about: "alldiff's search, Leconte's range consistency (seed 000 1.6)",
        unit_puzzles: 500,
    },
    Config {
        family: Family::Sudoku,
        name: "alldiff-bounds",
        engine: Engine::Sudoku(Solver::Alldiff(Level::Bounds)),
        about: "alldiff's search, bounds consistency (Lopez-Ortiz et al.; seed 000 1.6)",
        unit_puzzles: 20,
    },
    Config {
        family: Family::Sudoku,
        name: "minisat",
        engine: Engine::SudokuExternal(External::Minisat),
        about: "the extended CNF as DIMACS, minisat as a process per solve",
        unit_puzzles: 200,
    },
    Config {
        family: Family::Sudoku,
        name: "gprolog",
        engine: Engine::SudokuExternal(External::Gprolog),
        about: "CLP(FD): fd_all_different, fd_labeling ff (seed 000 1.4), GNU Prolog",
        unit_puzzles: 100,
    },
    Config {
        family: Family::Sudoku,
        name: "minizinc",
        engine: Engine::SudokuExternal(External::Minizinc),
        about: "MiniZinc model with alldifferent, run by Gecode",
        unit_puzzles: 25,
    },
    Config {
        family: Family::Sudoku,
        name: "minizinc-value",
        engine: Engine::SudokuExternal(External::MinizincLevel(Consistency::Value)),
        about: "Gecode's all_different_int, value propagation (its default), first-fail",
        unit_puzzles: 25,
    },
    Config {
        family: Family::Sudoku,
        name: "minizinc-bounds",
        engine: Engine::SudokuExternal(External::MinizincLevel(Consistency::Bounds)),
        about: "Gecode's all_different_int :: bounds, first-fail",
        unit_puzzles: 25,
    },
    Config {
        family: Family::Sudoku,
        name: "minizinc-domain",
        engine: Engine::SudokuExternal(External::MinizincLevel(Consistency::Domain)),
        about: "Gecode's all_different_int :: domain (Régin), first-fail",
        unit_puzzles: 25,
    },
];

/// The configurations of `family`, in table order.
pub fn configs_of(family: Family) -> impl Iterator<Item = &'static Config> {
    CONFIGS.iter().filter(move |c| c.family == family)
}

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

/// The engine capabilities of this machine (`cores::bench::ConfigDef::needs`): one
/// `engine:minizinc:ID` per MiniZinc solver, `engine:clingo`, `engine:cp-sat` where found,
/// and `engine:command` when command templates are allowed (`--allow-commands`).
pub fn engine_capabilities(allow_commands: bool) -> Vec<String> {
    let tools = tools();
    let mut out: Vec<String> = tools
        .minizinc
        .iter()
        .flat_map(|m| m.solvers.iter())
        .map(|(id, _)| format!("engine:minizinc:{id}"))
        .collect();
    if tools.clingo.is_some() {
        out.push("engine:clingo".into());
    }
    if tools.ortools.is_ok() {
        out.push("engine:cp-sat".into());
    }
    if allow_commands {
        out.push(cores::bench::config_def::ENGINE_COMMAND.into());
    }
    out
}

/// The `minizinc` program found on this machine (detected once per process), if any.
pub fn minizinc_program() -> Option<&'static Path> {
    tools().minizinc.as_ref().map(|m| m.path.as_path())
}

/// MiniZinc's id of a solver named by id or by a short name (`gecode`, `chuffed`): the
/// known short names are spelled out so that a definition names one solver however it was
/// written.
pub fn minizinc_solver_id(name: &str) -> String {
    match name {
        "gecode" => MznSolver::Gecode.id().into(),
        "chuffed" => MznSolver::Chuffed.id().into(),
        other => other.into(),
    }
}

impl Config {
    /// The configuration as data, every file it runs hashed from `text_of` (the job's frozen
    /// text, or the embedded one): the definition a job freezes and whose hash its runs carry.
    pub fn definition_with(&self, text_of: &dyn Fn(&str) -> String) -> ConfigDef {
        let hashed = |names: &[&str]| -> Vec<ModelHash> {
            names
                .iter()
                .map(|n| ModelHash {
                    name: (*n).to_owned(),
                    sha256: sha256_hex(&text_of(n)),
                })
                .collect()
        };
        let (engine, files) = match self.engine {
            Engine::Native | Engine::Sudoku(_) | Engine::SudokuExternal(_) => {
                (EngineDef::BuiltIn, vec![])
            }
            Engine::MiniZinc { solver, files } => (
                EngineDef::MiniZinc {
                    solver: solver.id().into(),
                    flags: vec![],
                    search: None,
                    parameters: Default::default(),
                },
                hashed(files),
            ),
            Engine::Clingo => (
                EngineDef::Clingo { options: vec![] },
                hashed(&["domino.lp"]),
            ),
            Engine::CpSat => (
                EngineDef::CpSat { options: vec![] },
                hashed(&["domino-cpsat.py"]),
            ),
        };
        ConfigDef {
            name: self.name.into(),
            family: self.family,
            base: Some(self.name.into()),
            about: self.about.into(),
            engine,
            files,
        }
    }

    /// [`Config::definition_with`] the embedded model files.
    pub fn definition(&self) -> ConfigDef {
        self.definition_with(&|n| {
            super::models::model(n)
                .map(|m| m.text.to_owned())
                .unwrap_or_default()
        })
    }
}

/// Whether and how a definition's engine runs here (`allow_commands`: the worker's
/// `--allow-commands`). A built-in engine is its base configuration's availability.
pub fn def_availability(def: &ConfigDef, allow_commands: bool) -> Availability {
    let unavailable = |solver: &str, reason: String| Availability {
        available: false,
        solver: solver.into(),
        version: String::new(),
        program: vec![],
        reason: Some(reason),
    };
    match &def.engine {
        EngineDef::BuiltIn => match def.base.as_deref().and_then(config) {
            Some(c) => c.availability(),
            None => unavailable(
                "built-in",
                format!(
                    "no built-in configuration `{}`",
                    def.base.as_deref().unwrap_or("")
                ),
            ),
        },
        EngineDef::MiniZinc { solver, .. } => {
            let id = minizinc_solver_id(solver);
            let short = id.rsplit('.').next().unwrap_or(&id).to_owned();
            let Some(mzn) = &tools().minizinc else {
                return unavailable(&short, "minizinc is not installed".into());
            };
            match mzn.solvers.iter().find(|(i, _)| *i == id) {
                Some((_, version)) => Availability {
                    available: true,
                    solver: short.clone(),
                    version: format!(
                        "{} {version}, MiniZinc {}",
                        capitalised(&short),
                        mzn.version
                    ),
                    program: vec![mzn.path.display().to_string()],
                    reason: None,
                },
                None => unavailable(
                    &short,
                    format!(
                        "MiniZinc {} has no solver {id} (minizinc --solvers)",
                        mzn.version
                    ),
                ),
            }
        }
        EngineDef::Clingo { .. } => CONFIGS
            .iter()
            .find(|c| c.engine == Engine::Clingo)
            .expect("clingo is built in")
            .availability(),
        EngineDef::CpSat { .. } => CONFIGS
            .iter()
            .find(|c| c.engine == Engine::CpSat)
            .expect("cp-sat is built in")
            .availability(),
        EngineDef::Command { argv, .. } => {
            let program = argv.first().cloned().unwrap_or_default();
            let solver = Path::new(&program)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !allow_commands {
                return unavailable(
                    &solver,
                    "command templates run only on workers started with --allow-commands".into(),
                );
            }
            let found = if program.contains('/') {
                is_executable(Path::new(&program)).then(|| PathBuf::from(&program))
            } else {
                which(&program)
            };
            match found {
                Some(path) => Availability {
                    available: true,
                    solver,
                    version: format!("command {}", path.display()),
                    program: vec![path.display().to_string()],
                    reason: None,
                },
                None => unavailable(&solver, format!("{program} is not on PATH")),
            }
        }
    }
}

/// Whether and how a configuration runs here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Availability {
    pub available: bool,
    /// The solver program: `native`, `gecode`, `chuffed`, `clingo`, `cp-sat`.
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
            Engine::Sudoku(solver) => Availability {
                available: true,
                solver: solver.name().into(),
                version: format!("dancehall {}", env!("CARGO_PKG_VERSION")),
                program: vec![],
                reason: None,
            },
            Engine::SudokuExternal(external) => {
                let found = match external {
                    External::Minisat => tools.minisat.clone(),
                    External::Gprolog => tools.gprolog.clone(),
                    External::Minizinc | External::MinizincLevel(_) => {
                        tools.minizinc.as_ref().and_then(|m| {
                            m.solvers
                                .iter()
                                .find(|(id, _)| id == MznSolver::Gecode.id())
                                .map(|(_, v)| format!("Gecode {v}, MiniZinc {}", m.version))
                        })
                    }
                };
                match found {
                    Some(version) => Availability {
                        available: true,
                        solver: external.name().into(),
                        version,
                        program: vec![external.program().into()],
                        reason: None,
                    },
                    None => Availability {
                        available: false,
                        solver: external.name().into(),
                        version: String::new(),
                        program: vec![],
                        reason: Some(match external {
                            External::Minizinc | External::MinizincLevel(_) => {
                                "minizinc with Gecode is not installed".to_string()
                            }
                            e => format!(
                                "{} is not installed (not on PATH, or its version check failed)",
                                e.name()
                            ),
                        }),
                    },
                }
            }
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
            Engine::CpSat => match &tools.ortools {
                Ok(o) => Availability {
                    available: true,
                    solver: "cp-sat".into(),
                    version: format!("OR-Tools {} ({})", o.version, o.python.display()),
                    program: vec![o.python.display().to_string()],
                    reason: None,
                },
                Err(why) => Availability {
                    available: false,
                    solver: "cp-sat".into(),
                    version: String::new(),
                    program: vec![],
                    reason: Some(why.clone()),
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
    /// minisat's version (its Debian package's, since it prints none itself).
    minisat: Option<String>,
    /// `gprolog --version`'s first line (`Prolog top-Level (GNU Prolog) 1.4.5`).
    gprolog: Option<String>,
    /// OR-Tools for python3, or why not.
    ortools: Result<OrTools, String>,
}

#[derive(Debug)]
struct OrTools {
    /// The interpreter that imported it (`sys.executable`).
    python: PathBuf,
    /// `ortools.__version__` (`9.15.6755`).
    version: String,
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
        minisat: detect_minisat(),
        gprolog: detect_gprolog(),
        ortools: detect_ortools(),
    })
}

/// python3 imports `ortools` and says its version and its own path.
fn detect_ortools() -> Result<OrTools, String> {
    let python = which("python3").ok_or("python3 is not on PATH (CP-SAT runs through it)")?;
    let script = "import sys, ortools; print(ortools.__version__); print(sys.executable)";
    let out = Command::new(&python)
        .args(["-c", script])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines().map(str::trim);
    match (out.status.success(), lines.next(), lines.next()) {
        (true, Some(version), Some(exe)) if !version.is_empty() && !exe.is_empty() => Ok(OrTools {
            python: PathBuf::from(exe),
            version: version.to_owned(),
        }),
        _ => Err(format!(
            "{} cannot import ortools (the PyPI package ortools is not installed for it)",
            python.display()
        )),
    }
}

/// GNU Prolog prints its version on standard error.
fn detect_gprolog() -> Option<String> {
    let path = which("gprolog")?;
    let out = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = [out.stdout, out.stderr].concat();
    String::from_utf8_lossy(&text)
        .lines()
        .map(str::trim)
        .find(|l| l.contains("GNU Prolog"))
        .map(str::to_owned)
}

fn detect_minisat() -> Option<String> {
    which("minisat")?;
    let package = which("dpkg-query")
        .and_then(|q| first_line(&q, &["-W", "-f", "${Version}", "minisat"]))
        .filter(|v| !v.is_empty());
    Some(match package {
        Some(v) => format!("MiniSat {v} (Debian package)"),
        None => "MiniSat (version unknown)".to_string(),
    })
}

/// The first line `program args` prints on success, trimmed (a tool's version line).
pub fn first_line(program: &Path, args: &[&str]) -> Option<String> {
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

/// The last word of `line` (the version in `clingo version 5.8.3`).
pub fn last_word(line: &str) -> Option<String> {
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

/// The program `name` on `PATH` (an executable file there).
pub fn which(name: &str) -> Option<PathBuf> {
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
    fn every_sudoku_solver_is_a_configuration_and_domino_units_hold_one_instance() {
        for solver in cores::sudoku::Solver::ALL {
            let c = configs_of(Family::Sudoku)
                .find(|c| c.engine == Engine::Sudoku(solver))
                .unwrap_or_else(|| panic!("{solver} has no configuration"));
            assert_eq!(c.name, solver.name());
        }
        assert_eq!(configs_of(Family::Sudoku).count(), 14);
        assert!(configs_of(Family::Sudoku).all(|c| c.unit_puzzles >= 10));
        assert!(configs_of(Family::Domino).all(|c| c.unit_puzzles == 1));
        assert_eq!(
            configs_of(Family::Domino).count() + configs_of(Family::Sudoku).count(),
            CONFIGS.len()
        );
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
