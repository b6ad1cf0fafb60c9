//! Reduction of a problem by a prefix: the problem that remains once some options are
//! chosen, as a stand-alone `Problem` with the same solutions (minus the prefix). This is how
//! a Sudoku with givens, or a grid with its first row fixed, is exported to Knuth's DLX format,
//! which has no notion of a prefix.
//!
//! Invariant: an option survives iff it is compatible with every prefix option (no shared
//! primary or uncoloured item, the same colour on shared coloured items); items covered by
//! the prefix disappear, and a coloured item fixed by the prefix is dropped from the options
//! that agree with it. The count of the result equals `Dlx::apply_prefix` + `count`.

use super::problem::{OptionId, Problem, ProblemBuilder, ProblemError};
use super::search::PrefixError;

/// Why a reduction failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    #[error(transparent)]
    Prefix(#[from] PrefixError),
    #[error(transparent)]
    Problem(#[from] ProblemError),
}

/// The problem left after choosing `prefix`; a prefix that covers every primary item leaves
/// one primary item `#done` with one empty-looking option, so that the count stays 1.
pub fn reduce(problem: &Problem, prefix: &[OptionId]) -> Result<Problem, ReduceError> {
    // Per item: 0 free, -1 covered, c > 0 fixed to colour c.
    let mut state = vec![0i64; problem.num_items()];
    for &o in prefix {
        if o as usize >= problem.num_options() {
            return Err(PrefixError::UnknownOption(o).into());
        }
        for &(item, colour) in problem.option(o) {
            let s = &mut state[item as usize];
            match (*s, colour) {
                (0, 0) => *s = -1,
                (0, c) => *s = c as i64,
                (st, c) if c != 0 && st == c as i64 => {}
                _ => return Err(PrefixError::Clash { option: o, item }.into()),
            }
        }
    }
    let mut b = ProblemBuilder::new();
    let mut new_id = vec![u32::MAX; problem.num_items()];
    for item in 0..problem.num_items() as u32 {
        if state[item as usize] == 0 {
            let name = problem.item_name(item);
            new_id[item as usize] = if problem.is_primary(item) {
                b.primary(name)?
            } else {
                b.secondary(name)?
            };
        }
    }
    if !(0..problem.num_primary()).any(|i| state[i] == 0) {
        let done = b.primary("#done")?;
        b.option(&[done])?;
        return Ok(b.build()?);
    }
    // Surviving primary items keep the first new ids.
    let live_primary = (0..problem.num_primary())
        .filter(|&i| state[i] == 0)
        .count();
    let mut colours = Vec::new();
    for c in 1..=problem.num_colours() as u32 {
        colours.push(b.colour(problem.colour_name(c).unwrap_or("?"))?);
    }
    'options: for o in 0..problem.num_options() as OptionId {
        let mut items = Vec::new();
        for &(item, colour) in problem.option(o) {
            match state[item as usize] {
                0 => {
                    let c = if colour == 0 {
                        0
                    } else {
                        colours[colour as usize - 1]
                    };
                    items.push((new_id[item as usize], c));
                }
                st if colour != 0 && st == colour as i64 => {}
                _ => continue 'options,
            }
        }
        if items.iter().any(|&(i, _)| (i as usize) < live_primary) {
            b.option_coloured(&items)?;
        }
    }
    Ok(b.build()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xcc::Dlx;

    #[test]
    fn reduced_problem_counts_like_the_prefix() {
        // 6 queens-like check on a small exact cover: rows 0..3, cols 0..3 (a 4x4 Latin
        // permutation problem) with a coloured secondary item per option.
        let mut b = ProblemBuilder::new();
        let r: Vec<_> = (0..4)
            .map(|i| b.primary(&format!("r{i}")).unwrap())
            .collect();
        let c: Vec<_> = (0..4)
            .map(|i| b.primary(&format!("c{i}")).unwrap())
            .collect();
        let s = b.secondary("s").unwrap();
        let red = b.colour("red").unwrap();
        let blue = b.colour("blue").unwrap();
        for (i, &ri) in r.iter().enumerate() {
            for (j, &cj) in c.iter().enumerate() {
                let colour = if (i + j) % 2 == 0 { red } else { blue };
                b.option_coloured(&[(ri, 0), (cj, 0), (s, colour)]).unwrap();
            }
        }
        let p = b.build().unwrap();
        for prefix in [vec![], vec![0], vec![0, 5], vec![0, 5, 10, 15], vec![1]] {
            let mut d = Dlx::new(&p);
            d.apply_prefix(&prefix).unwrap();
            let want = d.count();
            let reduced = reduce(&p, &prefix).unwrap();
            assert_eq!(Dlx::new(&reduced).count(), want, "prefix {prefix:?}");
        }
        assert!(matches!(reduce(&p, &[0, 1]), Err(ReduceError::Prefix(_))));
    }
}
