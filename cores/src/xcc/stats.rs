//! Search instrumentation: the counters of seed 000's trace (section 2.4, "Depth Covers
//! Backtracks Degrees") and Knuth's nodes/updates.
//!
//! Conventions (they differ slightly between Knuth's programs, so we state ours):
//! - `nodes` counts every node of the search tree that the search enters, the root (the
//!   prefix node) and the leaves (solutions and dead ends) included, as Knuth's DLX1 does.
//! - `updates` counts link removals: each option node unlinked from an item's list when its
//!   option is hidden, and each item unlinked from the list of active items when it is
//!   covered (DLX1's convention). Re-linkings on the way back are not counted.
//! - per depth (relative to the prefix node): `nodes` entered, `updates` made on entering a
//!   node (committing the rest of the option that led to it, then covering the item chosen
//!   there), `backtracks` (returns from that depth to the one above) and `degrees` (the sum
//!   of the branching degrees, i.e. the options of the chosen item, of its nodes).

use std::fmt::Write as _;

/// Counters of one depth of the search tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelStats {
    pub nodes: u64,
    pub updates: u64,
    pub backtracks: u64,
    pub degrees: u64,
}

/// Cumulative counters of a [`crate::xcc::Dlx`] since it was created.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub nodes: u64,
    pub updates: u64,
    pub solutions: u128,
    pub profile: Vec<LevelStats>,
}

impl Stats {
    /// The per-depth table in the layout of seed 000's trace, with a nodes column and totals.
    pub fn profile_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:>5} {:>14} {:>14} {:>14} {:>14}",
            "Depth", "Nodes", "Covers", "Backtracks", "Degrees"
        );
        let last = self
            .profile
            .iter()
            .rposition(|l| l.nodes > 0)
            .map_or(0, |p| p + 1);
        let mut total = LevelStats::default();
        for (d, l) in self.profile[..last].iter().enumerate() {
            let _ = writeln!(
                s,
                "{:>5} {:>14} {:>14} {:>14} {:>14}",
                d, l.nodes, l.updates, l.backtracks, l.degrees
            );
            total.nodes += l.nodes;
            total.updates += l.updates;
            total.backtracks += l.backtracks;
            total.degrees += l.degrees;
        }
        let _ = writeln!(
            s,
            "{:>5} {:>14} {:>14} {:>14} {:>14}",
            "Total", total.nodes, total.updates, total.backtracks, total.degrees
        );
        s
    }
}
