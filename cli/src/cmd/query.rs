//! `dancehall query "SQL"`: one query on a dancehall database, printed as a table, CSV or
//! JSON (the views `v_jobs`, `v_unit_results`, `v_bench_runs` are documented in the README).
//!
//! Invariant: the database is opened read-only, so a query that would write is refused by
//! SQLite and nothing changes. SQLite still lets a read-only connection write other files
//! (`VACUUM INTO 'file'` copies the database, `ATTACH 'file'` creates one and lets it be
//! written): a query using either keyword is refused before it runs ([`writes_files`]).

use std::fmt::Write as _;
use std::path::PathBuf;

use sqlx::{Column, Row, TypeInfo, ValueRef};

use crate::exit::user_error;
use crate::report::Format;

#[derive(clap::Args, Debug)]
pub struct QueryArgs {
    /// The SQL to run (read-only).
    pub sql: String,
    /// The coordinator's database.
    #[arg(long, default_value = coordinator::store::DEFAULT_DB_PATH)]
    pub db: PathBuf,
    /// table, csv or json (one object per row).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// A value as SQLite stored it.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(usize),
}

impl Value {
    fn text(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Int(i) => i.to_string(),
            Value::Real(r) => r.to_string(),
            Value::Text(t) => t.clone(),
            Value::Blob(n) => format!("<{n} bytes>"),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Int(i) => (*i).into(),
            Value::Real(r) => (*r).into(),
            Value::Text(t) => t.clone().into(),
            Value::Blob(n) => format!("<{n} bytes>").into(),
        }
    }
}

fn value(row: &sqlx::sqlite::SqliteRow, i: usize) -> Result<Value, sqlx::Error> {
    let raw = row.try_get_raw(i)?;
    if raw.is_null() {
        return Ok(Value::Null);
    }
    let kind = raw.type_info().name().to_owned();
    Ok(match kind.as_str() {
        "INTEGER" | "BOOLEAN" => Value::Int(row.try_get(i)?),
        "REAL" => Value::Real(row.try_get(i)?),
        "BLOB" => Value::Blob(row.try_get::<Vec<u8>, _>(i)?.len()),
        _ => Value::Text(row.try_get(i)?),
    })
}

pub fn run(a: QueryArgs) -> anyhow::Result<()> {
    if a.format == Format::Html {
        return Err(user_error("query prints table, csv or json"));
    }
    if let Some(word) = writes_files(&a.sql) {
        return Err(user_error(format!(
            "query: `{word}` writes a file even on a read-only database; `query` does not write"
        )));
    }
    let rt = crate::runtime::current_thread()?;
    let (names, rows) = rt.block_on(async {
        let pool = crate::database::open_read_only(&a.db).await?;
        let result = sqlx::query(&a.sql).fetch_all(&pool).await;
        let rows = result.map_err(|e| match &e {
            sqlx::Error::Database(d) if d.message().contains("readonly") => user_error(format!(
                "{}: the database is opened read-only; `query` does not write ({})",
                a.db.display(),
                d.message()
            )),
            sqlx::Error::Database(d) => user_error(format!("query: {}", d.message())),
            _ => anyhow::Error::new(e),
        });
        let rows = crate::database::explain(&pool, &a.db, rows).await;
        pool.close().await;
        let rows = rows?;
        let names: Vec<String> = rows.first().map_or(Vec::new(), |r| {
            r.columns().iter().map(|c| c.name().to_owned()).collect()
        });
        let mut values = Vec::with_capacity(rows.len());
        for r in &rows {
            values.push(
                (0..names.len())
                    .map(|i| value(r, i))
                    .collect::<Result<Vec<_>, _>>()?,
            );
        }
        Ok::<_, anyhow::Error>((names, values))
    })?;
    crate::report::write(None, &render(&names, &rows, a.format))
}

/// The first keyword of `sql` (outside string literals, quoted names and comments) through
/// which a read-only connection can still write a file: `VACUUM` (`VACUUM INTO`) or `ATTACH`.
fn writes_files(sql: &str) -> Option<String> {
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            q @ (b'\'' | b'"' | b'`' | b'[') => {
                let close = if q == b'[' { b']' } else { q };
                i += 1;
                while i < b.len() && b[i] != close {
                    i += 1;
                }
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
                {
                    i += 1;
                }
                let word = &sql[start..i];
                if word.eq_ignore_ascii_case("vacuum") || word.eq_ignore_ascii_case("attach") {
                    return Some(word.to_ascii_uppercase());
                }
            }
            _ => i += 1,
        }
    }
    None
}

fn render(names: &[String], rows: &[Vec<Value>], format: Format) -> String {
    let mut out = String::new();
    match format {
        Format::Json => {
            for r in rows {
                let obj: serde_json::Map<String, serde_json::Value> = names
                    .iter()
                    .cloned()
                    .zip(r.iter().map(Value::json))
                    .collect();
                let _ = writeln!(out, "{}", serde_json::Value::Object(obj));
            }
        }
        Format::Csv => {
            let head: Vec<String> = names
                .iter()
                .map(|n| crate::report::text::field(n))
                .collect();
            let _ = writeln!(out, "{}", head.join(","));
            for r in rows {
                let line: Vec<String> = r
                    .iter()
                    .map(|v| crate::report::text::field(&v.text()))
                    .collect();
                let _ = writeln!(out, "{}", line.join(","));
            }
        }
        _ => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| r.iter().map(|v| v.text().replace('\n', " ")).collect())
                .collect();
            let widths: Vec<usize> = (0..names.len())
                .map(|i| {
                    cells
                        .iter()
                        .map(|r| r[i].chars().count())
                        .chain([names[i].chars().count()])
                        .max()
                        .unwrap_or(0)
                        .min(60)
                })
                .collect();
            let line = |cols: &[String]| {
                let parts: Vec<String> = cols
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect();
                parts.join("  ").trim_end().to_owned()
            };
            let _ = writeln!(out, "{}", line(names));
            for r in &cells {
                let _ = writeln!(out, "{}", line(r));
            }
        }
    }
    out
}
