//! Instances and placements of the domino benchmark (seed 001, "Problem Definition").
//!
//! A tile is three values in `0..=k`, covering three consecutive cells horizontally ("H") or
//! vertically ("V"); `mirrored` means the first (top or left) cell carries the tile's third
//! value. Rows and columns are 0-based; (row, col) is the tile's top-left cell.

use crate::label::Label;
use serde::{Deserialize, Serialize};
use strum::{EnumString, IntoStaticStr, VariantArray};

/// How an instance was drawn: seed 001's three classes ("Description of Tests") and `Tight`,
/// the "significantly more complex problem instances" of its "Further Considerations" (Figure
/// 9): boards of 7 to 14 cells a side whose tiles would cover 0.9 to 1.2 times the board.
/// `crate::domino::generate` holds the ranges of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
    Tight,
}

impl Difficulty {
    /// The letter of generated ids (`b01-e1`, `b01-m1`, `b01-h1`, `b01-t1`).
    pub fn letter(self) -> char {
        match self {
            Difficulty::Easy => 'e',
            Difficulty::Medium => 'm',
            Difficulty::Hard => 'h',
            Difficulty::Tight => 't',
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    pub id: String,
    pub difficulty: Difficulty,
    pub n: u32,
    pub k: u32,
    pub tiles: Vec<[u32; 3]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Orientation {
    #[serde(rename = "H")]
    H,
    #[serde(rename = "V")]
    V,
}

/// One placed tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    /// Index into the instance's `tiles`.
    pub tile: u32,
    pub row: u32,
    pub col: u32,
    pub orientation: Orientation,
    pub mirrored: bool,
}

impl Placement {
    /// The three cells (row, col) the tile covers, top/left first.
    pub fn cells(&self) -> [(u32, u32); 3] {
        match self.orientation {
            Orientation::H => [
                (self.row, self.col),
                (self.row, self.col + 1),
                (self.row, self.col + 2),
            ],
            Orientation::V => [
                (self.row, self.col),
                (self.row + 1, self.col),
                (self.row + 2, self.col),
            ],
        }
    }

    /// The values on the three cells, in the order of [`Placement::cells`].
    pub fn values(&self, tile: [u32; 3]) -> [u32; 3] {
        if self.mirrored {
            [tile[2], tile[1], tile[0]]
        } else {
            tile
        }
    }
}

/// The largest board side the readers accept: larger boards are no benchmark instance of seed
/// 001's shape (hard and tight boards are at most 14 x 14) and would only exhaust memory.
pub const MAX_N: u32 = 64;

/// A problem with one line of a batch file. The CLI adds the file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct InstanceError {
    /// 1-based line number in the batch text.
    pub line: usize,
    pub problem: InstanceProblem,
}

/// What is wrong with an instance line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstanceProblem {
    #[error("malformed JSON: {0}")]
    Json(String),
    #[error("expected a JSON object")]
    NotAnObject,
    #[error("missing field `{0}`")]
    MissingField(&'static str),
    #[error("field `{field}`: {expected}")]
    BadField {
        field: &'static str,
        expected: &'static str,
    },
    #[error("n = {0}: the board side must be at least 3")]
    BoardTooSmall(u64),
    #[error("n = {0}: boards larger than {MAX_N} x {MAX_N} are not supported")]
    BoardTooLarge(u64),
    #[error("tile {index} has {len} values; a tile has exactly 3")]
    TileArity { index: usize, len: usize },
    #[error("tile {index} has value {value} outside 0..={k}")]
    ValueOutOfRange { index: usize, value: u64, k: u32 },
    #[error("duplicate id {id:?} (first on line {first_line})")]
    DuplicateId { id: String, first_line: usize },
}

/// Reads a batch: one JSON instance per line, blank lines skipped. Unknown fields are ignored.
pub fn parse_batch(text: &str) -> Result<Vec<Instance>, InstanceError> {
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let inst = parse_line(raw).map_err(|problem| InstanceError { line, problem })?;
        if let Some(&first_line) = seen.get(&inst.id) {
            return Err(InstanceError {
                line,
                problem: InstanceProblem::DuplicateId {
                    id: inst.id,
                    first_line,
                },
            });
        }
        seen.insert(inst.id.clone(), line);
        out.push(inst);
    }
    Ok(out)
}

/// Reads one instance from one JSON line.
pub fn parse_line(text: &str) -> Result<Instance, InstanceProblem> {
    use serde_json::Value;
    let value: Value =
        serde_json::from_str(text).map_err(|e| InstanceProblem::Json(e.to_string()))?;
    let obj = value.as_object().ok_or(InstanceProblem::NotAnObject)?;
    let field = |name: &'static str| obj.get(name).ok_or(InstanceProblem::MissingField(name));
    let bad =
        |field: &'static str, expected: &'static str| InstanceProblem::BadField { field, expected };

    let id = field("id")?
        .as_str()
        .ok_or(bad("id", "expected a string"))?
        .to_owned();
    let Some(difficulty) = field("difficulty")?.as_str().and_then(Difficulty::parse) else {
        return Err(bad(
            "difficulty",
            "expected \"easy\", \"medium\", \"hard\" or \"tight\"",
        ));
    };
    let n = field("n")?
        .as_u64()
        .ok_or(bad("n", "expected a non-negative integer"))?;
    if n < 3 {
        return Err(InstanceProblem::BoardTooSmall(n));
    }
    if n > u64::from(MAX_N) {
        return Err(InstanceProblem::BoardTooLarge(n));
    }
    let k = field("k")?
        .as_u64()
        .and_then(|k| u32::try_from(k).ok())
        .ok_or(bad("k", "expected a non-negative 32-bit integer"))?;
    let list = field("tiles")?
        .as_array()
        .ok_or(bad("tiles", "expected an array of tiles"))?;
    let mut tiles = Vec::with_capacity(list.len());
    for (index, tile) in list.iter().enumerate() {
        let values = tile.as_array().ok_or(bad(
            "tiles",
            "expected each tile to be an array of 3 integers",
        ))?;
        if values.len() != 3 {
            return Err(InstanceProblem::TileArity {
                index,
                len: values.len(),
            });
        }
        let mut t = [0u32; 3];
        for (slot, v) in t.iter_mut().zip(values) {
            let v = v.as_u64().ok_or(bad(
                "tiles",
                "expected tile values to be non-negative integers",
            ))?;
            if v > u64::from(k) {
                return Err(InstanceProblem::ValueOutOfRange { index, value: v, k });
            }
            *slot = v as u32;
        }
        tiles.push(t);
    }
    Ok(Instance {
        id,
        difficulty,
        n: n as u32,
        k,
        tiles,
    })
}

/// One JSON line (without the newline) that [`parse_batch`] reads back to the same instance.
pub fn to_json_line(instance: &Instance) -> String {
    serde_json::to_string(instance).expect("an Instance always serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"id": "b01-e1", "difficulty": "easy", "n": 5, "k": 4, "tiles": [[1, 1, 4], [1, 2, 0]]}"#;

    fn error(text: &str) -> InstanceError {
        parse_batch(text).expect_err("should be rejected")
    }

    #[test]
    fn reads_the_public_suite_format_skipping_blank_lines() {
        let text = format!("{LINE}\n\n   \n{}\n", LINE.replace("b01-e1", "b01-e2"));
        let batch = parse_batch(&text).unwrap();
        assert_eq!(batch.len(), 2);
        assert_eq!(
            batch[0],
            Instance {
                id: "b01-e1".into(),
                difficulty: Difficulty::Easy,
                n: 5,
                k: 4,
                tiles: vec![[1, 1, 4], [1, 2, 0]],
            }
        );
        assert_eq!(batch[1].id, "b01-e2");
    }

    #[test]
    fn difficulties_round_trip_through_their_names_and_have_distinct_letters() {
        for &d in Difficulty::ALL {
            assert_eq!(Difficulty::parse(d.as_str()), Some(d));
            let line = LINE.replace("\"easy\"", &format!("{:?}", d.as_str()));
            assert_eq!(parse_line(&line).unwrap().difficulty, d);
        }
        let letters: std::collections::BTreeSet<char> =
            Difficulty::ALL.iter().map(|d| d.letter()).collect();
        assert_eq!(letters.len(), Difficulty::ALL.len());
        assert_eq!(Difficulty::Tight.letter(), 't');
    }

    #[test]
    fn round_trips_through_json_lines() {
        let batch = parse_batch(LINE).unwrap();
        let text: String = batch.iter().map(|i| to_json_line(i) + "\n").collect();
        assert_eq!(parse_batch(&text).unwrap(), batch);
        assert!(!to_json_line(&batch[0]).contains('\n'));
    }

    #[test]
    fn errors_name_the_line_and_the_problem() {
        let bad = |from: &str, to: &str| format!("{LINE}\n\n{}\n", LINE.replace(from, to));
        let cases: Vec<(String, InstanceProblem)> = vec![
            (
                bad("[1, 2, 0]]", "[1, 2, 5]]"),
                InstanceProblem::ValueOutOfRange {
                    index: 1,
                    value: 5,
                    k: 4,
                },
            ),
            (
                bad("\"n\": 5", "\"n\": 2"),
                InstanceProblem::BoardTooSmall(2),
            ),
            (
                bad("\"n\": 5", "\"n\": 65"),
                InstanceProblem::BoardTooLarge(65),
            ),
            (
                bad("[1, 2, 0]]", "[1, 2]]"),
                InstanceProblem::TileArity { index: 1, len: 2 },
            ),
            (
                bad("[1, 1, 4]", "[1, 1, 4, 4]"),
                InstanceProblem::TileArity { index: 0, len: 4 },
            ),
            (bad("\"k\": 4, ", ""), InstanceProblem::MissingField("k")),
            (
                bad("\"id\": \"b01-e1\", ", ""),
                InstanceProblem::MissingField("id"),
            ),
            (
                bad("\"easy\"", "\"tricky\""),
                InstanceProblem::BadField {
                    field: "difficulty",
                    expected: "expected \"easy\", \"medium\", \"hard\" or \"tight\"",
                },
            ),
            (
                bad("[1, 1, 4]", "[1, -1, 4]"),
                InstanceProblem::BadField {
                    field: "tiles",
                    expected: "expected tile values to be non-negative integers",
                },
            ),
            (
                format!("{LINE}\n\n{LINE}\n"),
                InstanceProblem::DuplicateId {
                    id: "b01-e1".into(),
                    first_line: 1,
                },
            ),
            (
                "{LINE}\n\n[1, 2]\n".replace("{LINE}", LINE),
                InstanceProblem::NotAnObject,
            ),
        ];
        for (text, problem) in cases {
            assert_eq!(error(&text), InstanceError { line: 3, problem }, "{text}");
        }
        let e = error(&format!("{LINE}\n{{\"id\": \"x\",\n"));
        assert_eq!(e.line, 2);
        assert!(matches!(e.problem, InstanceProblem::Json(_)));
        assert!(e.to_string().starts_with("line 2: malformed JSON"), "{e}");
    }
}
