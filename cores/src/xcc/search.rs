//! The vocabulary of a search: how items are chosen, when to stop, and what came of it.
//!
//! A search's outcome is a value, not an error (STYLE.md): `Complete`, `Halted` by the
//! visitor, or `Stopped` by a limit with the exact list of unexplored subtrees, so that a
//! distributed work unit can hand them back (the dynamic re-split).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::problem::{ItemId, OptionId};

/// The rule for choosing the item to branch on (seed 000 section 2.3 compares the
/// "shortest" rule with a random one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Choice {
    /// Minimum remaining values: the item with the fewest options, first in order on ties.
    #[default]
    Mrv,
    /// The first active primary item.
    First,
    /// A uniformly random active primary item, from a seeded generator.
    Random(u64),
}

/// What a solution visitor wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Budgets polled during the search (every 1024 nodes, so they cost nothing measurable).
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Stop after about this many nodes (checked at poll points).
    pub max_nodes: Option<u64>,
    pub deadline: Option<Instant>,
    pub stop: Option<Arc<AtomicBool>>,
}

/// How a search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The whole tree below the prefix was explored.
    Complete,
    /// The visitor (or a solution limit) stopped the search.
    Halted,
    /// A limit stopped the search. `remaining` lists the unexplored subtrees, each as a full
    /// prefix (the starting prefix included); the solutions counted so far are exactly the
    /// solutions outside them.
    Stopped { remaining: Vec<Vec<OptionId>> },
}

/// A prefix that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrefixError {
    #[error("option {0} does not exist")]
    UnknownOption(OptionId),
    #[error("option {option} clashes with an earlier choice on item {item}")]
    Clash { option: OptionId, item: ItemId },
}

/// What the search does at a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Branching {
    /// No primary item is left: the node is a solution.
    Solved,
    /// The chosen item has no options left.
    DeadEnd,
    /// Branch on `item`, one child per option.
    Branch {
        item: ItemId,
        options: Vec<OptionId>,
    },
}
