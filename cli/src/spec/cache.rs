//! Generated units kept on disk, so that submitting or resuming a spec again does not
//! generate its units again (on 2 cores with one busy, the plain 9x9 grid's group and orbit
//! classes take 6-9 s, the 12x12 two-band classes 6-11 s, the 9x9 variants' band classes
//! 1-2 s).
//!
//! An entry is keyed by what the units are a function of: the generator, its inputs (the
//! problem as its JSON `ProblemSpec`, and any option) and the executable that generated them
//! (path, size and modification time, as ccache keys a compiler by default), so a rebuilt
//! `dancehall` generates afresh and never reads what another build wrote. The file holds one
//! header line (the key and the SHA-256 of the rest) and the units as JSON; an entry whose
//! key, digest or JSON does not check is generated again and rewritten, with a warning. A
//! new entry is written to a temporary file and renamed into place, so a reader never sees
//! half of one. The cache is a convenience: when it cannot be read or written the units are
//! generated as without it.
//!
//! Where: `$DANCEHALL_CACHE` (a directory; `off` turns the cache off), else
//! `$XDG_CACHE_HOME/dancehall`, else `$HOME/.cache/dancehall`; entries go in its `units`
//! folder.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What an entry is a function of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Key {
    /// The generator (`sudoku-variant-grids`, ...).
    generator: String,
    /// Its inputs as JSON.
    inputs: String,
    /// The executable's path, size in bytes and modification time (ns since the epoch).
    exe: String,
}

/// The first line of an entry.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    key: Key,
    /// SHA-256 of everything after the first line.
    sha256: String,
    /// Seconds the generation took.
    seconds: f64,
}

/// Generations at least this long say on stderr that they ran or were read from the cache
/// (shorter ones only in the log, `DANCEHALL_LOG=info`).
const SAY_FROM_SECONDS: f64 = 1.0;

/// Says `what` on stderr for a generation of `seconds`, or logs it for a short one.
fn say(seconds: f64, what: std::fmt::Arguments) {
    if seconds >= SAY_FROM_SECONDS {
        eprintln!("{what}");
    } else {
        tracing::info!("{what}");
    }
}

/// Where the entries live, `None` when the cache is off or there is no home to put it in.
fn dir() -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let root = match env("DANCEHALL_CACHE") {
        Some(v) if v == "off" => return None,
        Some(v) => PathBuf::from(v),
        None => match env("XDG_CACHE_HOME") {
            Some(x) => PathBuf::from(x).join("dancehall"),
            None => PathBuf::from(env("HOME")?).join(".cache").join("dancehall"),
        },
    };
    Some(root.join("units"))
}

/// The running executable as the key names it, `None` when it cannot be read.
fn exe_identity() -> Option<String> {
    let path = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(format!("{} {} {mtime}", path.display(), meta.len()))
}

/// Where a key's entry is.
fn entry_path(dir: &Path, key: &Key) -> PathBuf {
    let json = serde_json::to_string(key).expect("a key serialises");
    let digest = cores::bench::sha256_hex(&json);
    dir.join(format!("{}-{}.json", key.generator, &digest[..20]))
}

/// The units `generate` makes from `inputs`, read from the cache when an entry of the same
/// generator, inputs and executable is there, else generated and written to it (stderr
/// says which, with the generation's time, when that took [`SAY_FROM_SECONDS`] or more).
/// `generate`'s errors are returned as they are and nothing is written for them.
pub fn units<T, E>(
    generator: &str,
    inputs: &impl Serialize,
    generate: impl FnOnce() -> Result<T, E>,
) -> Result<T, E>
where
    T: Serialize + DeserializeOwned,
{
    let key = match (dir(), exe_identity(), serde_json::to_string(inputs)) {
        (Some(dir), Some(exe), Ok(inputs)) => Some((
            dir,
            Key {
                generator: generator.to_owned(),
                inputs,
                exe,
            },
        )),
        _ => None,
    };
    let Some((dir, key)) = key else {
        return generate();
    };
    let path = entry_path(&dir, &key);
    match read(&path, &key) {
        Ok(Some((value, seconds))) => {
            say(
                seconds,
                format_args!(
                    "units of generator `{generator}` read from the cache ({}; generating \
                     them took {seconds:.2} s)",
                    path.display()
                ),
            );
            return Ok(value);
        }
        Ok(None) => {}
        Err(why) => tracing::warn!(
            "{}: {why}; generating the units of `{generator}` again",
            path.display()
        ),
    }
    let started = std::time::Instant::now();
    let value = generate()?;
    let seconds = started.elapsed().as_secs_f64();
    say(
        seconds,
        format_args!("units of generator `{generator}` generated in {seconds:.2} s"),
    );
    if let Err(why) = write(&dir, &path, &key, &value, seconds) {
        tracing::warn!("{}: not cached: {why}", path.display());
    }
    Ok(value)
}

/// The entry at `path` if it is there and checks, with the seconds its generation took;
/// `Ok(None)` when there is none.
fn read<T: DeserializeOwned>(path: &Path, key: &Key) -> Result<Option<(T, f64)>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let (first, body) = text.split_once('\n').ok_or("no header line")?;
    let header: Header = serde_json::from_str(first).map_err(|e| format!("line 1: {e}"))?;
    if header.key != *key {
        return Err("line 1: the entry is another generation's (key differs)".into());
    }
    if cores::bench::sha256_hex(body) != header.sha256 {
        return Err("the units do not match the header's SHA-256 (a damaged entry)".into());
    }
    serde_json::from_str(body)
        .map(|value| Some((value, header.seconds)))
        .map_err(|e| format!("line 2: {e}"))
}

/// Writes the entry: a temporary file in `dir`, renamed to `path`.
fn write<T: Serialize>(
    dir: &Path,
    path: &Path,
    key: &Key,
    value: &T,
    seconds: f64,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let body = serde_json::to_string(value).map_err(|e| e.to_string())?;
    let header = Header {
        key: key.clone(),
        sha256: cores::bench::sha256_hex(&body),
        seconds,
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| e.to_string())?;
    let head = serde_json::to_string(&header).map_err(|e| e.to_string())?;
    writeln!(tmp, "{head}").map_err(|e| e.to_string())?;
    tmp.write_all(body.as_bytes()).map_err(|e| e.to_string())?;
    tmp.persist(path).map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key {
            generator: "g".into(),
            inputs: "{\"n\":4}".into(),
            exe: "exe 1 2".into(),
        }
    }

    #[test]
    fn an_entry_reads_back_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let key = key();
        let path = entry_path(dir.path(), &key);
        assert_eq!(read::<Vec<u32>>(&path, &key), Ok(None));
        write(dir.path(), &path, &key, &vec![1u32, 2, 3], 2.5).unwrap();
        assert_eq!(
            read::<Vec<u32>>(&path, &key),
            Ok(Some((vec![1, 2, 3], 2.5)))
        );
        // Another executable's key at the same path (a collision) is not read.
        let other = Key {
            exe: "exe 1 3".into(),
            ..key.clone()
        };
        assert!(read::<Vec<u32>>(&path, &other)
            .unwrap_err()
            .contains("key differs"));
        // One digit changed in the units: the digest catches it.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("[1,2,3]", "[1,2,4]")).unwrap();
        assert!(read::<Vec<u32>>(&path, &key)
            .unwrap_err()
            .contains("SHA-256"));
        std::fs::write(&path, "not json\n[1]").unwrap();
        assert!(read::<Vec<u32>>(&path, &key)
            .unwrap_err()
            .starts_with("line 1"));
    }

    #[test]
    fn entries_of_other_inputs_or_executables_have_other_files() {
        let dir = Path::new("/c");
        let key = key();
        let other_inputs = Key {
            inputs: "{\"n\":5}".into(),
            ..key.clone()
        };
        let other_exe = Key {
            exe: "exe 1 3".into(),
            ..key.clone()
        };
        let p = entry_path(dir, &key);
        assert_ne!(p, entry_path(dir, &other_inputs));
        assert_ne!(p, entry_path(dir, &other_exe));
        assert_eq!(p, entry_path(dir, &key.clone()));
    }
}
