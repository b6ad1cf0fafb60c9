//! Which tiles cannot have a long side fully covered by other tiles: a count of the empty
//! cells a placement must have beside its tiles.
//!
//! A tile reading `(r0, r1, r2)` has two long sides, each three cells that other tiles must
//! match cell by cell. Two of those cells side by side belong to one tile or, belonging to two,
//! must show equal values (they touch). So the three cells are all covered only if
//! - they show one value (`r0 = r1 = r2`: three tiles may meet there); or
//! - one tile covers all three: another tile of the same type (equal up to mirroring) lies
//!   beside it; or
//! - one tile covers the first two and not the third, so it reads `(x, r0, r1)` from one cell
//!   before the side, and the third cell, another tile's, touches the second: `r1 = r2`; or
//! - the same at the other end: `r0 = r1` and another tile reads `(r1, r2, x)`.
//!
//! For a type where only the second case can hold ([`costly`]), a long side off the board's
//! border has an empty cell beside it, or a tile of the same type lying beside it, aligned.
//! Those tiles form chains, each tile beside the next, and each chain has two long sides with
//! no tile of the type beside them, one at each end: a costly type with any tile placed has
//! at least two such sides ([`side_bound`] counts 2 for its first tile placed and 0 for the
//! others). Call `L` the sum over the placed tiles. A side on the border needs no empty cell;
//! at most `B` ([`border_tiles`]) tiles lie with a long side on the border, each saving at
//! most one of its chain's two (a chain of fewer than `n` tiles cannot reach from border to
//! border): at least `max(L - B, ceil(L / 2))` sides have an empty cell beside them. Every
//! such (tile cell, empty cell) pair is an edge of its own, and since an empty cell has at
//! most four sides, they are at most `4 (n^2 - 3 T)` with `T` tiles placed, which bounds `T`:
//! [`side_bound`], `native`'s first bound when it is below the count bound
//! (`BoundBy::Sides`). Stated in the SAT formula it did not pay (`sat.rs`).
//!
//! An LP relaxation was measured and not kept: one variable in `[0, 1]` per placement of a
//! tile type at a spot, at most one placement over each cell, at most the type's count of
//! tiles, and for each ordered pair of adjacent cells `(a, b)` and code `v`, the placements
//! showing `v` at `a` without covering `b` plus those covering `b` without `a` and showing
//! there anything that does not match `v`, at most one. Solved by HiGHS 1.16 on the first 13
//! instances of `bench-specs/domino/suite-tight/` (b01-t1 to b02-t3, the rest not run), its
//! optimum was the count bound on every one (b01-t3 27, b01-t5 15, b01-t2 33, b01-t6 48,
//! b02-t2 54, ...): never below what counting gives, above the sides bound where that one
//! applies (b01-t1 39 against 37).
//!
//! Nor does charging the empty cells by where they lie beside a side, measured on the same suite (a
//! by-hand prototype, all 20 instances) and not kept. An empty cell is beside the middle of at most
//! two long sides (of the tiles centred above and below it, or left and right of it: a tile centred
//! above it and one centred beside it would share a cell), and when it is beside two middles it is
//! beside no other long side. Charge each side that is not fully covered 1 to the empty cell beside
//! its middle, else 1/2 to each of the two beside its ends, else 1 to its one empty cell, at an
//! end. That last case needs the other two cells covered, showing the side's two values there:
//! equal values, or one tile reading them. Each empty cell then takes at most 2, plus 1/2 for each
//! side charged 1 there. So a side of a type for which the last case cannot happen needs half an
//! empty cell, where the side count gives every side a quarter (an empty cell has four sides); the
//! other sides still need a quarter. The bound is then never below the side count on any of the 20
//! boards. Only 0 to 5 costly types per board are of that kind: most have a tile reading one of
//! their value pairs. Even if every empty cell served at most two sides (not proven), the largest
//! boards would stay open: b02-t9 56 and b02-t7 56 against 49 and 50 tiles placed, b01-t10 47
//! against 42, b02-t3 52 against 47: no count of the empty cells beside sides, at two sides a cell,
//! closes them.
//!
//! What a bound must use besides the board's shape: the number of tiles of each type. With every
//! tile of the suite's b01-t3 (9 x 9, optimum 22), b01-t4 (9 x 9, 21) and b01-t5 (7 x 7, 12)
//! three times over, CaDiCaL (`sat`'s formula, by hand) places 25, 24 and 14 tiles and refutes
//! one more within 5, 32 and 1 s. With only the types that have two equal neighbouring values
//! (the only ones whose long sides other types may cover) three times over, 25 on b01-t3 and
//! 13 on b01-t5 fit, and 24 on b01-t4 does not. So the optima depend on how many tiles of each
//! type there are, of those fillers above all: an argument from the tiles' shapes and values
//! alone, as if any type could be placed again and again, stays at least 2 or 3 tiles above
//! them.
//!
//! Values compare as `model`'s codes: [`PRIVATE`] (a value one tile alone shows) equals
//! nothing, not even itself.

use super::model::{Model, PRIVATE};

/// Whether two cells of different tiles showing codes `a` and `b` may touch.
fn matches(a: u8, b: u8) -> bool {
    a == b && a != PRIVATE
}

/// Whether no tile of another type can help cover a long side of a tile of type `ty` fully
/// (only its own type's tiles can, lying beside it aligned).
fn costly(model: &Model, ty: usize) -> bool {
    let r = model.types[ty].variants[0].0;
    if matches(r[0], r[1]) && matches(r[1], r[2]) {
        return false;
    }
    // A tile of another type reading `pair` at its positions `at` and `at + 1`, in either
    // direction.
    let reads = |pair: [u8; 2], at: usize| {
        model.types.iter().enumerate().any(|(other, o)| {
            other != ty
                && o.variants
                    .iter()
                    .any(|(c, _)| matches(c[at], pair[0]) && matches(c[at + 1], pair[1]))
        })
    };
    let first_two = matches(r[1], r[2]) && reads([r[0], r[1]], 1);
    let last_two = matches(r[0], r[1]) && reads([r[1], r[2]], 0);
    !(first_two || last_two)
}

/// At most this many tiles lie with a long side on the border of an `n x n` board:
/// `floor(n / 3)` along each of the four sides.
fn border_tiles(n: usize) -> i64 {
    4 * (n / 3) as i64
}

/// The most tiles `T` for which the sides needing an empty cell, `max(L - B, ceil(L / 2))`
/// with `L` summed over the `T` tiles of least cost, are at most `4 (n^2 - 3 T)`; `None`
/// when that allows every tile the count bound allows.
pub(super) fn side_bound(model: &Model, count_bound: u32) -> Option<u32> {
    // Per tile, the sides it adds to `L` as the first, second, ... tile of its type placed.
    let mut cost: Vec<i64> = Vec::new();
    for (ty, t) in model.types.iter().enumerate() {
        let g = t.members.len();
        if !costly(model, ty) || g >= model.n {
            // A chain of `n` tiles may reach from border to border.
            cost.extend(std::iter::repeat_n(0, g));
        } else {
            cost.extend((0..g).map(|i| if i == 0 { 2 } else { 0 }));
        }
    }
    cost.sort_unstable();
    let cells = model.cells as i64;
    let border = border_tiles(model.n);
    let mut sides = 0i64;
    let mut best = 0u32;
    for (t, c) in (1..=i64::from(count_bound)).zip(&cost) {
        sides += c;
        let need = (sides - border).max((sides + 1) / 2);
        if need > 4 * (cells - 3 * t) {
            break;
        }
        best = t as u32;
    }
    (best < count_bound).then_some(best)
}
