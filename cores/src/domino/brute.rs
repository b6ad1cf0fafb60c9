//! A plainly written exhaustive maximiser for tiny instances, the reference the native
//! optimiser is tested against. It shares no code with `native`: for each tile in index order
//! it tries "not placed" and every position, orientation and mirroring that keeps the partial
//! placement legal, and keeps the largest placement found. Its only pruning is "even placing
//! every remaining tile cannot beat the best so far". Exponential: boards up to about 5 x 5
//! with up to about 6 tiles.

use super::{Instance, Orientation, Placement};

/// A maximum placement of `instance` (one of possibly many).
pub fn brute_force(instance: &Instance) -> Vec<Placement> {
    let n = instance.n as usize;
    let mut search = Brute {
        inst: instance,
        n,
        grid: vec![None; n * n],
        current: Vec::new(),
        best: Vec::new(),
    };
    search.go(0);
    search.best
}

struct Brute<'a> {
    inst: &'a Instance,
    n: usize,
    /// Per cell: the tile index covering it and the value it shows.
    grid: Vec<Option<(usize, u32)>>,
    current: Vec<Placement>,
    best: Vec<Placement>,
}

impl Brute<'_> {
    fn go(&mut self, tile: usize) {
        if self.current.len() > self.best.len() {
            self.best = self.current.clone();
        }
        let m = self.inst.tiles.len();
        if tile == m || self.current.len() + (m - tile) <= self.best.len() {
            return;
        }
        let values = self.inst.tiles[tile];
        for orientation in [Orientation::H, Orientation::V] {
            for mirrored in [false, true] {
                for row in 0..self.n {
                    for col in 0..self.n {
                        let cells = match orientation {
                            Orientation::H => [(row, col), (row, col + 1), (row, col + 2)],
                            Orientation::V => [(row, col), (row + 1, col), (row + 2, col)],
                        };
                        let shown = if mirrored {
                            [values[2], values[1], values[0]]
                        } else {
                            values
                        };
                        if self.fits(tile, &cells, &shown) {
                            for (&(r, c), &v) in cells.iter().zip(&shown) {
                                self.grid[r * self.n + c] = Some((tile, v));
                            }
                            self.current.push(Placement {
                                tile: tile as u32,
                                row: row as u32,
                                col: col as u32,
                                orientation,
                                mirrored,
                            });
                            self.go(tile + 1);
                            self.current.pop();
                            for &(r, c) in &cells {
                                self.grid[r * self.n + c] = None;
                            }
                        }
                    }
                }
            }
        }
        self.go(tile + 1);
    }

    /// Inside the board, on empty cells, and equal to every other tile's touching cell.
    fn fits(&self, tile: usize, cells: &[(usize, usize); 3], shown: &[u32; 3]) -> bool {
        let n = self.n;
        for (&(r, c), &v) in cells.iter().zip(shown) {
            if r >= n || c >= n || self.grid[r * n + c].is_some() {
                return false;
            }
            let mut around = vec![(r + 1, c), (r, c + 1)];
            if r > 0 {
                around.push((r - 1, c));
            }
            if c > 0 {
                around.push((r, c - 1));
            }
            for (r2, c2) in around {
                if r2 < n && c2 < n {
                    if let Some((other, w)) = self.grid[r2 * n + c2] {
                        if other != tile && w != v {
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}
