//! The Dancing Links engine: Knuth's Algorithm X on doubly linked lists held in flat arrays,
//! with colours on secondary items (XCC, as in Knuth's DLX2; seed 000 sections 2.3-2.4 give
//! the cover/uncover "dance").
//!
//! Layout (Knuth's): node `i` for `1 <= i <= N` is the header of item `i - 1`, its `top`
//! field holding the item's list length; then a spacer, the nodes of option 0, a spacer, the
//! nodes of option 1, ... A spacer's `top` is `-(option index)` (<= 0), its `up` points to the
//! first node of the option before it and its `down` to the last node of the option after it.
//! The active items are a bitmap (`super::active`), not Knuth's circular list: the same
//! order, with the lengths read without a chain of dependent loads.
//!
//! The node fields live in separate arrays (`links` for `up`/`down`, `tops`, `colours`):
//! the hot loops touch 8-byte links at random and read `tops` sequentially along an option,
//! and an 8-byte element is addressed without a shift. The colours are read only by the
//! coloured instance of the dance (see `hide`).
//!
//! Every option node also knows the span `first..=last` of its option (`spans`, fixed at
//! construction), so that the loops over "the other nodes of this option" (`hide`, `unhide`,
//! `choose_rest`, `unchoose_rest`) are counted loops with a branch-free wrap-around instead of
//! a walk that finds the option's end at a spacer: the trip count is the same for every
//! option of equal length, so the loop exit is predictable (measured by `cargo bench -p cores
//! --bench dlx`). The spacers stay, as in Knuth's layout, but the search no longer reads them.
//!
//! One exception to Knuth's layout: when every option has the same length `L` (queens: row,
//! column and two diagonals; Langford: three items; pentominoes: the piece and five cells),
//! each option starts at a multiple of `P`, `L` rounded up to a power of two, padded to it
//! by nodes of no option (`top` 0; no spacer between options when `L = P`). The other nodes of `p`'s option are then found
//! from `p` alone, `p ^ k` when `L = P` and from `p`'s place `p & (P - 1)` otherwise,
//! without reading its span: that load was on the critical path of every hide and unhide.
//! Dropping it (best of 5, alternating runs, release) took queens 14 from 0.458 s to 0.366 s,
//! Langford 12 from 0.202 s to 0.187 s and the pentominoes from 0.744 s to 0.63 s, with the
//! same nodes and updates.
//!
//! Invariants: every `up`, `down`, `prev` and `next` value is a valid index into its array
//! (set at construction and only ever copied from other links), every span lies inside the
//! node arrays, and `links`, `tops`, `colours` and `spans` have one entry per node; this is
//! what makes the unchecked indexing in the hot loops sound. After any public method returns,
//! the links are exactly as they were after the last `apply_prefix` (the search undoes what
//! it does, in reverse order). No allocation happens per node or per search step.

use std::sync::atomic::Ordering;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::active::Active;
use super::problem::{ItemId, OptionId, Problem};
use super::search::{Branching, Choice, Flow, Limits, Outcome, PrefixError};
use super::stats::{LevelStats, Stats};

/// A node as built; the solver stores its fields in separate arrays (see `Dlx::links`).
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    up: u32,
    down: u32,
    /// Item header index (>= 1) for option nodes, list length for headers, <= 0 for spacers.
    top: i32,
    /// 0: no colour; > 0: a colour; -1: already purified to the right colour.
    colour: i32,
}

/// The vertical links of a node.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
struct UpDown {
    up: u32,
    down: u32,
}

/// The nodes of the option that an option node belongs to: `first..=last`.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
struct Span {
    first: u32,
    last: u32,
}

/// A solution visitor as the search loop sees it.
type Visitor<'v> = &'v mut dyn FnMut(&[OptionId]) -> Flow;

/// How often (in nodes) the search polls its limits.
const POLL_INTERVAL: u64 = 1024;

/// A Dancing Links solver for one [`Problem`], positioned at a prefix node.
pub struct Dlx<'p> {
    problem: &'p Problem,
    /// The nodes, as a structure of arrays (the fields of `Node`): `links` (8 bytes, so that
    /// the hot loops index them without a shift), `tops` and `colours`.
    links: Vec<UpDown>,
    tops: Vec<i32>,
    colours: Vec<i32>,
    /// Per node, the span of its option (option nodes only; zero elsewhere).
    spans: Vec<Span>,
    /// The active items (headers `1..=N`).
    active: Active,
    /// The first node index of each option (after its spacer).
    option_first: Vec<u32>,
    choice: Choice,
    rng: ChaCha8Rng,
    /// Options chosen by `apply_prefix`, in order.
    prefix: Vec<OptionId>,
    /// Per item: 0 free, -1 covered, c > 0 purified to colour c (prefix bookkeeping only).
    item_state: Vec<i32>,
    /// The search stack: chosen node per depth and the item branched on.
    choice_node: Vec<u32>,
    choice_item: Vec<u32>,
    /// Whether some option gives an item a colour; if not, the search runs the colour-blind
    /// instance of the dance (`COLOURS = false`), which skips the colour tests.
    coloured: bool,
    /// The length shared by every option, or 0 if they differ (see `hide`).
    uniform_len: u32,
    stats: Stats,
}

impl<'p> Dlx<'p> {
    /// A solver at the root of `problem`, choosing items by minimum remaining values.
    pub fn new(problem: &'p Problem) -> Self {
        Self::with_choice(problem, Choice::Mrv)
    }

    pub fn with_choice(problem: &'p Problem, choice: Choice) -> Self {
        let n = problem.num_items();
        let n1 = problem.num_primary();
        let total = n + 1 + problem.num_options() + 1 + problem.num_incidences();
        let mut nodes = Vec::with_capacity(total);
        nodes.push(Node::default());
        for i in 1..=n {
            nodes.push(Node {
                up: i as u32,
                down: i as u32,
                top: 0,
                colour: 0,
            });
        }
        let uniform_len = {
            let mut lens = problem.options().map(|o| o.len() as u32);
            let first = lens.next().unwrap_or(0);
            if lens.all(|l| l == first) {
                first
            } else {
                0
            }
        };
        // Options of one length sit at multiples of that length rounded up to a power of two,
        // padded to it (see `right`).
        let aligned = uniform_len >= 2;
        let slot = uniform_len.next_power_of_two() as usize;
        let mut option_first = Vec::with_capacity(problem.num_options());
        let mut spans = Vec::with_capacity(total);
        // First spacer (and, for aligned options, the padding up to the first option).
        let mut spacer = nodes.len();
        nodes.push(Node {
            up: 0,
            down: 0,
            top: 0,
            colour: 0,
        });
        for (o, opt) in problem.options().enumerate() {
            while aligned && !nodes.len().is_multiple_of(slot) {
                spacer = nodes.len();
                nodes.push(Node::default());
            }
            let first = nodes.len() as u32;
            option_first.push(first);
            for &(item, colour) in opt {
                let header = item as usize + 1;
                let x = nodes.len() as u32;
                let last = nodes[header].up;
                nodes.push(Node {
                    up: last,
                    down: header as u32,
                    top: header as i32,
                    colour: colour as i32,
                });
                nodes[last as usize].down = x;
                nodes[header].up = x;
                nodes[header].top += 1;
            }
            let last = nodes.len() as u32 - 1;
            spans.resize(first as usize, Span::default());
            spans.resize(last as usize + 1, Span { first, last });
            nodes[spacer].down = last;
            if aligned && o + 1 < problem.num_options() {
                continue;
            }
            spacer = nodes.len();
            nodes.push(Node {
                up: first,
                down: 0,
                top: -(o as i32 + 1),
                colour: 0,
            });
        }
        spans.resize(nodes.len(), Span::default());
        let depth = n1 + 2;
        Dlx {
            problem,
            links: nodes
                .iter()
                .map(|n| UpDown {
                    up: n.up,
                    down: n.down,
                })
                .collect(),
            tops: nodes.iter().map(|n| n.top).collect(),
            colours: nodes.iter().map(|n| n.colour).collect(),
            spans,
            active: Active::new(n, n1, problem.num_options()),
            option_first,
            choice,
            rng: ChaCha8Rng::seed_from_u64(match choice {
                Choice::Random(seed) => seed,
                _ => 0,
            }),
            prefix: Vec::new(),
            item_state: vec![0; n + 1],
            choice_node: vec![0; depth],
            choice_item: vec![0; depth],
            coloured: problem.options().any(|o| o.iter().any(|&(_, c)| c != 0)),
            uniform_len,
            stats: Stats {
                profile: vec![LevelStats::default(); depth],
                ..Stats::default()
            },
        }
    }

    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// Cumulative counters since creation (prefix application excluded).
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Zeroes the counters.
    pub fn reset_stats(&mut self) {
        let depth = self.stats.profile.len();
        self.stats = Stats {
            profile: vec![LevelStats::default(); depth],
            ..Stats::default()
        };
    }

    /// The options chosen so far by [`Dlx::apply_prefix`].
    pub fn prefix(&self) -> &[OptionId] {
        &self.prefix
    }

    // ----- the dance -------------------------------------------------------------------

    // Node fields. SAFETY (all of them): every index passed here is a link, a span member,
    // a `top` of an option node or a header index, all valid node indices (module
    // invariant); `links`, `tops` and `colours` have one entry per node.

    #[inline(always)]
    fn link(&self, x: u32) -> UpDown {
        debug_assert!((x as usize) < self.links.len());
        // SAFETY: see above.
        unsafe { *self.links.get_unchecked(x as usize) }
    }

    #[inline(always)]
    fn link_mut(&mut self, x: u32) -> &mut UpDown {
        debug_assert!((x as usize) < self.links.len());
        // SAFETY: see above.
        unsafe { self.links.get_unchecked_mut(x as usize) }
    }

    #[inline(always)]
    fn up(&self, x: u32) -> u32 {
        self.link(x).up
    }

    #[inline(always)]
    fn down(&self, x: u32) -> u32 {
        self.link(x).down
    }

    /// Item header index (>= 1) of an option node, list length of a header, <= 0 at a spacer.
    #[inline(always)]
    fn top(&self, x: u32) -> i32 {
        debug_assert!((x as usize) < self.tops.len());
        // SAFETY: see above.
        unsafe { *self.tops.get_unchecked(x as usize) }
    }

    #[inline(always)]
    fn top_mut(&mut self, x: u32) -> &mut i32 {
        debug_assert!((x as usize) < self.tops.len());
        // SAFETY: see above.
        unsafe { self.tops.get_unchecked_mut(x as usize) }
    }

    #[inline(always)]
    fn colour(&self, x: u32) -> i32 {
        debug_assert!((x as usize) < self.colours.len());
        // SAFETY: see above.
        unsafe { *self.colours.get_unchecked(x as usize) }
    }

    #[inline(always)]
    fn colour_mut(&mut self, x: u32) -> &mut i32 {
        debug_assert!((x as usize) < self.colours.len());
        // SAFETY: see above.
        unsafe { self.colours.get_unchecked_mut(x as usize) }
    }

    #[inline(always)]
    fn span(&self, x: u32) -> Span {
        debug_assert!((x as usize) < self.spans.len());
        // SAFETY: `spans` has one entry per node (module invariant).
        unsafe { *self.spans.get_unchecked(x as usize) }
    }

    /// Removes the other nodes of `p`'s option from their item lists, counting the removals
    /// in `updates` (a local of the caller, so that it stays in a register).
    ///
    /// The dance is generic over `COLOURS`: `false` is sound only when no node has a colour
    /// (then every `colour` is 0, purification never happens, and the colour tests below and
    /// in `commit` are always true); `search` picks the instance from `self.coloured`.
    #[inline(always)]
    fn hide<const COLOURS: bool, const LEN: u32>(&mut self, p: u32, updates: &mut u64) {
        // The other nodes of the option, cyclically to the right of `p`: a counted loop (its
        // exit is predictable when options have equal lengths, and it unrolls when `LEN`
        // fixes that length) with a branch-free wrap.
        let Span { first, last } = self.span(p);
        for k in 1..Self::length::<LEN>(first, last) {
            let q = Self::right::<LEN>(p, k, first, last);
            if !COLOURS || self.colour(q) >= 0 {
                let UpDown { up, down } = self.link(q);
                let top = self.top(q);
                self.link_mut(up).down = down;
                self.link_mut(down).up = up;
                *self.top_mut(top as u32) -= 1;
                if COLOURS {
                    *updates += 1;
                }
            }
        }
        if !COLOURS {
            *updates += u64::from(Self::length::<LEN>(first, last) - 1);
        }
    }

    /// Undoes `hide(p)`, visiting the nodes in the opposite order (cyclically to the left).
    #[inline(always)]
    fn unhide<const COLOURS: bool, const LEN: u32>(&mut self, p: u32) {
        let Span { first, last } = self.span(p);
        for k in 1..Self::length::<LEN>(first, last) {
            let q = Self::left::<LEN>(p, k, first, last);
            if !COLOURS || self.colour(q) >= 0 {
                let UpDown { up, down } = self.link(q);
                let top = self.top(q);
                self.link_mut(up).down = q;
                self.link_mut(down).up = q;
                *self.top_mut(top as u32) += 1;
            }
        }
    }

    /// The length of the option `first..=last`: `LEN` when the dance is specialised to
    /// options of one length (then `last - first + 1 == LEN` for every option), else read.
    #[inline(always)]
    fn length<const LEN: u32>(first: u32, last: u32) -> u32 {
        debug_assert!(LEN == 0 || last - first + 1 == LEN);
        if LEN > 0 {
            LEN
        } else {
            last - first + 1
        }
    }

    /// The node `k` places cyclically to the right of `p` in its option `first..=last`
    /// (`0 < k < length`).
    #[inline(always)]
    fn right<const LEN: u32>(p: u32, k: u32, first: u32, last: u32) -> u32 {
        if LEN.is_power_of_two() {
            // The option starts at a multiple of `LEN` (the layout's rule for such options),
            // so its other nodes are `p ^ k`: one instruction, and no span to read. Within an
            // option the order does not matter (its nodes are in different lists); `left`
            // visits them in the reverse order all the same.
            debug_assert!(first.is_multiple_of(LEN) && last - first + 1 == LEN);
            return p ^ k;
        }
        // Whether to wrap depends on `p`'s place in its option: as good as random, so a
        // select rather than a branch.
        let q = p + k;
        if LEN > 0 {
            // Aligned to `LEN.next_power_of_two()`: the place is in `p`'s low bits.
            debug_assert!(first.is_multiple_of(LEN.next_power_of_two()));
            let place = p & (LEN.next_power_of_two() - 1);
            return std::hint::select_unpredictable(place + k >= LEN, q - LEN, q);
        }
        std::hint::select_unpredictable(q > last, q - Self::length::<LEN>(first, last), q)
    }

    /// The node `k` places cyclically to the left of `p` in its option `first..=last`.
    #[inline(always)]
    fn left<const LEN: u32>(p: u32, k: u32, first: u32, last: u32) -> u32 {
        if LEN.is_power_of_two() {
            debug_assert!(first.is_multiple_of(LEN) && last - first + 1 == LEN);
            return p ^ (LEN - k);
        }
        if LEN > 0 {
            debug_assert!(first.is_multiple_of(LEN.next_power_of_two()));
            let place = p & (LEN.next_power_of_two() - 1);
            return std::hint::select_unpredictable(place < k, p + LEN - k, p - k);
        }
        std::hint::select_unpredictable(
            p < first + k,
            p + Self::length::<LEN>(first, last) - k,
            p - k,
        )
    }

    /// Covers item header `i`: hides every option in its list, then unlinks it.
    ///
    /// The walk is counted by the list's length rather than ended at the header: the loop's
    /// exit, mispredicted whenever the length changed, then depends on a counter and not on
    /// a load, so the mispredict is found early and costs less.
    #[inline(always)]
    fn cover<const COLOURS: bool, const LEN: u32>(&mut self, i: u32, updates: &mut u64) {
        let mut p = self.down(i);
        for _ in 0..self.top(i) {
            // `hide(p)` changes no link in item `i`'s list, so the next option can be
            // fetched first, overlapping its cache miss with this option's work.
            let next = self.down(p);
            self.hide::<COLOURS, LEN>(p, updates);
            p = next;
        }
        debug_assert_eq!(p, i);
        self.active.remove(i);
        *updates += 1;
    }

    /// Undoes `cover(i)`. Item `i`'s list and its length have not changed since: every option
    /// of the list was hidden from the other items' lists, so no later cover reaches it.
    #[inline(always)]
    fn uncover<const COLOURS: bool, const LEN: u32>(&mut self, i: u32) {
        self.active.insert(i);
        let mut p = self.up(i);
        for _ in 0..self.top(i) {
            let next = self.up(p);
            self.unhide::<COLOURS, LEN>(p);
            p = next;
        }
        debug_assert_eq!(p, i);
    }

    /// Keeps only the options that give item `top(p)` the colour of `p`.
    fn purify(&mut self, p: u32, updates: &mut u64) {
        let c = self.colour(p);
        let i = self.top(p) as u32;
        let mut q = self.down(i);
        while q != i {
            if self.colour(q) == c {
                *self.colour_mut(q) = -1;
            } else {
                self.hide::<true, 0>(q, updates);
            }
            q = self.down(q);
        }
        // An item purified to a colour leaves the active items like a covered one.
        self.active.remove(i);
        *updates += 1;
    }

    fn unpurify(&mut self, p: u32) {
        let c = self.colour(p);
        let i = self.top(p) as u32;
        self.active.insert(i);
        let mut q = self.up(i);
        while q != i {
            if self.colour(q) < 0 {
                *self.colour_mut(q) = c;
            } else {
                self.unhide::<true, 0>(q);
            }
            q = self.up(q);
        }
    }

    #[inline(always)]
    fn commit<const COLOURS: bool, const LEN: u32>(&mut self, p: u32, updates: &mut u64) {
        let colour = if COLOURS { self.colour(p) } else { 0 };
        if colour == 0 {
            self.cover::<COLOURS, LEN>(self.top(p) as u32, updates);
        } else if colour > 0 {
            self.purify(p, updates);
        }
    }

    #[inline(always)]
    fn uncommit<const COLOURS: bool, const LEN: u32>(&mut self, p: u32) {
        let colour = if COLOURS { self.colour(p) } else { 0 };
        if colour == 0 {
            self.uncover::<COLOURS, LEN>(self.top(p) as u32);
        } else if colour > 0 {
            self.unpurify(p);
        }
    }

    /// Commits the items of `x`'s option other than `x`'s own (already covered) item.
    #[inline(always)]
    fn choose_rest<const COLOURS: bool, const LEN: u32>(&mut self, x: u32, updates: &mut u64) {
        // Cyclically to the right of `x`, as in `hide`.
        let Span { first, last } = self.span(x);
        for k in 1..Self::length::<LEN>(first, last) {
            let p = Self::right::<LEN>(x, k, first, last);
            self.commit::<COLOURS, LEN>(p, updates);
        }
    }

    /// Undoes `choose_rest(x)`, cyclically to the left of `x`.
    #[inline(always)]
    fn unchoose_rest<const COLOURS: bool, const LEN: u32>(&mut self, x: u32) {
        let Span { first, last } = self.span(x);
        for k in 1..Self::length::<LEN>(first, last) {
            let p = Self::left::<LEN>(x, k, first, last);
            self.uncommit::<COLOURS, LEN>(p);
        }
    }

    /// The item to branch on, or 0 when no primary item is left (a solution).
    #[inline(always)]
    fn choose_item(&mut self) -> u32 {
        match self.choice {
            Choice::Mrv => self.active.shortest(&self.tops),
            Choice::First => self.active.first(),
            Choice::Random(_) => match self.active.count() {
                0 => None,
                count => self.active.nth(self.rng.random_range(0..count)),
            },
        }
        .unwrap_or(0)
    }

    fn option_of_node(&self, x: u32) -> OptionId {
        // The option whose first node is the largest one <= x.
        (self.option_first.partition_point(|&f| f <= x) - 1) as OptionId
    }

    // ----- prefixes ----------------------------------------------------------------------

    /// Chooses `prefix` (puzzle givens, or a work unit's path) before any search. Every option
    /// must still be available: an option that clashes with an earlier one is an error, and
    /// on error nothing is applied.
    pub fn apply_prefix(&mut self, prefix: &[OptionId]) -> Result<(), PrefixError> {
        let mut state = self.item_state.clone();
        for &o in prefix {
            if o as usize >= self.problem.num_options() {
                return Err(PrefixError::UnknownOption(o));
            }
            for &(item, colour) in self.problem.option(o) {
                let s = &mut state[item as usize];
                let ok = match (*s, colour) {
                    (0, 0) => {
                        *s = -1;
                        true
                    }
                    (0, c) => {
                        *s = c as i32;
                        true
                    }
                    (st, c) => c != 0 && st == c as i32,
                };
                if !ok {
                    return Err(PrefixError::Clash { option: o, item });
                }
            }
        }
        for &o in prefix {
            let first = self.option_first[o as usize];
            let len = self.problem.option(o).len() as u32;
            for p in first..first + len {
                // Prefix updates are not search updates (see `stats`).
                self.commit::<true, 0>(p, &mut 0);
            }
        }
        self.item_state = state;
        self.prefix.extend_from_slice(prefix);
        Ok(())
    }

    /// What the search would branch on at the prefix node (always with the MRV rule's
    /// tie-breaking when the choice rule is MRV or first-in-order).
    pub fn branching(&mut self) -> Branching {
        let i = self.choose_item();
        if i == 0 {
            return Branching::Solved;
        }
        let mut options = Vec::with_capacity(self.top(i) as usize);
        let mut x = self.down(i);
        while x != i {
            options.push(self.option_of_node(x));
            x = self.down(x);
        }
        if options.is_empty() {
            Branching::DeadEnd
        } else {
            Branching::Branch {
                item: (i - 1) as ItemId,
                options,
            }
        }
    }

    // ----- search ------------------------------------------------------------------------

    /// Counts all solutions below the prefix node.
    pub fn count(&mut self) -> u128 {
        let before = self.stats.solutions;
        self.search(&Limits::default(), None, u128::MAX);
        self.stats.solutions - before
    }

    /// Counts solutions, stopping at `limit` (a uniqueness check is `count_up_to(2)`).
    pub fn count_up_to(&mut self, limit: u128) -> u128 {
        let before = self.stats.solutions;
        self.search(&Limits::default(), None, limit);
        self.stats.solutions - before
    }

    /// The first solution found (prefix options included), if any.
    pub fn first(&mut self) -> Option<Vec<OptionId>> {
        let mut found = None;
        let mut visit = |s: &[OptionId]| {
            found = Some(s.to_vec());
            Flow::Stop
        };
        self.search(&Limits::default(), Some(&mut visit), u128::MAX);
        found
    }

    /// Visits solutions (prefix options first) until the visitor stops or a limit is hit.
    pub fn run(&mut self, limits: &Limits, mut visit: impl FnMut(&[OptionId]) -> Flow) -> Outcome {
        self.search(limits, Some(&mut visit), u128::MAX)
    }

    /// Counts solutions until a limit is hit (no visitor): a work unit's search.
    pub fn run_count(&mut self, limits: &Limits) -> Outcome {
        self.search(limits, None, u128::MAX)
    }

    fn limit_hit(&self, limits: &Limits, nodes_at_start: u64) -> bool {
        if let Some(max) = limits.max_nodes {
            if self.stats.nodes - nodes_at_start >= max {
                return true;
            }
        }
        if let Some(deadline) = limits.deadline {
            if Instant::now() >= deadline {
                return true;
            }
        }
        if let Some(stop) = &limits.stop {
            if stop.load(Ordering::Relaxed) {
                return true;
            }
        }
        false
    }

    /// Algorithm X, iteratively (Knuth's steps X2-X8), counting into `self.stats`.
    fn search(&mut self, limits: &Limits, visit: Option<Visitor<'_>>, limit: u128) -> Outcome {
        if self.coloured {
            self.search_in::<true, 0>(limits, visit, limit)
        } else {
            // Options of one length get a dance unrolled to it.
            match self.uniform_len {
                3 => self.search_in::<false, 3>(limits, visit, limit),
                4 => self.search_in::<false, 4>(limits, visit, limit),
                5 => self.search_in::<false, 5>(limits, visit, limit),
                6 => self.search_in::<false, 6>(limits, visit, limit),
                _ => self.search_in::<false, 0>(limits, visit, limit),
            }
        }
    }

    /// `search` with the dance's colour tests compiled in or out (see `hide`).
    fn search_in<const COLOURS: bool, const LEN: u32>(
        &mut self,
        limits: &Limits,
        mut visit: Option<Visitor<'_>>,
        limit: u128,
    ) -> Outcome {
        let nodes_at_start = self.stats.nodes;
        let polling =
            limits.max_nodes.is_some() || limits.deadline.is_some() || limits.stop.is_some();
        let mut next_poll =
            nodes_at_start + POLL_INTERVAL.min(limits.max_nodes.unwrap_or(u64::MAX).max(1));
        let mut found: u128 = 0;
        let mut solution: Vec<OptionId> = Vec::new();
        let mut level: usize = 0;
        // Updates made since the last node was accounted for.
        let mut updates: u64 = 0;

        // `enter` = true: enter a new node at `level`; false: try the next option at `level`.
        let mut enter = true;
        let outcome = 'search: loop {
            if enter {
                if polling && self.stats.nodes >= next_poll {
                    next_poll = self.stats.nodes + POLL_INTERVAL;
                    if self.limit_hit(limits, nodes_at_start) {
                        let remaining = self.remaining(level);
                        break 'search Outcome::Stopped { remaining };
                    }
                }
                self.stats.nodes += 1;
                let i = self.choose_item();
                if i == 0 {
                    found += 1;
                    self.stats.solutions += 1;
                    let mut stop = found >= limit;
                    if let Some(v) = visit.as_mut() {
                        solution.clear();
                        solution.extend_from_slice(&self.prefix);
                        for d in 0..level {
                            solution.push(self.option_of_node(self.choice_node[d]));
                        }
                        stop |= matches!(v(&solution), Flow::Stop);
                    }
                    self.account_node(level, 0, &mut updates);
                    if stop {
                        break 'search Outcome::Halted;
                    }
                    enter = false;
                    // Back up from this leaf.
                    if level == 0 {
                        break 'search Outcome::Complete;
                    }
                    self.stats.profile[level].backtracks += 1;
                    level -= 1;
                    self.advance::<COLOURS, LEN>(level);
                    continue;
                }
                let degree = self.top(i) as u64;
                self.cover::<COLOURS, LEN>(i, &mut updates);
                self.account_node(level, degree, &mut updates);
                self.choice_item[level] = i;
                self.choice_node[level] = self.down(i);
            }
            // Try the option at choice_node[level], or back up when the list is exhausted.
            let i = self.choice_item[level];
            let x = self.choice_node[level];
            if x == i {
                self.uncover::<COLOURS, LEN>(i);
                if level == 0 {
                    break 'search Outcome::Complete;
                }
                self.stats.profile[level].backtracks += 1;
                level -= 1;
                self.advance::<COLOURS, LEN>(level);
                enter = false;
                continue;
            }
            self.choose_rest::<COLOURS, LEN>(x, &mut updates);
            level += 1;
            enter = true;
        };
        if !matches!(outcome, Outcome::Complete) {
            self.unwind(level);
        }
        self.stats.profile[0].backtracks += matches!(outcome, Outcome::Complete) as u64;
        outcome
    }

    /// Adds the node just entered at `level` to the profile: its updates so far (the rest of
    /// the option that led here, and the cover of its branching item) and its degree.
    #[inline(always)]
    fn account_node(&mut self, level: usize, degree: u64, updates: &mut u64) {
        let l = &mut self.stats.profile[level];
        l.nodes += 1;
        l.updates += *updates;
        l.degrees += degree;
        self.stats.updates += *updates;
        *updates = 0;
    }

    /// Undoes the option at `level` and moves to the next one in its item's list.
    #[inline(always)]
    fn advance<const COLOURS: bool, const LEN: u32>(&mut self, level: usize) {
        let x = self.choice_node[level];
        self.unchoose_rest::<COLOURS, LEN>(x);
        self.choice_node[level] = self.down(x);
    }

    /// The unexplored subtrees when the search stops before entering a node at `level`: that
    /// node itself, and the later siblings on the path to it, each as a full prefix.
    fn remaining(&self, level: usize) -> Vec<Vec<OptionId>> {
        let mut out = Vec::new();
        let mut path: Vec<OptionId> = self.prefix.clone();
        // Siblings first, shallow to deep, then the node itself.
        for d in 0..level {
            let i = self.choice_item[d];
            let mut y = self.down(self.choice_node[d]);
            while y != i {
                let mut p = path.clone();
                p.push(self.option_of_node(y));
                out.push(p);
                y = self.down(y);
            }
            path.push(self.option_of_node(self.choice_node[d]));
        }
        out.push(path);
        out
    }

    /// Restores the links after a stop at `level` (before entering its node).
    fn unwind(&mut self, mut level: usize) {
        while level > 0 {
            level -= 1;
            let x = self.choice_node[level];
            // The coloured instance undoes either kind of dance.
            self.unchoose_rest::<true, 0>(x);
            self.uncover::<true, 0>(self.choice_item[level]);
        }
    }

    // ----- Monte Carlo -------------------------------------------------------------------

    /// One random root-to-leaf path from the prefix node (Knuth 1975): returns the unbiased
    /// estimates (nodes, updates, solutions) of the tree below the prefix node.
    pub(crate) fn random_path(&mut self, rng: &mut ChaCha8Rng) -> PathEstimate {
        let mut weight = 1.0f64;
        let mut nodes = 0.0;
        let mut updates = 0.0;
        let mut solutions = 0.0;
        // The same in natural logarithms (`-inf` for 0), exact where the products pass
        // f64's range (a 36x36 Sudoku's path multiplies degrees past 10^2000).
        let mut ln_weight = 0.0f64;
        let mut ln_nodes = f64::NEG_INFINITY;
        let mut ln_updates = f64::NEG_INFINITY;
        let mut ln_solutions = f64::NEG_INFINITY;
        let mut level = 0;
        // Updates since the last node (the coloured instance of the dance serves every problem).
        let mut made: u64 = 0;
        loop {
            nodes += weight;
            ln_nodes = ln_add(ln_nodes, ln_weight);
            let i = self.choose_item();
            if i == 0 {
                updates += weight * made as f64;
                ln_updates = ln_add(ln_updates, ln_weight + (made as f64).ln());
                solutions = weight;
                ln_solutions = ln_weight;
                break;
            }
            let degree = self.top(i) as u32;
            self.cover::<true, 0>(i, &mut made);
            updates += weight * made as f64;
            ln_updates = ln_add(ln_updates, ln_weight + (made as f64).ln());
            made = 0;
            self.choice_item[level] = i;
            if degree == 0 {
                self.choice_node[level] = i;
                level += 1;
                break;
            }
            let mut x = self.down(i);
            for _ in 0..rng.random_range(0..degree) {
                x = self.down(x);
            }
            self.choice_node[level] = x;
            self.choose_rest::<true, 0>(x, &mut made);
            weight *= degree as f64;
            ln_weight += f64::from(degree).ln();
            level += 1;
        }
        // Undo the path.
        while level > 0 {
            level -= 1;
            let x = self.choice_node[level];
            let i = self.choice_item[level];
            if x != i {
                self.unchoose_rest::<true, 0>(x);
            }
            self.uncover::<true, 0>(i);
        }
        PathEstimate {
            values: [nodes, updates, solutions],
            ln: [ln_nodes, ln_updates, ln_solutions],
        }
    }

    #[cfg(test)]
    pub(crate) fn links_fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for (x, l) in self.links.iter().enumerate() {
            (l.up, l.down, self.tops[x], self.colours[x]).hash(&mut h);
        }
        for h_ in 1..=self.problem.num_items() as u32 {
            self.active.contains(h_).hash(&mut h);
        }
        h.finish()
    }
}

/// One random path's estimates of the nodes, updates and solutions below its root
/// (`Dlx::random_path`), as numbers and as natural logarithms (`-inf` for 0).
pub(crate) struct PathEstimate {
    pub(crate) values: [f64; 3],
    pub(crate) ln: [f64; 3],
}

/// `ln(e^a + e^b)` without leaving f64's range.
pub(crate) fn ln_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::{langford::Langford, queens::Queens};

    /// The colour-blind instance of the dance (`COLOURS = false`) must make exactly the
    /// moves of the general one on a problem without colours: same counts, same profile.
    #[test]
    fn colour_blind_dance_matches_the_coloured_one() {
        let problems = [
            Queens::build(8).unwrap().problem,
            Langford::build(7, false).unwrap().problem,
        ];
        for p in &problems {
            let mut blind = Dlx::new(p);
            assert!(!blind.coloured);
            let mut general = Dlx::new(p);
            general.coloured = true;
            let before = general.links_fingerprint();
            assert_eq!(blind.count(), general.count());
            assert_eq!(blind.stats(), general.stats());
            assert_eq!(general.links_fingerprint(), before);
        }
    }

    /// Our nodes and updates follow DLX1's conventions and its tree (leftmost shortest item):
    /// the figures are DLX1's closing line ("Altogether 92 solutions, ..., 17160 updates,
    /// ..., 1049 nodes") on `write_dlx` of these very problems, run with `dlx1 v1`.
    #[test]
    fn counts_match_knuths_dlx1_on_the_same_input() {
        for (p, solutions, nodes, updates) in [
            (Queens::build(8).unwrap().problem, 92, 1049, 17160),
            (Langford::build(7, false).unwrap().problem, 52, 607, 8339),
        ] {
            let mut dlx = Dlx::new(&p);
            assert_eq!(dlx.count(), solutions);
            assert_eq!((dlx.stats().nodes, dlx.stats().updates), (nodes, updates));
        }
    }

    #[test]
    fn spans_cover_exactly_the_nodes_of_each_option() {
        let p = Queens::build(5).unwrap().problem;
        let dlx = Dlx::new(&p);
        for (o, &first) in dlx.option_first.iter().enumerate() {
            let last = first + p.option(o as OptionId).len() as u32 - 1;
            for x in first..=last {
                let s = dlx.span(x);
                assert_eq!((s.first, s.last), (first, last));
                assert_eq!(dlx.option_of_node(x), o as OptionId);
            }
        }
    }
}
