//! An exact-cover problem with colours (XCC, Knuth's DLX2 input): named primary items that
//! every solution covers exactly once, named secondary items covered at most once or shared
//! by options that give them the same colour, and options (lists of items, a colour on
//! secondary items only).
//!
//! Invariant: a `Problem` is well formed once built: primary items come first (ids
//! `0..num_primary()`), every option is non-empty, names no item twice and puts colours on
//! secondary items only. Builders and the DLX-format reader go through [`ProblemBuilder`],
//! which reports any breach as a [`ProblemError`] instead of panicking.

use std::collections::HashMap;

/// Index of an item, primary items first.
pub type ItemId = u32;
/// Index of an option, in the order the options were added.
pub type OptionId = u32;
/// A colour on a secondary item; `0` means "no colour".
pub type Colour = u32;

/// What can be wrong with a problem while it is being built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemError {
    #[error("item `{0}` is declared twice")]
    DuplicateItem(String),
    #[error("primary item `{0}` is declared after a secondary item")]
    PrimaryAfterSecondary(String),
    #[error("unknown item `{0}`")]
    UnknownItem(String),
    #[error("item `{0}` appears twice in one option")]
    ItemTwiceInOption(String),
    #[error("an option must name at least one item")]
    EmptyOption,
    #[error("an option must name at least one primary item")]
    NoPrimaryInOption,
    #[error("primary item `{0}` cannot carry a colour")]
    ColourOnPrimary(String),
    #[error("item id {0} is out of range")]
    BadItemId(ItemId),
    #[error("invalid item name `{0}`")]
    BadItemName(String),
    #[error("the problem has no primary item")]
    NoPrimaryItems,
}

/// A finished, immutable exact-cover problem (the default one is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problem {
    item_names: Vec<String>,
    num_primary: usize,
    colour_names: Vec<String>,
    /// `option_start[o]..option_start[o + 1]` indexes `option_items` for option `o`.
    option_start: Vec<u32>,
    option_items: Vec<(ItemId, Colour)>,
}

impl Problem {
    pub fn num_items(&self) -> usize {
        self.item_names.len()
    }

    pub fn num_primary(&self) -> usize {
        self.num_primary
    }

    pub fn num_options(&self) -> usize {
        self.option_start.len() - 1
    }

    /// Total number of (item, option) incidences: the nodes of the dancing-links matrix.
    pub fn num_incidences(&self) -> usize {
        self.option_items.len()
    }

    pub fn item_name(&self, item: ItemId) -> &str {
        &self.item_names[item as usize]
    }

    pub fn is_primary(&self, item: ItemId) -> bool {
        (item as usize) < self.num_primary
    }

    /// Name of colour `c` (`c >= 1`); colour 0 has no name.
    pub fn colour_name(&self, c: Colour) -> Option<&str> {
        if c == 0 {
            None
        } else {
            self.colour_names.get(c as usize - 1).map(String::as_str)
        }
    }

    pub fn num_colours(&self) -> usize {
        self.colour_names.len()
    }

    /// Items (with colours, 0 = none) of option `o`, in the order given.
    pub fn option(&self, o: OptionId) -> &[(ItemId, Colour)] {
        let s = self.option_start[o as usize] as usize;
        let e = self.option_start[o as usize + 1] as usize;
        &self.option_items[s..e]
    }

    pub fn options(&self) -> impl Iterator<Item = &[(ItemId, Colour)]> + '_ {
        (0..self.num_options() as OptionId).map(move |o| self.option(o))
    }

    /// Looks an item up by name (linear; for tools and tests, not the search).
    pub fn item_by_name(&self, name: &str) -> Option<ItemId> {
        self.item_names
            .iter()
            .position(|n| n == name)
            .map(|i| i as ItemId)
    }

    /// Renders option `o` as a line of Knuth's DLX format.
    pub fn option_text(&self, o: OptionId) -> String {
        let mut s = String::new();
        for (k, &(item, colour)) in self.option(o).iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            s.push_str(self.item_name(item));
            if let Some(c) = self.colour_name(colour) {
                s.push(':');
                s.push_str(c);
            }
        }
        s
    }
}

/// Builds a [`Problem`]; every method checks what it is given.
#[derive(Debug, Default, Clone)]
pub struct ProblemBuilder {
    item_names: Vec<String>,
    item_index: HashMap<String, ItemId>,
    num_primary: usize,
    colour_names: Vec<String>,
    colour_index: HashMap<String, Colour>,
    option_start: Vec<u32>,
    option_items: Vec<(ItemId, Colour)>,
    /// Per item, the `stamp` of the last option attempt that named it.
    seen: Vec<u32>,
    stamp: u32,
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == ':' || c == '|')
}

impl ProblemBuilder {
    pub fn new() -> Self {
        ProblemBuilder {
            option_start: vec![0],
            ..Default::default()
        }
    }

    fn add_item(&mut self, name: &str) -> Result<ItemId, ProblemError> {
        if !valid_name(name) {
            return Err(ProblemError::BadItemName(name.to_string()));
        }
        if self.item_index.contains_key(name) {
            return Err(ProblemError::DuplicateItem(name.to_string()));
        }
        let id = self.item_names.len() as ItemId;
        self.item_names.push(name.to_string());
        self.item_index.insert(name.to_string(), id);
        self.seen.push(u32::MAX);
        Ok(id)
    }

    /// Declares a primary item; all primary items precede all secondary ones.
    pub fn primary(&mut self, name: &str) -> Result<ItemId, ProblemError> {
        if self.item_names.len() > self.num_primary {
            return Err(ProblemError::PrimaryAfterSecondary(name.to_string()));
        }
        let id = self.add_item(name)?;
        self.num_primary += 1;
        Ok(id)
    }

    /// Declares a secondary item.
    pub fn secondary(&mut self, name: &str) -> Result<ItemId, ProblemError> {
        self.add_item(name)
    }

    pub fn item_id(&self, name: &str) -> Option<ItemId> {
        self.item_index.get(name).copied()
    }

    /// Interns a colour name, giving its number (>= 1).
    pub fn colour(&mut self, name: &str) -> Result<Colour, ProblemError> {
        if !valid_name(name) {
            return Err(ProblemError::BadItemName(name.to_string()));
        }
        if let Some(&c) = self.colour_index.get(name) {
            return Ok(c);
        }
        self.colour_names.push(name.to_string());
        let c = self.colour_names.len() as Colour;
        self.colour_index.insert(name.to_string(), c);
        Ok(c)
    }

    /// Adds an option of uncoloured items.
    pub fn option(&mut self, items: &[ItemId]) -> Result<OptionId, ProblemError> {
        let coloured: Vec<(ItemId, Colour)> = items.iter().map(|&i| (i, 0)).collect();
        self.option_coloured(&coloured)
    }

    /// Adds an option; colour 0 means none.
    pub fn option_coloured(
        &mut self,
        items: &[(ItemId, Colour)],
    ) -> Result<OptionId, ProblemError> {
        if items.is_empty() {
            return Err(ProblemError::EmptyOption);
        }
        let o = (self.option_start.len() - 1) as u32;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == u32::MAX {
            self.seen.iter_mut().for_each(|s| *s = u32::MAX);
            self.stamp = 0;
        }
        let stamp = self.stamp;
        let mut has_primary = false;
        for &(item, colour) in items {
            let Some(name) = self.item_names.get(item as usize) else {
                return Err(ProblemError::BadItemId(item));
            };
            if self.seen[item as usize] == stamp {
                return Err(ProblemError::ItemTwiceInOption(name.clone()));
            }
            self.seen[item as usize] = stamp;
            let primary = (item as usize) < self.num_primary;
            has_primary |= primary;
            if primary && colour != 0 {
                return Err(ProblemError::ColourOnPrimary(name.clone()));
            }
            if colour as usize > self.colour_names.len() {
                return Err(ProblemError::BadItemId(colour));
            }
        }
        if !has_primary {
            // Knuth's programs accept such options but they can never be chosen; we refuse
            // them so that a typo does not silently vanish from the search.
            return Err(ProblemError::NoPrimaryInOption);
        }
        self.option_items.extend_from_slice(items);
        self.option_start.push(self.option_items.len() as u32);
        Ok(o)
    }

    /// Adds an option given as item names, `name` or `name:colour`.
    pub fn option_named(&mut self, words: &[&str]) -> Result<OptionId, ProblemError> {
        let mut items = Vec::with_capacity(words.len());
        for w in words {
            let (name, colour) = match w.split_once(':') {
                Some((n, c)) => (n, Some(c)),
                None => (*w, None),
            };
            let id = self
                .item_id(name)
                .ok_or_else(|| ProblemError::UnknownItem(name.to_string()))?;
            let c = match colour {
                Some(c) => {
                    if (id as usize) < self.num_primary {
                        return Err(ProblemError::ColourOnPrimary(name.to_string()));
                    }
                    self.colour(c)?
                }
                None => 0,
            };
            items.push((id, c));
        }
        self.option_coloured(&items)
    }

    pub fn num_options(&self) -> usize {
        self.option_start.len() - 1
    }

    pub fn build(self) -> Result<Problem, ProblemError> {
        if self.num_primary == 0 {
            return Err(ProblemError::NoPrimaryItems);
        }
        Ok(Problem {
            item_names: self.item_names,
            num_primary: self.num_primary,
            colour_names: self.colour_names,
            option_start: self.option_start,
            option_items: self.option_items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_malformed_options() {
        let mut b = ProblemBuilder::new();
        let a = b.primary("a").unwrap();
        let x = b.secondary("x").unwrap();
        assert_eq!(
            b.primary("b"),
            Err(ProblemError::PrimaryAfterSecondary("b".into()))
        );
        assert_eq!(
            b.option(&[a, a]),
            Err(ProblemError::ItemTwiceInOption("a".into()))
        );
        assert_eq!(b.option(&[]), Err(ProblemError::EmptyOption));
        assert_eq!(b.option(&[x]), Err(ProblemError::NoPrimaryInOption));
        assert_eq!(
            b.option_named(&["a:red"]),
            Err(ProblemError::ColourOnPrimary("a".into()))
        );
        assert_eq!(
            b.option_named(&["q"]),
            Err(ProblemError::UnknownItem("q".into()))
        );
        // A failed option leaves no trace: the next one is numbered 0, and a failure after
        // naming `a` does not make `a` look repeated.
        assert!(b.option_named(&["a", "x", "x"]).is_err());
        assert_eq!(b.option_named(&["a", "x:red"]), Ok(0));
        let p = b.build().unwrap();
        assert_eq!(p.num_options(), 1);
        assert_eq!(p.option_text(0), "a x:red");
    }
}
