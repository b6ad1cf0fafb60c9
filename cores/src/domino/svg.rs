//! An SVG picture of a placement: the board grid, each covered cell's value, each tile outlined,
//! and a title with the instance id and the objective ("A picture ... of the best
//! placement per instance").
//!
//! The picture trusts nothing: tiles outside the board or with an unknown index are skipped, so
//! drawing a wrong placement never panics (verify it first to know it is right).

use super::{Instance, Orientation, Placement};
use std::fmt::Write;

const CELL: u32 = 36;
const MARGIN: u32 = 12;
const TITLE: u32 = 28;

/// The SVG document for `placement` on `instance`'s board.
pub fn to_svg(instance: &Instance, placement: &[Placement]) -> String {
    let n = instance.n;
    let width = 2 * MARGIN + n * CELL;
    let height = TITLE + 2 * MARGIN + n * CELL;
    let (x0, y0) = (MARGIN, TITLE + MARGIN);
    let title = format!(
        "{} ({} tiles, n = {}, k = {}): objective {}",
        instance.id,
        instance.tiles.len(),
        n,
        instance.k,
        placement.len()
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&title));
    let _ = writeln!(
        out,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{}" font-size="14">{}</text>"#,
        TITLE - 8,
        escape(&title)
    );
    // Empty board: light cells with a thin grid.
    for r in 0..n {
        for c in 0..n {
            let _ = writeln!(
                out,
                r##"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="#f2f2f2" stroke="#c8c8c8" stroke-width="1"/>"##,
                x0 + c * CELL,
                y0 + r * CELL
            );
        }
    }
    for p in placement {
        let Some(tile) = instance.tiles.get(p.tile as usize) else {
            continue;
        };
        let (rows, cols) = match p.orientation {
            Orientation::H => (1, 3),
            Orientation::V => (3, 1),
        };
        if u64::from(p.row) + rows as u64 > u64::from(n)
            || u64::from(p.col) + cols as u64 > u64::from(n)
        {
            continue;
        }
        let (x, y) = (x0 + p.col * CELL, y0 + p.row * CELL);
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" rx="5" fill="#fff3c4" stroke="#222" stroke-width="3"><title>tile {}</title></rect>"##,
            x + 2,
            y + 2,
            cols * CELL - 4,
            rows * CELL - 4,
            p.tile
        );
        for (i, (r, c)) in p.cells().into_iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" font-size="18" text-anchor="middle" dominant-baseline="central">{}</text>"#,
                x0 + c * CELL + CELL / 2,
                y0 + r * CELL + CELL / 2,
                p.values(*tile)[i]
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The file name of `id`'s picture, `<id>.svg`, usable on any file system: instance ids are
/// free text in the format, so characters other than ASCII letters, digits, `-` and `_` become
/// `_`.
pub fn file_name(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.svg")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domino::Difficulty;

    #[test]
    fn picture_shows_values_outlines_and_title() {
        let inst = Instance {
            id: "t<1>".into(),
            difficulty: Difficulty::Easy,
            n: 4,
            k: 9,
            tiles: vec![[7, 8, 9], [5, 6, 7]],
        };
        let placement = [
            Placement {
                tile: 0,
                row: 0,
                col: 0,
                orientation: Orientation::H,
                mirrored: true,
            },
            Placement {
                tile: 1,
                row: 1,
                col: 3,
                orientation: Orientation::V,
                mirrored: false,
            },
        ];
        let svg = to_svg(&inst, &placement);
        assert!(svg.starts_with("<svg "));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("t&lt;1&gt; (2 tiles, n = 4, k = 9): objective 2"));
        // 16 grid cells and 2 tile outlines.
        assert_eq!(svg.matches("<rect x=").count(), 18);
        // Mirrored tile 0 shows 9 8 7 from the left.
        let digits: Vec<&str> = svg
            .lines()
            .filter(|l| l.starts_with("<text x=") && l.contains("central"))
            .map(|l| &l[l.find('>').unwrap() + 1..l.find("</").unwrap()])
            .collect();
        assert_eq!(digits, ["9", "8", "7", "5", "6", "7"]);
    }

    #[test]
    fn bad_tiles_are_skipped_not_panicked_on() {
        let inst = Instance {
            id: "x".into(),
            difficulty: Difficulty::Easy,
            n: 3,
            k: 1,
            tiles: vec![[0, 1, 0]],
        };
        let bad = [
            Placement {
                tile: 5,
                row: 0,
                col: 0,
                orientation: Orientation::H,
                mirrored: false,
            },
            Placement {
                tile: 0,
                row: 2,
                col: 1,
                orientation: Orientation::H,
                mirrored: false,
            },
        ];
        let svg = to_svg(&inst, &bad);
        assert_eq!(svg.matches("<rect x=").count(), 9);
    }
}
