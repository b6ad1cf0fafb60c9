//! Instances and placements of the domino benchmark (seed 001, "Problem Definition").
//!
//! A tile is three values in `0..=k`, covering three consecutive cells horizontally ("H") or
//! vertically ("V"); `mirrored` means the first (top or left) cell carries the tile's third
//! value. Rows and columns are 0-based; (row, col) is the tile's top-left cell.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
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
