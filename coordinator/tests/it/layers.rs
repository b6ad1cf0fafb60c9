//! The coordinator's modules import one another one way only, bottom to top (the order
//! ARCHITECTURE.md writes): a module names only modules of lower layers. Read from the
//! sources, outside comments and test code, so that a new import against the order fails
//! here rather than growing a loop.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// Bottom to top; the modules of one layer do not import each other.
const LAYERS: &[&[&str]] = &[
    &["job"],
    &["bench"],
    &["scheduler"],
    &["partition", "sizing", "store"],
    &["error"],
    &["config"],
    &["server"],
];

/// What the crate root re-exports, by the module that defines it.
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("Error", "error"),
    ("Config", "config"),
    ("Clock", "config"),
    ("PartitionDefaults", "config"),
    ("TlsConfig", "config"),
    ("generate_token", "config"),
    ("load_token", "config"),
    ("serve", "server"),
    ("serve_locked", "server"),
];

fn layer_of(module: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&module))
        .unwrap_or_else(|| {
            panic!("module `{module}` is in no layer: add it to LAYERS and ARCHITECTURE.md")
        })
}

/// The code of a file without comments and without its test module (a `#[cfg(test)]`
/// followed by an inline `mod`, which this crate writes last in a file).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            if let Some(next) = lines.peek() {
                let n = next.trim_start();
                if n.starts_with("mod ") && n.ends_with('{') {
                    break;
                }
            }
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The top-level modules a piece of code names through `crate::`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end].split(',').collect()
        } else {
            vec![rest]
        };
        for name in names {
            let ident: String = name
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if ident.is_empty() {
                continue;
            }
            let module = ROOT_ITEMS
                .iter()
                .find(|(item, _)| *item == ident)
                .map_or(ident.clone(), |(_, m)| m.to_string());
            found.insert(module);
        }
    }
    found
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn modules_import_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for path in files {
        let rel = path.strip_prefix(&src).unwrap();
        let file = rel.file_name().unwrap().to_str().unwrap();
        if rel == Path::new("lib.rs") || file == "tests.rs" || file.ends_with("_test.rs") {
            continue;
        }
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let module = first.trim_end_matches(".rs");
        let layer = layer_of(module);
        let code = code_of(&fs::read_to_string(&path).unwrap());
        for named in named_modules(&code) {
            if named != module && layer_of(&named) >= layer {
                wrong.push(format!("{} names crate::{named}", rel.display()));
            }
        }
        checked += 1;
    }
    assert!(
        checked >= 20,
        "only {checked} files read: is the source tree where it was?"
    );
    assert!(
        wrong.is_empty(),
        "imports against the layers' order:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_reader_sees_imports_through_groups_and_root_items_and_skips_comments_and_tests() {
    let code = code_of(
        "use crate::{store, Config, Error};\n// crate::server in a comment\nlet x = crate::job::Millis(1); // crate::partition\n#[cfg(test)]\nmod tests {\n    use crate::server;\n}\n",
    );
    let got: Vec<String> = named_modules(&code).into_iter().collect();
    assert_eq!(got, ["config", "error", "job", "store"]);
}
