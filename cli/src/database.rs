//! Opening a results database read-only, as `query`, `report` and `ledger` do (never created,
//! migrated or locked), and saying, when what they ask of it fails, how its schema stands
//! against this dancehall's: a database written by an older dancehall lacks the newer views'
//! columns until `dancehall migrate` brings it up to date.

use std::path::Path;

use anyhow::Context as _;
use coordinator::store;
use sqlx::SqlitePool;

use crate::exit::user_error;

/// The database at `db`, read-only; a missing file is the user's error, named.
pub async fn open_read_only(db: &Path) -> anyhow::Result<SqlitePool> {
    if !db.exists() {
        return Err(user_error(format!("{}: no such database", db.display())));
    }
    store::open_read_only(db)
        .await
        .with_context(|| format!("opening {}", db.display()))
}

/// `result` as it is, or, when it failed on a database whose schema is not this build's,
/// with that said first (older: how to migrate it; newer: which dancehall reads it).
pub async fn explain<T>(
    pool: &SqlitePool,
    db: &Path,
    result: anyhow::Result<T>,
) -> anyhow::Result<T> {
    let e = match result {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    match store::schema_lag(pool).await {
        Ok(lag) if !lag.is_current() => Err(e.context(lag_said(db, &lag))),
        _ => Err(e),
    }
}

/// `F: <how its schema stands>; <what to do>`: `dancehall migrate` for an older database,
/// the dancehall that wrote it for a newer one.
pub fn lag_said(db: &Path, lag: &store::SchemaLag) -> String {
    let advice = if lag.unknown.is_empty() {
        format!(
            "`dancehall migrate --db {}` brings it up to date",
            db.display()
        )
    } else {
        "read it with the dancehall that wrote it".to_owned()
    };
    format!("{}: {lag}; {advice}", db.display())
}
