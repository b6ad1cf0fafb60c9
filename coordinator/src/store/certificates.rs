//! The bound certificates of the domino benchmark (`bound_certificates`,
//! `cores::domino::Certificate`): written by `dancehall domino certify --db`, read by the
//! report. Rows are only ever added.

use cores::domino::{Certificate, Verdict};
use cores::label::Label;
use sqlx::{Row, SqlitePool};

use super::{int, Result, StoreError};
use crate::job::Millis;

/// Adds `c`, recorded at `at`; its row id.
pub async fn add_certificate(pool: &SqlitePool, c: &Certificate, at: Millis) -> Result<u64> {
    let id = sqlx::query(
        "INSERT INTO bound_certificates
             (instance_id, instance_sha256, tiles, verdict, record, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(&c.instance)
    .bind(&c.instance_sha256)
    .bind(i64::from(c.tiles))
    .bind(c.verdict.as_str())
    .bind(c.to_json())
    .bind(int(at, "time")?)
    .execute(pool)
    .await?
    .last_insert_rowid();
    Ok(id as u64)
}

/// Every certificate of the instances whose content hashes are `shas`, oldest first. A
/// database from before certificates (no such table) has none.
pub async fn certificates(pool: &SqlitePool, shas: &[String]) -> Result<Vec<Certificate>> {
    if !super::has_table(pool, "bound_certificates").await? {
        return Ok(Vec::new());
    }
    // The hashes as one JSON array, read back by SQLite's `json_each`: one statement whatever
    // their number, by the (instance_sha256, tiles) index.
    let wanted = serde_json::to_string(shas).expect("strings serialise");
    let rows = sqlx::query(
        "SELECT id, instance_sha256, verdict, record FROM bound_certificates
         WHERE instance_sha256 IN (SELECT value FROM json_each(?)) ORDER BY id",
    )
    .bind(wanted)
    .fetch_all(pool)
    .await?;
    let mut out = Vec::new();
    for r in rows {
        let sha: String = r.try_get("instance_sha256")?;
        let id: i64 = r.try_get("id")?;
        let corrupt = |why: String| StoreError::Corrupt(format!("bound certificate {id}: {why}"));
        let c = Certificate::from_json(r.try_get("record")?).map_err(|e| corrupt(e.to_string()))?;
        let verdict: String = r.try_get("verdict")?;
        if c.instance_sha256 != sha || Verdict::parse(&verdict) != Some(c.verdict) {
            return Err(corrupt("its columns and its record disagree".into()));
        }
        out.push(c);
    }
    Ok(out)
}
