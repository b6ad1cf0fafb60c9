//! The committed 9x9 orbit ledgers (`results/reference/sudoku-9x9*-orbits/ledger.csv`)
//! re-added, and regrouped: the full group's terms, looked up element by element of the
//! Sudoku-preserving subgroup, give that subgroup's orbit count, which a second run counted
//! with its own classes (`run-sudoku-group.json` beside the ledger).

use std::collections::HashMap;
use std::path::PathBuf;

use cores::grids::groups::read_groups;
use cores::grids::orbits::{orbit_group, GridSymmetry, GroupChoice};
use cores::problems::sudoku::{Sudoku, SudokuConfig, Variant};

fn reference(folder: &str, file: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "results",
        "reference",
        folder,
        file,
    ]
    .iter()
    .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Per ledger row: (class, class size, element, term).
fn terms(folder: &str) -> Vec<(usize, u128, String, u128)> {
    let text = reference(folder, "ledger.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (class, size, element, term) = (at("class"), at("class_size"), at("element"), at("term"));
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), header.len(), "{folder}: {line}");
            (
                f[class].parse().unwrap(),
                f[size].parse().unwrap(),
                f[element].to_string(),
                f[term].parse().unwrap(),
            )
        })
        .collect()
}

/// The `orbits` figure of a run's `--json` line.
fn orbits_of(json: &str) -> u128 {
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    v["orbits"].as_str().unwrap().parse().unwrap()
}

#[test]
fn the_9x9_orbit_ledgers_re_add_to_their_orbit_counts() {
    // Published: plain 5,472,730,538 (Russell and Jarvis, "Mathematics of Sudoku II",
    // 2006), windoku 68,239,994 (B. Michel, "Mathematics of NRC-Sudoku", 2007).
    for (folder, order) in [
        ("sudoku-9x9-orbits", 3_359_232u128),
        ("sudoku-9x9-hyper-orbits", 256),
        ("sudoku-9x9-diagonal-orbits", 96),
        ("sudoku-9x9-disjoint-orbits", 10_368),
    ] {
        let rows = terms(folder);
        assert_eq!(
            rows.iter().map(|r| r.1).sum::<u128>(),
            order,
            "{folder}: class sizes"
        );
        let sum: u128 = rows.iter().map(|r| r.1 * r.3).sum();
        assert_eq!(sum % order, 0, "{folder}: Burnside's sum divides by |G|");
        assert_eq!(
            sum / order,
            orbits_of(&reference(folder, "run.json")),
            "{folder}"
        );
    }
}

#[test]
fn the_full_groups_terms_regrouped_by_the_subgroup_give_its_orbit_count() {
    for (folder, variant) in [
        ("sudoku-9x9-hyper-orbits", Variant::Hyper),
        ("sudoku-9x9-disjoint-orbits", Variant::Disjoint),
    ] {
        let config = SudokuConfig {
            variants: vec![variant],
            ..SudokuConfig::new(3, 3)
        };
        let g = read_groups(3, 3, &Sudoku::build(&config).unwrap().problem).unwrap();
        let full = orbit_group(&g, GroupChoice::Full).unwrap();
        let elements: Vec<GridSymmetry> = (0..full.len()).map(|k| full.element(k)).collect();
        let inverses: Vec<GridSymmetry> = elements.iter().map(|e| e.inverse()).collect();
        // Every element's term: its class's, found by conjugating each class's
        // representative by the whole group.
        let mut term_of: HashMap<GridSymmetry, u128> = HashMap::new();
        for (_, size, element, term) in terms(folder) {
            let rep = GridSymmetry::parse(9, &element).unwrap();
            let before = term_of.len();
            for (h, h_inv) in elements.iter().zip(&inverses) {
                term_of
                    .entry(h.compose(&rep).compose(h_inv))
                    .or_insert(term);
            }
            assert_eq!(
                (term_of.len() - before) as u128,
                size,
                "{folder}: class {element}"
            );
        }
        let sub = orbit_group(&g, GroupChoice::SudokuPreserving).unwrap();
        let sum: u128 = (0..sub.len()).map(|k| term_of[&sub.element(k)]).sum();
        assert_eq!(sum % sub.order(), 0, "{folder}");
        let counted = orbits_of(&reference(folder, "run-sudoku-group.json"));
        assert_eq!(sum / sub.order(), counted, "{folder}");
    }
}
