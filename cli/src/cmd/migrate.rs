//! `dancehall migrate --db FILE`: runs this build's schema migrations on a database that an
//! older dancehall wrote, so that `query`, `report` and `ledger` (which open a database
//! read-only and never migrate it) see the newer views' columns. Takes the database's lock
//! first, as a coordinator does: a database in use by a running coordinator is refused, named.
//! Each migration runs in its own transaction (sqlx), so a failure leaves the database at the
//! last migration that completed, never half-way through one. Another program's SQLite file
//! (tables, no dancehall migrations) is refused, named, and left as it was.

use std::path::PathBuf;

use coordinator::store;

use crate::exit::user_error;

#[derive(clap::Args, Debug)]
pub struct MigrateArgs {
    /// The database to bring up to date (it must exist: `migrate` creates none).
    #[arg(long, default_value = store::DEFAULT_DB_PATH)]
    pub db: PathBuf,
}

pub fn run(a: MigrateArgs) -> anyhow::Result<()> {
    if !a.db.exists() {
        // Before the lock, whose file would otherwise be left beside no database.
        return Err(user_error(format!("{}: no such database", a.db.display())));
    }
    let _lock = crate::cluster::lock_database(&a.db, None)?;
    let rt = crate::runtime::current_thread()?;
    let lag = rt.block_on(async {
        let pool = crate::database::open_read_only(&a.db).await?;
        let lag = store::schema_lag(&pool).await;
        pool.close().await;
        Ok::<_, anyhow::Error>(lag?)
    })?;
    if !lag.unknown.is_empty() {
        return Err(user_error(format!(
            "{}; not migrated",
            crate::database::lag_said(&a.db, &lag)
        )));
    }
    if lag.missing.is_empty() {
        println!("{}: already up to date", a.db.display());
        return Ok(());
    }
    rt.block_on(async {
        let pool = store::open(&a.db).await.map_err(|e| match e {
            e @ store::StoreError::Foreign { .. } => user_error(format!("{e}; not migrated")),
            e => anyhow::Error::new(e).context(format!("migrating {}", a.db.display())),
        })?;
        pool.close().await;
        Ok::<_, anyhow::Error>(())
    })?;
    let (version, description) = lag.missing.last().expect("missing is not empty");
    println!(
        "{}: {} migration{} applied, up to {version} {description}",
        a.db.display(),
        lag.missing.len(),
        if lag.missing.len() == 1 { "" } else { "s" }
    );
    Ok(())
}
