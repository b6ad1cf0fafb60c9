//! Known totals that `dancehall bounds` cites beside its bounds (and that the tests check the
//! bounds against). Each carries its source; none is computed here.

/// A known number of whole grids and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cited {
    /// Decimal digits.
    pub value: &'static str,
    pub source: &'static str,
}

/// Sudoku grids with `r x c` boxes (`r` rows, `c` columns; the count of `c x r` is the same, by
/// transposing the grid; `1 x n` boxes make Latin squares).
pub fn sudoku_grids(box_rows: usize, box_cols: usize) -> Option<Cited> {
    let (a, b) = (box_rows.min(box_cols), box_rows.max(box_cols));
    if a == 1 {
        // Boxes of one row (or column) are the rows (columns): a Latin square of order b.
        return latin_squares(b);
    }
    let (value, source) = match (a, b) {
        (2, 2) => ("288", "OEIS A107739; seed 000, Table 1"),
        (2, 3) => (
            "28200960",
            "Pettersen (enjoysudoku forum, 2005); OEIS A291187; REFERENCES.md",
        ),
        (2, 4) => (
            "29136487207403520",
            "Russell and Jarvis (2006); OEIS A291187; counted by bench-specs/sudoku-8x8-grids.toml",
        ),
        (3, 3) => (
            "6670903752021072936960",
            "Felgenhauer and Jarvis (2005); OEIS A107739",
        ),
        _ => return None,
    };
    Some(Cited { value, source })
}

/// Latin squares of order `n`, OEIS A002860 (`n!(n-1)!` times the reduced ones, A000315).
pub fn latin_squares(n: usize) -> Option<Cited> {
    const A002860: [&str; 11] = [
        "1",
        "2",
        "12",
        "576",
        "161280",
        "812851200",
        "61479419904000",
        "108776032459082956800",
        "5524751496156892842531225600",
        "9982437658213039871725064756920320000",
        "776966836171770144107444346734230682311065600000",
    ];
    let value = *A002860.get(n.checked_sub(1)?)?;
    Some(Cited {
        value,
        source: "OEIS A002860",
    })
}
