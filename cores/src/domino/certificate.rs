//! What `dancehall domino certify` found out about a claim "`k` tiles do not fit" on one
//! instance, checked outside the solver that made it: one record, written by the CLI, kept by
//! the results database (`bound_certificates`) and read by the report.
//!
//! Two outcomes are facts and are recorded: a DRAT proof that an independent checker verified
//! ([`Verdict::Certified`]: the optimum is at most `k - 1`), and a placement of at least `k`
//! tiles that [`super::verify()`] accepted ([`Verdict::Fits`]: the optimum is at least its
//! size). A rejected proof or a solver stopped by its time limit proves nothing and is not
//! recorded.
//!
//! Invariant: a record names its instance by [`instance_sha256`] of the instance's canonical
//! JSON line (its id included), so a certificate applies to a benchmark's instance exactly
//! when their contents are equal, whatever the files' spacing; a `Fits` record's placement
//! is legal on that instance and has at least `tiles` tiles, a `Certified` record's is empty.

use serde::{Deserialize, Serialize};
use strum::{EnumString, IntoStaticStr, VariantArray};

use super::{to_json_line, verify, Instance, Placement};
use crate::bench::sha256_hex;

/// How the claim "`tiles` tiles do not fit" was settled (its names from
/// [`crate::label::Label`]: `certified`, `fits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Verdict {
    /// A refutation whose DRAT proof the checker verified.
    Certified,
    /// A verified placement of at least `tiles` tiles: the claim is false.
    Fits,
}

/// One settled claim on one instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Certificate {
    /// The instance's id, as the batch file names it.
    pub instance: String,
    /// [`instance_sha256`] of the instance.
    pub instance_sha256: String,
    /// The claim: this many tiles do not fit.
    pub tiles: u32,
    pub verdict: Verdict,
    /// `Fits`: the verified placement; `Certified`: empty.
    pub placement: Vec<Placement>,
    /// SHA-256 of the formula's DIMACS text (`FitCnf::dimacs`).
    pub formula_sha256: String,
    /// The solver binary and its version as it prints it (`cadical sc2021` for Debian's
    /// 1.5.3-2); `None` when the proof was given.
    pub solver: Option<String>,
    /// The solver's wall seconds; `None` when the proof was given.
    pub solver_seconds: Option<f64>,
    /// `Certified`: the proof's size in bytes and the checker (`rate 0.3.0`) with its wall
    /// seconds.
    pub proof_bytes: Option<u64>,
    pub checker: Option<String>,
    pub checker_seconds: Option<f64>,
    /// The solver's and the checker's peak memory where the process runner measured it
    /// (absent in records made before it was measured).
    #[serde(default)]
    pub solver_peak_memory_bytes: Option<u64>,
    #[serde(default)]
    pub checker_peak_memory_bytes: Option<u64>,
    /// Where it ran.
    pub host: String,
    pub dancehall_version: String,
}

/// Why a certificate does not hold together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    #[error("it is for instance {want}, not {got}")]
    OtherInstance { want: String, got: String },
    #[error("its placement has {placed} tiles, fewer than the {tiles} of its claim")]
    TooFew { placed: usize, tiles: u32 },
    #[error("its placement is not legal: {0}")]
    Illegal(String),
    #[error("a certified refutation carries a placement")]
    PlacementOnProof,
    #[error("a claim of 0 tiles")]
    NoTiles,
}

impl Certificate {
    /// The upper bound it proves: `tiles - 1` when certified (none for a claim of 0 tiles,
    /// which [`Certificate::check`] refuses).
    pub fn bound(&self) -> Option<u32> {
        self.tiles
            .checked_sub(1)
            .filter(|_| self.verdict == Verdict::Certified)
    }

    /// The lower bound it proves: the placement's size when the tiles fit.
    pub fn placed(&self) -> Option<u32> {
        (self.verdict == Verdict::Fits).then_some(self.placement.len() as u32)
    }

    /// Checks the record against `inst` (the same content, a legal placement of enough tiles
    /// when it fits), with the independent checker.
    pub fn check(&self, inst: &Instance) -> Result<(), CertificateError> {
        let sha = instance_sha256(inst);
        if sha != self.instance_sha256 {
            return Err(CertificateError::OtherInstance {
                want: sha,
                got: self.instance_sha256.clone(),
            });
        }
        if self.tiles == 0 {
            return Err(CertificateError::NoTiles);
        }
        match self.verdict {
            Verdict::Certified if !self.placement.is_empty() => {
                Err(CertificateError::PlacementOnProof)
            }
            Verdict::Certified => Ok(()),
            Verdict::Fits => {
                verify(inst, &self.placement)
                    .map_err(|v| CertificateError::Illegal(v.to_string()))?;
                if self.placement.len() < self.tiles as usize {
                    return Err(CertificateError::TooFew {
                        placed: self.placement.len(),
                        tiles: self.tiles,
                    });
                }
                Ok(())
            }
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a certificate serialises")
    }

    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// The name of an instance's content: SHA-256 of its canonical JSON line
/// ([`to_json_line`]).
pub fn instance_sha256(inst: &Instance) -> String {
    sha256_hex(&to_json_line(inst))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domino::{parse_line, Orientation};
    use crate::label::Label;

    /// b01-e3 of the public suite: 3 tiles on 5 x 5.
    const E3: &str = r#"{"id": "e3", "difficulty": "easy", "n": 5, "k": 4,
        "tiles": [[0, 3, 4], [2, 0, 2], [2, 3, 4]]}"#;

    fn e3() -> Instance {
        parse_line(&E3.replace('\n', " ")).unwrap()
    }

    fn fits(inst: &Instance, placement: Vec<Placement>, tiles: u32) -> Certificate {
        Certificate {
            instance: inst.id.clone(),
            instance_sha256: instance_sha256(inst),
            tiles,
            verdict: Verdict::Fits,
            placement,
            formula_sha256: "f".into(),
            solver: Some("cadical 1.5.3-2".into()),
            solver_seconds: Some(0.5),
            proof_bytes: None,
            checker: None,
            checker_seconds: None,
            solver_peak_memory_bytes: None,
            checker_peak_memory_bytes: None,
            host: "h".into(),
            dancehall_version: "0".into(),
        }
    }

    fn at(tile: u32, row: u32, col: u32) -> Placement {
        Placement {
            tile,
            row,
            col,
            orientation: Orientation::H,
            mirrored: false,
        }
    }

    #[test]
    fn a_certificate_names_its_instance_by_content_and_is_checked_against_it() {
        let inst = e3();
        // Spacing does not change the name; a changed value does.
        let spaced = parse_line(&E3.replace('\n', " ").replace(", ", ",  ")).unwrap();
        assert_eq!(instance_sha256(&inst), instance_sha256(&spaced));
        let mut other = inst.clone();
        other.tiles[0][0] = 1;
        assert_ne!(instance_sha256(&inst), instance_sha256(&other));

        // Two tiles far apart fit; as a claim of 2 tiles it holds, of 3 it has too few.
        let two = vec![at(0, 0, 0), at(1, 4, 0)];
        let c = fits(&inst, two.clone(), 2);
        assert_eq!(c.check(&inst), Ok(()));
        assert_eq!((c.placed(), c.bound()), (Some(2), None));
        assert!(matches!(
            fits(&inst, two.clone(), 3).check(&inst),
            Err(CertificateError::TooFew {
                placed: 2,
                tiles: 3
            })
        ));
        assert!(matches!(
            c.check(&other),
            Err(CertificateError::OtherInstance { .. })
        ));
        // Tiles 0 and 1 side by side touch with 4 against 2: refused by `verify`.
        let touching = vec![at(0, 0, 0), at(1, 1, 0)];
        assert!(matches!(
            fits(&inst, touching, 2).check(&inst),
            Err(CertificateError::Illegal(_))
        ));

        // A certified refutation proves tiles - 1 and carries no placement.
        let proof = Certificate {
            verdict: Verdict::Certified,
            placement: vec![],
            proof_bytes: Some(10),
            checker: Some("rate 0.3.0".into()),
            checker_seconds: Some(0.1),
            ..fits(&inst, vec![], 4)
        };
        assert_eq!(proof.check(&inst), Ok(()));
        assert_eq!((proof.bound(), proof.placed()), (Some(3), None));
        let bad = Certificate {
            placement: two,
            ..proof.clone()
        };
        assert_eq!(bad.check(&inst), Err(CertificateError::PlacementOnProof));

        // The record survives its JSON, and the verdicts their names.
        assert_eq!(Certificate::from_json(&proof.to_json()).unwrap(), proof);
        for v in Verdict::ALL {
            assert_eq!(Verdict::parse(v.as_str()), Some(*v));
        }
        assert_eq!(Verdict::parse("rejected"), None);
    }
}
