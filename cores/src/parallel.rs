//! The one fan-out of plain CPU work over the local cores that the generators share (band
//! classes, two-band classes, orbit classes): scoped threads taking items in turn from a
//! shared counter, the results returned in the items' order, so that what a generator makes
//! does not depend on the number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The local cores (1 when the system does not say).
pub fn local_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` of every item on `threads` threads (at least one), each thread taking the next item
/// not yet taken; the results in the items' order. A panic in `f` is re-raised here.
pub fn map<I: Sync, T: Send>(threads: usize, items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return mine;
                        };
                        mine.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_items_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..1000).collect();
        let one = map(1, &items, |x| x * x);
        for threads in [2, 3, 8, 5000] {
            assert_eq!(map(threads, &items, |x| x * x), one, "{threads} threads");
        }
        assert_eq!(one[999], 999 * 999);
        assert!(map(4, &[] as &[u64], |x| *x).is_empty());
    }

    #[test]
    #[should_panic(expected = "item 7")]
    fn a_panic_in_a_thread_reaches_the_caller() {
        let items: Vec<u64> = (0..20).collect();
        map(2, &items, |&x| {
            assert!(x != 7, "item 7");
            x
        });
    }
}
