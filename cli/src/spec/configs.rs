//! Solver configurations declared in a benchmark spec (`[[config]]` tables,
//! bench-specs/README.md): each read into a `cores::bench::ConfigDef` beside the built-in
//! configurations, which are definitions of the same kind (`worker::bench::Config::definition`).
//!
//! Invariant: [`declared`] checks everything before anything is submitted: names (plain, not
//! twice, not a built-in's unless the table says `base`), keys that belong to the engine,
//! every file (read relative to the spec, its errors naming it; a file with its own solve item
//! beside `search`), and returns each definition with the texts of its files. A declared
//! file is frozen as `<config>/<file name>`, so it never takes the place of a built-in model
//! or of another configuration's file of the same name.

use cores::label::Label;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cores::bench::config_def::valid_name;
use cores::bench::{ConfigDef, DataFormat, EngineDef, Family, ModelHash, OutputFormat};
use serde::Deserialize;

use super::lines::line_of;

/// One `[[config]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    name: String,
    /// A built-in configuration to start from.
    base: Option<String>,
    /// `minizinc`, `clingo`, `cp-sat` or `command` (default: the base's).
    engine: Option<String>,
    about: Option<String>,
    /// Files the engine runs, relative to the spec, in order (default: the base's).
    models: Option<Vec<PathBuf>>,
    // MiniZinc
    solver: Option<String>,
    flags: Option<Vec<String>>,
    search: Option<String>,
    parameters: Option<BTreeMap<String, toml::Value>>,
    // clingo, CP-SAT
    options: Option<Vec<String>>,
    // command templates
    command: Option<Vec<String>>,
    data: Option<DataFormat>,
    output: Option<OutputFormat>,
    seed: Option<u64>,
}

/// A declared configuration: its definition and the texts of its own files (frozen name,
/// text); files it takes from its base are the built-in models, frozen already.
#[derive(Debug, Clone)]
pub struct Declared {
    pub def: ConfigDef,
    pub files: Vec<(String, String)>,
}

/// The engine kinds a table may name.
const ENGINES: &str = "minizinc, clingo, cp-sat, command";

/// Reads the `[[config]]` tables of the spec at `path` (text `text`) for a `family` benchmark.
pub fn declared(
    path: &Path,
    text: &str,
    family: Family,
    raw: Vec<toml::Spanned<RawConfig>>,
) -> anyhow::Result<Vec<Declared>> {
    let shown = path.display();
    let base_dir = path.parent().unwrap_or(Path::new("."));
    let mut out: Vec<Declared> = Vec::new();
    for spanned in raw {
        let at = line_of(text, spanned.span().start);
        let r = spanned.into_inner();
        let fail = |msg: String| anyhow::anyhow!("{shown}:{at}: [[config]] `{}`: {msg}", r.name);
        if family == Family::Sudoku {
            return Err(fail(
                "a Sudoku benchmark runs built-in configurations only".into(),
            ));
        }
        if family == Family::MznSuite && r.engine.as_deref() != Some("minizinc") {
            return Err(fail(
                "a MiniZinc suite runs `engine = \"minizinc\"` configurations only".into(),
            ));
        }
        if !valid_name(&r.name) {
            return Err(fail(
                "a configuration's name is letters, digits, `.`, `_` and `-` (at most 64)".into(),
            ));
        }
        if out.iter().any(|d| d.def.name == r.name) {
            return Err(fail("declared twice".into()));
        }
        let builtin = worker::bench::config(&r.name);
        if builtin.is_some() && r.base.is_none() {
            return Err(fail(format!(
                "is a built-in configuration's name: choose another, or say `base = \"{}\"` to \
                 change it",
                r.name
            )));
        }
        let declared = one(&r, family, base_dir).map_err(|e| fail(format!("{e:#}")))?;
        out.push(declared);
    }
    Ok(out)
}

fn one(r: &RawConfig, family: Family, dir: &Path) -> anyhow::Result<Declared> {
    let base = match &r.base {
        None => None,
        Some(b) => Some(
            worker::bench::config(b)
                .filter(|c| c.family == family)
                .ok_or_else(|| {
                    let known: Vec<&str> =
                        worker::bench::configs_of(family).map(|c| c.name).collect();
                    anyhow::anyhow!(
                        "base `{b}` is not a built-in {family} configuration (known: {})",
                        known.join(", ")
                    )
                })?
                .definition(),
        ),
    };
    let base_kind = base.as_ref().map(|b| engine_kind(&b.engine));
    let kind = match (r.engine.as_deref(), base_kind) {
        (None, Some(k)) => k.to_owned(),
        (None, None) => anyhow::bail!("no `engine` ({ENGINES}) and no `base`"),
        (Some(e), Some(k)) if e != k => {
            anyhow::bail!(
                "engine `{e}`, but base `{}` is a {k} configuration",
                r.base.as_deref().unwrap_or("")
            )
        }
        (Some(e), _) => e.to_owned(),
    };
    if !["minizinc", "clingo", "cp-sat", "command", "built-in"].contains(&kind.as_str()) {
        anyhow::bail!("unknown engine `{kind}` (known: {ENGINES})");
    }
    let given = |key: &str, present: bool, allowed: &[&str]| -> anyhow::Result<()> {
        if present && !allowed.contains(&kind.as_str()) {
            anyhow::bail!("`{key}` is not a key of a {kind} configuration");
        }
        Ok(())
    };
    given("solver", r.solver.is_some(), &["minizinc"])?;
    given("flags", r.flags.is_some(), &["minizinc"])?;
    given("search", r.search.is_some(), &["minizinc"])?;
    given("parameters", r.parameters.is_some(), &["minizinc"])?;
    given("options", r.options.is_some(), &["clingo", "cp-sat"])?;
    given("command", r.command.is_some(), &["command"])?;
    given("data", r.data.is_some(), &["command"])?;
    given("output", r.output.is_some(), &["command"])?;
    given("seed", r.seed.is_some(), &["command"])?;
    given(
        "models",
        r.models.is_some(),
        &["minizinc", "clingo", "cp-sat", "command"],
    )?;

    // The files: declared ones read from disk, else the base's (built-in models).
    let mut files: Vec<(String, String)> = Vec::new();
    let hashes: Vec<ModelHash> = match &r.models {
        Some(paths) => {
            if paths.is_empty() {
                anyhow::bail!("`models` is empty");
            }
            let mut out = Vec::new();
            for p in paths {
                let path = dir.join(p);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
                let short = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let frozen = format!("{}/{short}", r.name);
                if files.iter().any(|(n, _)| *n == frozen) {
                    anyhow::bail!("two of its files are named {short}");
                }
                if r.search.is_some() {
                    if let Some(line) = solve_item(&text) {
                        anyhow::bail!(
                            "{}:{line}: has a solve item, and `search` adds one (leave it out of \
                             the models, or drop `search`)",
                            path.display()
                        );
                    }
                }
                out.push(ModelHash {
                    name: frozen.clone(),
                    sha256: worker::bench::sha256_hex(&text),
                });
                files.push((frozen, text));
            }
            out
        }
        None => match &base {
            Some(b) if r.search.is_some() && !b.files.is_empty() => anyhow::bail!(
                "`search` needs `models` without a solve item (base `{}`'s models have one)",
                b.name
            ),
            Some(b) => b.files.clone(),
            None if kind == "command" => Vec::new(),
            // A MiniZinc suite's configuration runs the suite's model unless it names files
            // of its own (a model variant, checked against the suite's sense by the spec).
            None if family == Family::MznSuite => Vec::new(),
            None => anyhow::bail!("no `models` (files relative to the spec) and no `base`"),
        },
    };

    let engine = match kind.as_str() {
        "minizinc" => {
            let (b_solver, b_flags, b_params) = match base.as_ref().map(|b| &b.engine) {
                Some(EngineDef::MiniZinc {
                    solver,
                    flags,
                    parameters,
                    ..
                }) => (Some(solver.clone()), flags.clone(), parameters.clone()),
                _ => (None, vec![], BTreeMap::new()),
            };
            let parameters = match &r.parameters {
                None => b_params,
                Some(p) => p
                    .iter()
                    .map(|(k, v)| {
                        let text = match v {
                            toml::Value::String(s) => s.clone(),
                            toml::Value::Integer(_)
                            | toml::Value::Float(_)
                            | toml::Value::Boolean(_) => v.to_string(),
                            _ => anyhow::bail!(
                                "parameter `{k}`: give a string, a number or a boolean"
                            ),
                        };
                        if !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                            anyhow::bail!("parameter `{k}` is not a MiniZinc identifier");
                        }
                        Ok((k.clone(), text))
                    })
                    .collect::<anyhow::Result<_>>()?,
            };
            if r.search.is_some() && family != Family::Domino {
                anyhow::bail!("`search` adds a domino solve item; put the search in the model");
            }
            if let Some(s) = &r.search {
                if s.trim().is_empty() || s.contains(';') {
                    anyhow::bail!("`search` must be one annotation, without `;`");
                }
            }
            EngineDef::MiniZinc {
                solver: worker::bench::config::minizinc_solver_id(
                    r.solver
                        .as_deref()
                        .or(b_solver.as_deref())
                        .unwrap_or("gecode"),
                ),
                flags: r.flags.clone().unwrap_or(b_flags),
                search: r.search.clone(),
                parameters,
            }
        }
        "clingo" => EngineDef::Clingo {
            options: r.options.clone().unwrap_or_default(),
        },
        "cp-sat" => EngineDef::CpSat {
            options: r.options.clone().unwrap_or_default(),
        },
        "command" => {
            let argv = match &r.command {
                Some(a) if !a.is_empty() && !a[0].trim().is_empty() => a.clone(),
                _ => anyhow::bail!("no `command` (the program and its arguments, a list)"),
            };
            let output = r.output.ok_or_else(|| {
                anyhow::anyhow!(
                    "no `output` (what the command prints: {})",
                    OutputFormat::ALL
                        .iter()
                        .map(|f| f.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            // Every placeholder must be known, and every {file:NAME} a file of its own.
            for a in &argv {
                check_placeholders(a, &files)?;
            }
            EngineDef::Command {
                argv,
                data: r.data.unwrap_or(DataFormat::Dzn),
                output,
                seed: r.seed.unwrap_or(0),
            }
        }
        "built-in" => {
            if r.models.is_some() {
                anyhow::bail!(
                    "base `{}` runs in process: nothing to change",
                    r.base.as_deref().unwrap_or("")
                );
            }
            EngineDef::BuiltIn
        }
        other => anyhow::bail!("unknown engine `{other}` (known: {ENGINES})"),
    };
    if r.options
        .as_ref()
        .is_some_and(|o| o.iter().any(|x| x.trim().is_empty()))
        || r.flags
            .as_ref()
            .is_some_and(|o| o.iter().any(|x| x.trim().is_empty()))
    {
        anyhow::bail!("an empty flag or option");
    }
    let about = r.about.clone().unwrap_or_else(|| match &r.base {
        Some(b) => format!("declared in the spec, from {b}"),
        None => format!("declared in the spec ({kind})"),
    });
    Ok(Declared {
        def: ConfigDef {
            name: r.name.clone(),
            family,
            base: r.base.clone(),
            about,
            engine,
            files: hashes,
        },
        files,
    })
}

fn engine_kind(e: &EngineDef) -> &'static str {
    match e {
        EngineDef::BuiltIn => "built-in",
        EngineDef::MiniZinc { .. } => "minizinc",
        EngineDef::Clingo { .. } => "clingo",
        EngineDef::CpSat { .. } => "cp-sat",
        EngineDef::Command { .. } => "command",
    }
}

/// The 1-based line of a MiniZinc solve item in `text` (comments skipped), if any.
pub fn solve_item(text: &str) -> Option<usize> {
    text.lines().enumerate().find_map(|(i, l)| {
        let code = l.split('%').next().unwrap_or("").trim_start();
        let is_solve = code.strip_prefix("solve").is_some_and(|rest| {
            rest.is_empty() || !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
        });
        is_solve.then_some(i + 1)
    })
}

fn check_placeholders(arg: &str, files: &[(String, String)]) -> anyhow::Result<()> {
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            anyhow::bail!("unclosed placeholder in `{arg}`");
        };
        let key = &rest[open + 1..open + close];
        match key {
            "instance" | "time_limit" | "time_limit_ms" | "seed" | "dir" => {}
            k => match k.strip_prefix("file:") {
                Some(f) if files.iter().any(|(n, _)| n.rsplit('/').next() == Some(f)) => {}
                Some(f) => anyhow::bail!("`{{file:{f}}}` names no file of its `models`"),
                None => anyhow::bail!(
                    "unknown placeholder {{{k}}} in `{arg}` (known: {{instance}}, \
                     {{time_limit}}, {{time_limit_ms}}, {{seed}}, {{dir}}, {{file:NAME}})"
                ),
            },
        }
        rest = &rest[open + close + 1..];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::bench::parse;
    use coordinator::job::FileKind;

    fn specs() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-specs")
    }

    fn err(text: &str) -> String {
        format!("{:#}", parse(&specs().join("spec.toml"), text).unwrap_err())
    }

    const HEAD: &str = "name = \"q\"\n[benchmark]\nsuite = \"domino/suite-public\"\n";

    #[test]
    fn the_example_declares_two_configurations_beside_their_built_ins() {
        let path = specs().join("configs-example.toml");
        let s = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            s.configs,
            ["gecode-basic", "gecode-insert-max", "clingo", "clingo-usc"]
        );
        let tasks = s.tasks();
        assert_eq!(tasks.len(), 12);
        let needs = |c: &str| tasks.iter().find(|t| t.config == c).unwrap().needs.clone();
        assert_eq!(needs("gecode-basic"), None);
        assert_eq!(
            needs("gecode-insert-max").as_deref(),
            Some("engine:minizinc:org.gecode.gecode")
        );
        assert_eq!(needs("clingo-usc").as_deref(), Some("engine:clingo"));
        let files = s.files();
        let configs: Vec<&coordinator::job::FrozenFile> = files
            .iter()
            .filter(|f| f.kind == FileKind::Config)
            .collect();
        // Only the declared configurations freeze a definition; a built-in one is its name.
        assert_eq!(configs.len(), 2);
        let def = |n: &str| match configs.iter().find(|f| f.name == n) {
            Some(f) => ConfigDef::from_json(&f.text).unwrap(),
            None => worker::bench::config(n).unwrap().definition(),
        };
        // The declared model is frozen under the configuration's name, never in place of
        // the built-in domino.mzn.
        assert_eq!(
            def("gecode-insert-max").files[0].name,
            "gecode-insert-max/domino.mzn"
        );
        assert!(files
            .iter()
            .any(|f| f.kind == FileKind::Model && f.name == "gecode-insert-max/domino.mzn"));
        assert_eq!(def("clingo-usc").files, def("clingo").files);
        assert_ne!(def("clingo").to_json(), def("clingo-usc").to_json());
        coordinator::bench::check_tasks(&tasks, &files).unwrap();
    }

    #[test]
    fn the_study_spec_runs_seed_001s_four_searches_and_two_declared() {
        let path = specs().join("configs-study-20s.toml");
        let s = parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(s.tasks().len(), 600);
        let declared: Vec<&str> = s
            .defs
            .iter()
            .filter(|d| d.base.is_none())
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(declared, ["gecode-insert-max", "gecode-orientation-min"]);
    }

    #[test]
    fn declared_configuration_errors_name_the_file_line_and_problem() {
        for (extra, line, says) in [
            ("[[config]]\nname = \"clingo\"\noptions = [\"-t2\"]\nengine = \"clingo\"\n", 4, "built-in configuration's name"),
            ("[[config]]\nname = \"a b\"\nengine = \"clingo\"\n", 4, "letters, digits"),
            ("[[config]]\nname = \"x\"\nbase = \"clingo\"\nflags = [\"-f\"]\n", 4, "`flags` is not a key of a clingo"),
            ("[[config]]\nname = \"x\"\nbase = \"nosuch\"\n", 4, "base `nosuch`"),
            ("[[config]]\nname = \"x\"\nengine = \"cplex\"\nmodels = [\"domino/models/domino.lp\"]\n", 4, "unknown engine `cplex`"),
            ("[[config]]\nname = \"x\"\nengine = \"minizinc\"\nmodels = [\"nowhere.mzn\"]\n", 4, "nowhere.mzn"),
            ("[[config]]\nname = \"x\"\nengine = \"minizinc\"\nmodels = [\"domino/models/domino-solve-basic.mzn\"]\nsearch = \"int_search(posX, input_order, indomain)\"\n", 4, "domino-solve-basic.mzn:1: has a solve item"),
            ("[[config]]\nname = \"x\"\nbase = \"gecode-basic\"\nsearch = \"int_search(posX, input_order, indomain)\"\n", 4, "`search` needs `models`"),
            ("[[config]]\nname = \"x\"\nengine = \"command\"\ncommand = [\"sh\", \"{nope}\"]\noutput = \"dancehall-lines\"\n", 4, "unknown placeholder {nope}"),
            ("[[config]]\nname = \"x\"\nengine = \"command\"\ncommand = [\"sh\"]\n", 4, "no `output`"),
            ("[[config]]\nname = \"x\"\nbase = \"native\"\noptions = [\"-t\"]\n", 4, "`options` is not a key of a built-in"),
            ("[[config]]\nname = \"x\"\nengine = \"clingo\"\nmodels = [\"domino/models/domino.lp\"]\n[[config]]\nname = \"x\"\nengine = \"clingo\"\nmodels = [\"domino/models/domino.lp\"]\n", 8, "declared twice"),
        ] {
            let e = err(&format!("{HEAD}{extra}"));
            assert!(
                e.contains(&format!("spec.toml:{line}: [[config]]")) && e.contains(says),
                "{e} ({says})"
            );
        }
        // An unknown key is the TOML reader's error, with its line.
        let e = err(&format!(
            "{HEAD}[[config]]\nname = \"x\"\nengin = \"clingo\"\n"
        ));
        assert!(e.contains("spec.toml:") && e.contains("engin"), "{e}");
        // A configuration the spec lists but nobody declared.
        let e = err(&format!("{HEAD}configs = [\"mine\"]\n"));
        assert!(e.contains("unknown domino configuration `mine`"), "{e}");
    }

    #[test]
    fn a_declared_name_may_replace_a_built_in_with_base() {
        let s = parse(
            &specs().join("spec.toml"),
            &format!(
                "{HEAD}configs = [\"clingo\"]\n[[config]]\nname = \"clingo\"\nbase = \"clingo\"\n\
                 options = [\"--opt-strategy=usc\"]\n"
            ),
        )
        .unwrap();
        let builtin = worker::bench::config("clingo").unwrap().definition();
        assert_ne!(s.defs[0], builtin);
        assert_eq!(s.defs[0].base.as_deref(), Some("clingo"));
    }

    #[test]
    fn solve_items_are_found_outside_comments() {
        assert_eq!(
            solve_item("int: n;\n% solve satisfy;\nsolve maximize x;\n"),
            Some(3)
        );
        assert_eq!(solve_item("var int: solver_x;\nconstraint true;\n"), None);
        assert_eq!(
            solve_item(include_str!(
                "../../../bench-specs/domino/models/domino.mzn"
            )),
            None
        );
    }
}
