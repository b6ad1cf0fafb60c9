//! Enums whose values are written as text: in the database (a `CHECK` list copies their
//! names), on the wire and in reports. Each such enum derives its names with `strum`
//! (`IntoStaticStr`, `EnumString`, `VariantArray`, `serialize_all = "kebab-case"` unless a
//! variant says otherwise) and gets `as_str`, `parse` and `ALL` from [`Label`], so that no
//! enum writes its names twice (once to print, once to parse).

use std::str::FromStr;

use strum::VariantArray;

/// An enum with one text name per value.
///
/// ```
/// use cores::bench::Status;
/// use cores::label::Label;
///
/// assert_eq!(Status::Optimal.as_str(), "optimal");
/// assert_eq!(Status::parse("unsatisfiable"), Some(Status::Unsatisfiable));
/// assert_eq!(Status::parse("Optimal"), None);
/// assert_eq!(Status::ALL[0], Status::Optimal);
/// ```
pub trait Label: Copy + Into<&'static str> + FromStr + VariantArray + 'static {
    /// Every value, in declaration order (the order tables show them).
    const ALL: &'static [Self] = Self::VARIANTS;

    /// The value's name.
    fn as_str(self) -> &'static str {
        self.into()
    }

    /// The value named `text` exactly (case and all), if any.
    fn parse(text: &str) -> Option<Self> {
        text.parse().ok()
    }
}

impl<T> Label for T where T: Copy + Into<&'static str> + FromStr + VariantArray + 'static {}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::{EnumString, IntoStaticStr};

    #[derive(Clone, Copy, Debug, PartialEq, IntoStaticStr, EnumString, VariantArray)]
    #[strum(serialize_all = "kebab-case")]
    enum Colour {
        Red,
        DeepBlue,
    }

    #[test]
    fn names_are_kebab_case_and_round_trip() {
        assert_eq!(Colour::DeepBlue.as_str(), "deep-blue");
        for c in Colour::ALL {
            assert_eq!(Colour::parse(c.as_str()), Some(*c));
        }
        assert_eq!(Colour::parse("red"), Some(Colour::Red));
        assert_eq!(Colour::parse("Red"), None);
        assert_eq!(Colour::parse(""), None);
        assert_eq!(Colour::ALL, &[Colour::Red, Colour::DeepBlue]);
    }
}
