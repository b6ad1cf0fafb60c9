//! The Russian-doll search's transposition table (`rds`): frontier keys to proven upper bounds
//! on the tiles still placeable.
//!
//! Open addressing with linear probing over flat storage: a slot array of entry numbers and
//! one byte array holding every entry (its key padded to the instance's longest key, then its
//! bound as two little-endian bytes: wide enough for any board the instance reader accepts,
//! whose tiles number at most `MAX_N^2 / 3`, checked at compile time), so that the table is two allocations however many entries it holds. Clearing it
//! and dropping it therefore cost microseconds to milliseconds, where a map of boxed keys
//! spent hundreds of milliseconds freeing two million keys, past the caller's deadline.
//!
//! Invariant: a key is found only if it was stored with the same bytes. Keys of different
//! lengths never meet: the search's keys start with the cell they belong to, which fixes
//! their length, so padding cannot make two different keys equal.

use std::hash::Hasher;

use super::MAX_N;

/// A slot that holds no entry.
const VACANT: u32 = 0;
/// Bytes of a stored bound.
const BOUND: usize = 2;
/// A stored bound is a `u16`: every bound the search stores is at most the tiles that fit.
const _: () = assert!((MAX_N * MAX_N / 3) as u64 <= u16::MAX as u64);

pub(super) struct Table {
    /// Bytes per entry: the padded key, then the bound (`BOUND` bytes).
    stride: usize,
    /// Entries kept before the table is cleared (bounds its memory).
    capacity: usize,
    /// `VACANT` or 1 + the number of the entry; a power of two long, at most half full.
    slots: Vec<u32>,
    entries: Vec<u8>,
    /// Scratch: the key being looked up, padded.
    padded: Vec<u8>,
}

impl Table {
    /// A table for keys of at most `key_len` bytes that keeps at most `capacity` entries.
    pub(super) fn new(key_len: usize, capacity: usize) -> Self {
        Table {
            stride: key_len + BOUND,
            capacity: capacity.clamp(1, u32::MAX as usize / 2),
            slots: vec![VACANT; 64],
            entries: Vec::new(),
            padded: Vec::with_capacity(key_len),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len() / self.stride
    }

    /// The bound stored for `key`.
    pub(super) fn get(&mut self, key: &[u8]) -> Option<u16> {
        self.pad(key);
        match self.find(&self.padded) {
            Ok(entry) => Some(self.bound_of(entry)),
            Err(_) => None,
        }
    }

    fn bound_of(&self, entry: usize) -> u16 {
        let at = (entry + 1) * self.stride - BOUND;
        u16::from_le_bytes([self.entries[at], self.entries[at + 1]])
    }

    /// Records `bound` for `key`, keeping the smaller bound if `key` has one already. A full
    /// table is cleared first.
    pub(super) fn lower(&mut self, key: &[u8], bound: u16) {
        self.pad(key);
        let slot = match self.find(&self.padded) {
            Ok(entry) => {
                let at = (entry + 1) * self.stride - BOUND;
                let kept = self.bound_of(entry).min(bound);
                self.entries[at..at + BOUND].copy_from_slice(&kept.to_le_bytes());
                return;
            }
            Err(slot) => slot,
        };
        if self.len() >= self.capacity {
            self.slots.fill(VACANT);
            self.entries.clear();
            return self.lower(key, bound);
        }
        if 2 * (self.len() + 1) > self.slots.len() {
            self.grow();
            return self.lower(key, bound);
        }
        self.slots[slot] = (self.len() + 1) as u32;
        self.entries.extend_from_slice(&self.padded);
        self.entries.extend_from_slice(&bound.to_le_bytes());
    }

    /// `key` into `padded`, padded to the stride.
    fn pad(&mut self, key: &[u8]) {
        debug_assert!(key.len() <= self.stride - BOUND, "key longer than declared");
        self.padded.clear();
        self.padded.extend_from_slice(key);
        self.padded.resize(self.stride - BOUND, 0);
    }

    /// `Ok(entry)` holding `padded`, or `Err(slot)`: the vacant slot where it would go.
    fn find(&self, padded: &[u8]) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut slot = hash(padded) as usize & mask;
        loop {
            match self.slots[slot] {
                VACANT => return Err(slot),
                e => {
                    let entry = e as usize - 1;
                    let at = entry * self.stride;
                    if &self.entries[at..at + self.stride - BOUND] == padded {
                        return Ok(entry);
                    }
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Doubles the slot array and places every entry again.
    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        self.slots = vec![VACANT; size];
        let mask = size - 1;
        for (entry, bytes) in self.entries.chunks_exact(self.stride).enumerate() {
            let mut slot = hash(&bytes[..self.stride - BOUND]) as usize & mask;
            while self.slots[slot] != VACANT {
                slot = (slot + 1) & mask;
            }
            self.slots[slot] = entry as u32 + 1;
        }
    }
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(bytes);
    // Mix the high bits down: the slot is taken from the low bits.
    h.finish() ^ (h.finish() >> 29)
}

/// The Firefox hasher (rustc's FxHash): fast, fine for table keys that are not adversarial.
#[derive(Default)]
struct FxHasher {
    hash: u64,
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.hash = (self.hash.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_smallest_bound_per_key_and_clears_when_full() {
        let mut t = Table::new(4, 100);
        assert_eq!(t.get(&[1, 2]), None);
        t.lower(&[1, 2], 5);
        t.lower(&[1, 2, 0], 9);
        t.lower(&[1, 2], 7);
        assert_eq!(t.get(&[1, 2]), Some(5));
        // Padding makes [1, 2] and [1, 2, 0] one key: the search's keys never differ so.
        assert_eq!(t.get(&[1, 2, 0]), Some(5));
        assert_eq!(t.get(&[2, 1]), None);
        for i in 0..99u8 {
            t.lower(&[i, 3, i, 9], u16::from(i));
        }
        assert_eq!(t.len(), 100);
        assert_eq!(t.get(&[42, 3, 42, 9]), Some(42));
        assert_eq!(t.get(&[1, 2]), Some(5));
        t.lower(&[200, 0, 0, 1], 1);
        assert_eq!(t.len(), 1, "cleared when full");
        assert_eq!(t.get(&[200, 0, 0, 1]), Some(1));
        assert_eq!(t.get(&[42, 3, 42, 9]), None);
        assert_eq!(t.get(&[1, 2]), None);
    }

    /// Regression: bounds were one byte, clamped to 255, so a frontier that can still take
    /// 300 tiles was stored as taking at most 255 (a wrong proof on boards where more fit).
    #[test]
    fn bounds_above_255_are_kept_exactly() {
        let mut t = Table::new(3, 10);
        t.lower(&[7, 7, 7], 300);
        assert_eq!(t.get(&[7, 7, 7]), Some(300));
        t.lower(&[7, 7, 7], 1365);
        assert_eq!(t.get(&[7, 7, 7]), Some(300));
        t.lower(&[7, 7, 7], 256);
        assert_eq!(t.get(&[7, 7, 7]), Some(256));
    }
}
