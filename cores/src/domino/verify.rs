//! The independent checker of domino placements (seed 001, "Constraints for Tile Placement").
//!
//! Invariant: a placement passes iff every tile index is in range and used at most once, every
//! tile lies inside the board, no two tiles share a cell, and wherever cells of two different
//! placed tiles are orthogonally adjacent their values are equal (seed 001 cases 1A-1D, 2A-2D,
//! 3A-3H, 4; a corner-only contact imposes nothing). This module shares no code with the
//! solvers: it recomputes cells and values from the placement's documented meaning instead of
//! calling [`Placement::cells`] or [`Placement::values`].

use super::{Instance, Orientation, Placement};

/// Why a placement is wrong. Placement positions are indices into the checked slice.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    #[error("placement {placement}: tile index {tile} is not below the {tiles} tiles")]
    UnknownTile {
        placement: usize,
        tile: u32,
        tiles: usize,
    },
    #[error("tile {tile} is placed twice (placements {first} and {second})")]
    TileReused {
        tile: u32,
        first: usize,
        second: usize,
    },
    #[error("placement {placement} leaves the {n} x {n} board")]
    OutsideBoard { placement: usize, n: u32 },
    #[error("placements {first} and {second} both cover cell ({row}, {col})")]
    Overlap {
        first: usize,
        second: usize,
        row: u32,
        col: u32,
    },
    #[error(
        "placements {first} and {second} touch with unequal values: \
         ({r1}, {c1}) = {v1} next to ({r2}, {c2}) = {v2}"
    )]
    Mismatch {
        first: usize,
        second: usize,
        r1: u32,
        c1: u32,
        v1: u32,
        r2: u32,
        c2: u32,
        v2: u32,
    },
}

/// Checks `placement` against `instance`; `Ok(())` iff it is a legal placement.
pub fn verify(instance: &Instance, placement: &[Placement]) -> Result<(), Violation> {
    let n = u64::from(instance.n);
    let side = instance.n as usize;
    // grid[r][c] = Some((placement position, value)).
    let mut grid: Vec<Vec<Option<(usize, u32)>>> = vec![vec![None; side]; side];
    let mut first_use: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();

    for (pos, p) in placement.iter().enumerate() {
        let Some(tile) = instance.tiles.get(p.tile as usize) else {
            return Err(Violation::UnknownTile {
                placement: pos,
                tile: p.tile,
                tiles: instance.tiles.len(),
            });
        };
        if let Some(&first) = first_use.get(&p.tile) {
            return Err(Violation::TileReused {
                tile: p.tile,
                first,
                second: pos,
            });
        }
        first_use.insert(p.tile, pos);

        // The three cells, top/left first, and the values they carry.
        let (dr, dc) = match p.orientation {
            Orientation::H => (0u64, 1u64),
            Orientation::V => (1, 0),
        };
        let (r0, c0) = (u64::from(p.row), u64::from(p.col));
        if r0 + 2 * dr >= n || c0 + 2 * dc >= n {
            return Err(Violation::OutsideBoard {
                placement: pos,
                n: instance.n,
            });
        }
        for i in 0..3u64 {
            let value = if p.mirrored {
                tile[2 - i as usize]
            } else {
                tile[i as usize]
            };
            let (r, c) = ((r0 + i * dr) as usize, (c0 + i * dc) as usize);
            if let Some((other, _)) = grid[r][c] {
                return Err(Violation::Overlap {
                    first: other,
                    second: pos,
                    row: r as u32,
                    col: c as u32,
                });
            }
            grid[r][c] = Some((pos, value));
        }
    }

    // Every orthogonally adjacent pair of covered cells, each pair once (right and down).
    for r in 0..side {
        for c in 0..side {
            let Some((a, va)) = grid[r][c] else { continue };
            let neighbours = [(r, c + 1), (r + 1, c)];
            for (r2, c2) in neighbours {
                if r2 >= side || c2 >= side {
                    continue;
                }
                if let Some((b, vb)) = grid[r2][c2] {
                    if a != b && va != vb {
                        return Err(Violation::Mismatch {
                            first: a.min(b),
                            second: a.max(b),
                            r1: r as u32,
                            c1: c as u32,
                            v1: va,
                            r2: r2 as u32,
                            c2: c2 as u32,
                            v2: vb,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domino::Difficulty;
    use Orientation::{H, V};

    fn at(tile: u32, row: u32, col: u32, orientation: Orientation, mirrored: bool) -> Placement {
        Placement {
            tile,
            row,
            col,
            orientation,
            mirrored,
        }
    }

    fn instance(n: u32, tiles: Vec<[u32; 3]>) -> Instance {
        Instance {
            id: "t".into(),
            difficulty: Difficulty::Easy,
            n,
            k: 9,
            tiles,
        }
    }

    /// One contact case of seed 001: tile 0 = `a` at `pa`, tile 1 at `pb`; with `good` as
    /// tile 1 every touching pair is equal, with `bad` one touching pair differs.
    struct Case {
        name: &'static str,
        a: [u32; 3],
        pa: (u32, u32, Orientation, bool),
        good: [u32; 3],
        bad: [u32; 3],
        pb: (u32, u32, Orientation, bool),
    }

    fn check(case: &Case) {
        let place = |p: (u32, u32, Orientation, bool), t| at(t, p.0, p.1, p.2, p.3);
        for (b, accepted) in [(case.good, true), (case.bad, false)] {
            let inst = instance(7, vec![case.a, b]);
            // Both orders: case 4 is case 3 with the roles of i and j swapped.
            for placement in [
                vec![place(case.pa, 0), place(case.pb, 1)],
                vec![place(case.pb, 1), place(case.pa, 0)],
            ] {
                let result = verify(&inst, &placement);
                if accepted {
                    assert_eq!(result, Ok(()), "{}: {b:?} should be accepted", case.name);
                } else {
                    assert!(
                        matches!(result, Err(Violation::Mismatch { .. })),
                        "{}: {b:?} should be rejected, got {result:?}",
                        case.name
                    );
                }
            }
        }
    }

    /// Seed 001's cases 1A-1D (both vertical), 2A-2D (both horizontal), 3A-3H and 4 (one of
    /// each), plus corner-only contacts, which impose nothing.
    #[test]
    fn every_contact_case_of_seed_001() {
        let cases = [
            // 1A/1B: vertical side by side, 3, 2 and 1 touching cells.
            Case {
                name: "1A three",
                a: [1, 2, 3],
                pa: (1, 1, V, false),
                good: [1, 2, 3],
                bad: [1, 5, 3],
                pb: (1, 2, V, false),
            },
            Case {
                name: "1A three mirrored",
                a: [1, 2, 3],
                pa: (1, 1, V, false),
                good: [3, 2, 1],
                bad: [1, 2, 3],
                pb: (1, 0, V, true),
            },
            Case {
                name: "1A two lower",
                a: [1, 2, 3],
                pa: (1, 1, V, false),
                good: [2, 3, 8],
                bad: [2, 4, 8],
                pb: (2, 2, V, false),
            },
            Case {
                name: "1A two upper",
                a: [1, 2, 3],
                pa: (1, 1, V, false),
                good: [8, 1, 2],
                bad: [8, 1, 3],
                pb: (0, 0, V, false),
            },
            Case {
                name: "1A one lower",
                a: [1, 2, 3],
                pa: (1, 1, V, false),
                good: [3, 8, 8],
                bad: [4, 8, 8],
                pb: (3, 2, V, false),
            },
            Case {
                name: "1A one upper",
                a: [1, 2, 3],
                pa: (2, 1, V, false),
                good: [8, 8, 1],
                bad: [8, 8, 2],
                pb: (0, 0, V, false),
            },
            // 1D: same column, end to end.
            Case {
                name: "1D below",
                a: [1, 2, 3],
                pa: (0, 1, V, false),
                good: [3, 8, 8],
                bad: [1, 8, 8],
                pb: (3, 1, V, false),
            },
            Case {
                name: "1D above mirrored",
                a: [1, 2, 3],
                pa: (3, 1, V, false),
                good: [1, 8, 8],
                bad: [8, 8, 1],
                pb: (0, 1, V, true),
            },
            // 2A/2B: horizontal stacked, 3, 2 and 1 touching cells.
            Case {
                name: "2A three",
                a: [1, 2, 3],
                pa: (1, 1, H, false),
                good: [1, 2, 3],
                bad: [1, 2, 4],
                pb: (0, 1, H, false),
            },
            Case {
                name: "2B three mirrored",
                a: [1, 2, 3],
                pa: (1, 1, H, true),
                good: [3, 2, 1],
                bad: [1, 2, 3],
                pb: (2, 1, H, false),
            },
            Case {
                name: "2A two right",
                a: [1, 2, 3],
                pa: (1, 1, H, false),
                good: [2, 3, 8],
                bad: [2, 2, 8],
                pb: (2, 2, H, false),
            },
            Case {
                name: "2A two left",
                a: [1, 2, 3],
                pa: (1, 1, H, false),
                good: [8, 1, 2],
                bad: [8, 1, 1],
                pb: (0, 0, H, false),
            },
            Case {
                name: "2A one right",
                a: [1, 2, 3],
                pa: (1, 1, H, false),
                good: [3, 8, 8],
                bad: [2, 8, 8],
                pb: (0, 3, H, false),
            },
            Case {
                name: "2A one left",
                a: [1, 2, 3],
                pa: (1, 2, H, false),
                good: [8, 8, 1],
                bad: [8, 8, 3],
                pb: (2, 0, H, false),
            },
            // 2C: same row, end to end.
            Case {
                name: "2C right",
                a: [1, 2, 3],
                pa: (1, 0, H, false),
                good: [3, 8, 8],
                bad: [8, 8, 3],
                pb: (1, 3, H, false),
            },
            Case {
                name: "2C left mirrored",
                a: [1, 2, 3],
                pa: (1, 3, H, false),
                good: [1, 8, 8],
                bad: [8, 8, 1],
                pb: (1, 0, H, true),
            },
            // 3A: horizontal above a vertical: left corner, centre, right corner.
            Case {
                name: "3A left",
                a: [1, 2, 3],
                pa: (0, 1, H, false),
                good: [1, 8, 8],
                bad: [2, 8, 8],
                pb: (1, 1, V, false),
            },
            Case {
                name: "3A centre",
                a: [1, 2, 3],
                pa: (0, 1, H, false),
                good: [2, 8, 8],
                bad: [3, 8, 8],
                pb: (1, 2, V, false),
            },
            Case {
                name: "3A right",
                a: [1, 2, 3],
                pa: (0, 1, H, false),
                good: [3, 8, 8],
                bad: [1, 8, 8],
                pb: (1, 3, V, false),
            },
            // 3B: vertical on the left of a horizontal: upper, centre, lower.
            Case {
                name: "3B upper",
                a: [1, 2, 3],
                pa: (2, 1, H, false),
                good: [1, 8, 8],
                bad: [8, 8, 1],
                pb: (2, 0, V, false),
            },
            Case {
                name: "3B centre",
                a: [1, 2, 3],
                pa: (2, 1, H, false),
                good: [8, 1, 8],
                bad: [1, 8, 8],
                pb: (1, 0, V, false),
            },
            Case {
                name: "3B lower",
                a: [1, 2, 3],
                pa: (2, 1, H, false),
                good: [8, 8, 1],
                bad: [8, 1, 8],
                pb: (0, 0, V, false),
            },
            // 3C: horizontal below a vertical.
            Case {
                name: "3C left",
                a: [1, 2, 3],
                pa: (3, 1, H, false),
                good: [8, 8, 1],
                bad: [8, 8, 2],
                pb: (0, 1, V, false),
            },
            Case {
                name: "3C centre",
                a: [1, 2, 3],
                pa: (3, 1, H, false),
                good: [8, 8, 2],
                bad: [8, 2, 8],
                pb: (0, 2, V, false),
            },
            Case {
                name: "3C right mirrored",
                a: [1, 2, 3],
                pa: (3, 1, H, false),
                good: [3, 8, 8],
                bad: [8, 8, 3],
                pb: (0, 3, V, true),
            },
            // 3D: vertical on the right of a horizontal.
            Case {
                name: "3D upper",
                a: [1, 2, 3],
                pa: (2, 0, H, false),
                good: [3, 8, 8],
                bad: [8, 3, 8],
                pb: (2, 3, V, false),
            },
            Case {
                name: "3D centre",
                a: [1, 2, 3],
                pa: (2, 0, H, false),
                good: [8, 3, 8],
                bad: [8, 8, 3],
                pb: (1, 3, V, false),
            },
            Case {
                name: "3D lower",
                a: [1, 2, 3],
                pa: (2, 0, H, false),
                good: [8, 8, 3],
                bad: [3, 8, 8],
                pb: (0, 3, V, false),
            },
            // T contacts: the end of one tile against the middle of the other.
            Case {
                name: "T vertical end on horizontal middle",
                a: [1, 2, 3],
                pa: (0, 0, H, false),
                good: [2, 8, 8],
                bad: [8, 8, 2],
                pb: (1, 1, V, false),
            },
            Case {
                name: "T horizontal end on vertical middle",
                a: [1, 2, 3],
                pa: (0, 3, V, false),
                good: [8, 8, 2],
                bad: [2, 8, 8],
                pb: (1, 0, H, false),
            },
        ];
        for case in &cases {
            check(case);
        }
    }

    /// Non-touching placements (1C, 2D, 3E-3H) and corner-only contacts accept any values.
    #[test]
    fn non_touching_and_corner_only_placements_accept_any_values() {
        let a = [1, 2, 3];
        let b = [7, 7, 7];
        let pairs = [
            ("1C columns apart", (0, 0, V, false), (0, 2, V, false)),
            ("1C same column gap", (0, 1, V, false), (4, 1, V, false)),
            ("2D same row gap", (1, 0, H, false), (1, 4, H, false)),
            ("2D rows apart", (0, 0, H, false), (2, 0, H, false)),
            ("3E vertical far left", (0, 2, H, false), (0, 0, V, false)),
            ("3F vertical far right", (0, 0, H, false), (0, 4, V, false)),
            ("3G vertical far above", (4, 0, H, false), (0, 0, V, false)),
            ("3H vertical far below", (0, 0, H, false), (2, 1, V, false)),
            ("corner H H", (0, 0, H, false), (1, 3, H, false)),
            ("corner V V", (0, 0, V, false), (3, 1, V, false)),
            (
                "corner V below-right of H",
                (0, 0, H, false),
                (1, 3, V, false),
            ),
            (
                "corner H below-right of V",
                (0, 0, V, false),
                (3, 1, H, false),
            ),
            (
                "corner V below-left of H",
                (0, 1, H, false),
                (1, 0, V, false),
            ),
        ];
        for (name, pa, pb) in pairs {
            let inst = instance(7, vec![a, b]);
            let placement = [at(0, pa.0, pa.1, pa.2, pa.3), at(1, pb.0, pb.1, pb.2, pb.3)];
            assert_eq!(verify(&inst, &placement), Ok(()), "{name}");
        }
    }

    #[test]
    fn index_reuse_board_and_overlap_violations() {
        let inst = instance(4, vec![[1, 1, 1], [1, 1, 1]]);
        assert!(matches!(
            verify(&inst, &[at(2, 0, 0, H, false)]),
            Err(Violation::UnknownTile { tile: 2, .. })
        ));
        assert!(matches!(
            verify(&inst, &[at(0, 0, 0, H, false), at(0, 2, 0, H, false)]),
            Err(Violation::TileReused {
                tile: 0,
                first: 0,
                second: 1
            })
        ));
        assert!(matches!(
            verify(&inst, &[at(0, 0, 2, H, false)]),
            Err(Violation::OutsideBoard { placement: 0, .. })
        ));
        assert!(matches!(
            verify(&inst, &[at(0, 2, 0, V, false)]),
            Err(Violation::OutsideBoard { .. })
        ));
        assert!(matches!(
            verify(&inst, &[at(0, u32::MAX, u32::MAX, V, false)]),
            Err(Violation::OutsideBoard { .. })
        ));
        assert_eq!(
            verify(&inst, &[at(0, 1, 0, H, false), at(1, 0, 1, V, false)]),
            Err(Violation::Overlap {
                first: 0,
                second: 1,
                row: 1,
                col: 1
            })
        );
        // Touching cells of one tile may differ; only different tiles must agree.
        let inst = instance(4, vec![[1, 2, 3]]);
        assert_eq!(verify(&inst, &[at(0, 0, 0, H, false)]), Ok(()));
        assert_eq!(verify(&inst, &[]), Ok(()));
    }
}
