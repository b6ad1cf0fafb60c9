//! The MiniZinc suite of a benchmark spec (`family = "mzn-suite"`, bench-specs/README.md): a
//! model (one file or several), an optional solution checker (`.mzc`) and data files (`.dzn`,
//! `.json`, or folders of them), read relative to the spec into a [`MznSuite`]; each data
//! file is one instance (`cores::bench::MznInstance`), run under every configuration.
//!
//! A configuration may name model files of its own (`models` in its `[[config]]` table): a
//! model variant, run instead of the suite's model, with the suite's data and checker; its
//! files must have one solve item of the suite's sense ([`check_variant`]).
//!
//! Invariant: [`read`] checks everything before anything is submitted: every file is read;
//! the models have exactly one solve item, whose sense every instance carries (an error names
//! the file and line, `cores::bench::mzn_suite::sense_of`); data ids (file names without
//! extension) are distinct; a `.json` data file parses as JSON; and, where `minizinc` is
//! installed, every data file passes `minizinc --instance-check-only` with the model (its
//! errors name the data file and line). Without `minizinc` here, a bad `.dzn` is found by the
//! workers (a run of status `error`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cores::bench::mzn_suite::sense_of;
use cores::bench::{MznInstance, Sense};
use serde::Deserialize;

/// One path or several (`model = "m.mzn"` or `model = ["a.mzn", "b.mzn"]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Paths {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

impl Paths {
    pub fn list(&self) -> Vec<PathBuf> {
        match self {
            Paths::One(p) => vec![p.clone()],
            Paths::Many(v) => v.clone(),
        }
    }
}

/// A file frozen with the job: its name there and its text.
#[derive(Debug, Clone)]
pub struct SuiteFile {
    pub name: String,
    pub text: String,
}

/// A MiniZinc model, its checker and its data files.
#[derive(Debug, Clone)]
pub struct MznSuite {
    /// The model files, in the order MiniZinc takes them (frozen as `model` files).
    pub models: Vec<SuiteFile>,
    /// The solution checker (`.mzc`), frozen as a `model` file.
    pub checker: Option<SuiteFile>,
    /// The data files (frozen as `batch` files), each an instance, in the order given
    /// (a folder's files sorted by name).
    pub data: Vec<SuiteFile>,
    pub sense: Sense,
    /// Only these instance ids (`None`: all).
    pub instances: Option<Vec<String>>,
}

impl MznSuite {
    /// The instance of data file `d`.
    pub fn instance(&self, d: &SuiteFile) -> MznInstance {
        MznInstance {
            id: data_id(&d.name).to_owned(),
            data: d.name.clone(),
            text: d.text.clone(),
            models: self.models.iter().map(|m| m.name.clone()).collect(),
            checker: self.checker.as_ref().map(|c| c.name.clone()),
            sense: self.sense,
        }
    }
}

/// An instance's id: its data file's name without the extension.
fn data_id(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read_file(path: &Path) -> anyhow::Result<SuiteFile> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    Ok(SuiteFile {
        name: file_name(path),
        text,
    })
}

/// Reads the suite: `model`, `checker` and `data` (relative to `base`, the spec's folder),
/// `instances` to keep only some.
pub fn read(
    base: &Path,
    model: Option<&Paths>,
    checker: Option<&Path>,
    data: Option<&[PathBuf]>,
    instances: Option<&[String]>,
) -> anyhow::Result<MznSuite> {
    let model_paths: Vec<PathBuf> = match model {
        Some(m) if !m.list().is_empty() => m.list().iter().map(|p| base.join(p)).collect(),
        _ => anyhow::bail!("no `model` (the MiniZinc model's file, or a list of files)"),
    };
    let mut models = Vec::new();
    let mut sense: Option<(Sense, String)> = None;
    for path in &model_paths {
        let f = read_file(path)?;
        if models.iter().any(|m: &SuiteFile| m.name == f.name) {
            anyhow::bail!("two model files are named {}", f.name);
        }
        match sense_of(&f.text) {
            Err(e) => anyhow::bail!("{}:{e}", path.display()),
            Ok(None) => {}
            Ok(Some((s, line))) => {
                let at = format!("{}:{line}", path.display());
                if let Some((_, first)) = &sense {
                    anyhow::bail!("{at}: a second solve item (the first is at {first})");
                }
                sense = Some((s, at));
            }
        }
        models.push(f);
    }
    let Some((sense, _)) = sense else {
        anyhow::bail!(
            "no solve item (`solve satisfy;`, `solve minimize EXPR;` or `solve maximize \
             EXPR;`) in {}: the objective's sense cannot be read",
            model_paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    let checker_path = checker.map(|c| base.join(c));
    let checker = match &checker_path {
        None => None,
        Some(path) => {
            let f = read_file(path)?;
            if !f.name.ends_with(".mzc") && !f.name.ends_with(".mzc.mzn") {
                anyhow::bail!(
                    "checker {}: a solution checker is a `.mzc` (or `.mzc.mzn`) file",
                    path.display()
                );
            }
            if models.iter().any(|m| m.name == f.name) {
                anyhow::bail!("the checker and a model file are both named {}", f.name);
            }
            Some(f)
        }
    };
    let mut data_paths = Vec::new();
    match data {
        Some(d) if !d.is_empty() => {
            for p in d {
                let path = base.join(p);
                if path.is_dir() {
                    let mut found: Vec<PathBuf> = std::fs::read_dir(&path)
                        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| is_data(p))
                        .collect();
                    if found.is_empty() {
                        anyhow::bail!("{}: no data files (.dzn, .json)", path.display());
                    }
                    found.sort();
                    data_paths.extend(found);
                } else if is_data(&path) {
                    data_paths.push(path);
                } else {
                    anyhow::bail!(
                        "data {}: a data file is a `.dzn` or `.json` file, or a folder of them",
                        path.display()
                    );
                }
            }
        }
        _ => anyhow::bail!("no `data` (.dzn or .json files, or folders of them)"),
    }
    let mut files: Vec<SuiteFile> = Vec::new();
    for path in &data_paths {
        let f = read_file(path)?;
        if let Some(other) = files.iter().find(|o| data_id(&o.name) == data_id(&f.name)) {
            anyhow::bail!(
                "two data files have the id {} ({} and {})",
                data_id(&f.name),
                other.name,
                f.name
            );
        }
        if f.name.ends_with(".json") {
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&f.text) {
                anyhow::bail!("{}:{}: not JSON: {e}", path.display(), e.line());
            }
        }
        files.push(f);
    }
    if let Some(ids) = instances {
        for id in ids {
            if !files.iter().any(|f| data_id(&f.name) == id) {
                anyhow::bail!("instance `{id}` is not among the data files");
            }
        }
    }
    if let Some(mzn) = worker::bench::config::minizinc_program() {
        for path in &data_paths {
            check_instance(mzn, &model_paths, path)?;
        }
    }
    Ok(MznSuite {
        models,
        checker,
        data: files,
        sense,
        instances: instances.map(<[String]>::to_vec),
    })
}

/// Checks a configuration's model variant (its own `files`: frozen name, text): one solve
/// item among them, of the suite's `sense` (errors name the configuration, the file and line).
pub fn check_variant(
    def: &cores::bench::ConfigDef,
    files: &[(String, String)],
    sense: Sense,
) -> anyhow::Result<()> {
    if def.files.is_empty() {
        return Ok(());
    }
    let mut found: Option<(Sense, String)> = None;
    for (name, text) in files {
        let at = |line: usize| format!("[[config]] `{}`: {name}:{line}", def.name);
        match sense_of(text) {
            Err(e) => anyhow::bail!("{}: {}", at(e.line), e.problem),
            Ok(None) => {}
            Ok(Some((_, line))) if found.is_some() => {
                anyhow::bail!("{}: a second solve item in the model variant", at(line))
            }
            Ok(Some((s, line))) => found = Some((s, at(line))),
        }
    }
    match found {
        None => anyhow::bail!(
            "[[config]] `{}`: its models (a variant run instead of the suite's model) have no \
             solve item",
            def.name
        ),
        Some((s, at)) if s != sense => {
            anyhow::bail!("{at}: the variant says {s}, the suite's model {sense}")
        }
        Some(_) => Ok(()),
    }
}

fn is_data(p: &Path) -> bool {
    p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("dzn" | "json"))
}

/// `minizinc --instance-check-only MODELS DATA`: the data file with the model, type-checked
/// (no solving); MiniZinc's errors name the file and line.
fn check_instance(mzn: &Path, models: &[PathBuf], data: &Path) -> anyhow::Result<()> {
    let out = Command::new(mzn)
        .arg("--instance-check-only")
        .args(models)
        .arg(data)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", mzn.display()))?;
    if out.status.success() {
        return Ok(());
    }
    // MiniZinc's warnings are paragraphs that start `Warning:`; the rest is the error.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let error: Vec<&str> = stderr
        .split("\n\n")
        .filter(|p| !p.trim_start().starts_with("Warning:"))
        .flat_map(str::lines)
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(8)
        .collect();
    anyhow::bail!(
        "{} does not fit the model (minizinc --instance-check-only):\n{}",
        data.display(),
        error.join("\n")
    )
}
