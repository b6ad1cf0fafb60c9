//! `Count`: an exact, non-negative count of solutions of any size, the one carrier of a
//! count, weight, symmetry factor, weighted sum or total from the wire to the report.
//!
//! Invariant: a `Count` is exact; no operation on it wraps, saturates or rounds. Its text
//! form is plain decimal digits (no sign, no spaces, no separators), the same on the wire
//! (`proto/proto/dancehall.proto`'s decimal strings), in SQLite's TEXT columns, in ledgers
//! and in JSON (`serde` writes a decimal string).
//!
//! Why an arbitrary-precision integer (`num_bigint::BigUint`) and not a machine integer or a
//! factored form: the totals dancehall is asked for outgrow every fixed width. The 12x12
//! Sudoku with 2x6 boxes has 38,296,278,920,738,107,863,746,324,732,012,492,486,187,417,600,000
//! grids (about 2^165; K. F. Pettersen, enjoysudoku forum, "Su-Doku's maths", 2006), past
//! `u128`, and the next sizes would outgrow a `u256` just as surely. A factored form
//! (a product of primes, or `factor x sum`) only helps for products: a total is a sum of
//! weight x count terms whose factorisations share nothing, so each addition would need the
//! expanded number anyway. The cost of `BigUint` is an allocation per value above 64 bits,
//! which is nothing beside counting a unit. Algorithms inside `cores` whose values are
//! bounded (permanents below Bregman's bound, band counts) keep `u128` and convert here at
//! their edge.

use std::fmt;
use std::iter::{Product, Sum};
use std::ops::{Add, AddAssign, Mul, MulAssign};
use std::str::FromStr;

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

/// An exact non-negative count (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Count(BigUint);

/// Why a text is not a count; the message says what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseCountError {
    #[error("a count must be a decimal number, got an empty text")]
    Empty,
    #[error("a count is a plain decimal number without a sign, got {0:?}")]
    Sign(String),
    #[error("a count is decimal digits only, got {text:?} ({found:?} at byte {at})")]
    NotDigit {
        text: String,
        found: char,
        at: usize,
    },
}

impl Count {
    pub fn zero() -> Count {
        Count(BigUint::zero())
    }

    pub fn one() -> Count {
        Count(BigUint::one())
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// The number of bits of the value (0 for zero): a count below 2^128 has at most 128.
    pub fn bits(&self) -> u64 {
        self.0.bits()
    }

    /// The value as a machine integer, `None` above `u128::MAX`; for a caller that truly
    /// needs one (an engine's limit, a bounded count), never for a total.
    pub fn to_u128(&self) -> Option<u128> {
        self.0.to_u128()
    }

    /// `(self / d, self % d)`, `None` when `d` is zero.
    pub fn checked_div_rem(&self, d: &Count) -> Option<(Count, Count)> {
        if d.is_zero() {
            return None;
        }
        Some((Count(&self.0 / &d.0), Count(&self.0 % &d.0)))
    }

    /// `self / d` when `d` divides `self` exactly, else `None` (zero `d` included): the
    /// quotient of Burnside's lemma, which must divide.
    pub fn checked_div_exact(&self, d: &Count) -> Option<Count> {
        match self.checked_div_rem(d)? {
            (q, r) if r.is_zero() => Some(q),
            _ => None,
        }
    }

    /// `self - o`, `None` when `o` is larger.
    pub fn checked_sub(&self, o: &Count) -> Option<Count> {
        (self.0 >= o.0).then(|| Count(&self.0 - &o.0))
    }

    /// The integer square root when `self` is a perfect square (a two-band unit's count is
    /// B(C)^2), else `None`.
    pub fn exact_sqrt(&self) -> Option<Count> {
        let r = self.0.sqrt();
        (&r * &r == self.0).then_some(Count(r))
    }

    /// `self x self`.
    pub fn square(&self) -> Count {
        Count(&self.0 * &self.0)
    }

    /// The value as a `BigUint`, for arithmetic this type does not offer.
    pub fn as_biguint(&self) -> &BigUint {
        &self.0
    }
}

impl FromStr for Count {
    type Err = ParseCountError;

    fn from_str(s: &str) -> Result<Count, ParseCountError> {
        if s.is_empty() {
            return Err(ParseCountError::Empty);
        }
        if s.starts_with(['+', '-']) {
            return Err(ParseCountError::Sign(s.to_string()));
        }
        if let Some((at, found)) = s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            return Err(ParseCountError::NotDigit {
                text: s.to_string(),
                found,
                at,
            });
        }
        // Digits only, so this cannot fail.
        Ok(Count(
            BigUint::parse_bytes(s.as_bytes(), 10).expect("decimal digits"),
        ))
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

macro_rules! from_unsigned {
    ($($t:ty),*) => {$(
        impl From<$t> for Count {
            fn from(v: $t) -> Count {
                Count(BigUint::from(v))
            }
        }
    )*};
}
from_unsigned!(u8, u16, u32, u64, u128, usize);

impl From<BigUint> for Count {
    fn from(v: BigUint) -> Count {
        Count(v)
    }
}

impl From<Count> for BigUint {
    fn from(v: Count) -> BigUint {
        v.0
    }
}

impl Add for Count {
    type Output = Count;
    fn add(self, o: Count) -> Count {
        Count(self.0 + o.0)
    }
}

impl Add<&Count> for Count {
    type Output = Count;
    fn add(self, o: &Count) -> Count {
        Count(self.0 + &o.0)
    }
}

impl Add<&Count> for &Count {
    type Output = Count;
    fn add(self, o: &Count) -> Count {
        Count(&self.0 + &o.0)
    }
}

impl AddAssign for Count {
    fn add_assign(&mut self, o: Count) {
        self.0 += o.0;
    }
}

impl AddAssign<&Count> for Count {
    fn add_assign(&mut self, o: &Count) {
        self.0 += &o.0;
    }
}

impl Mul for Count {
    type Output = Count;
    fn mul(self, o: Count) -> Count {
        Count(self.0 * o.0)
    }
}

impl Mul<&Count> for Count {
    type Output = Count;
    fn mul(self, o: &Count) -> Count {
        Count(self.0 * &o.0)
    }
}

impl Mul<&Count> for &Count {
    type Output = Count;
    fn mul(self, o: &Count) -> Count {
        Count(&self.0 * &o.0)
    }
}

impl MulAssign<&Count> for Count {
    fn mul_assign(&mut self, o: &Count) {
        self.0 *= &o.0;
    }
}

impl Sum for Count {
    fn sum<I: Iterator<Item = Count>>(iter: I) -> Count {
        iter.fold(Count::zero(), |acc, v| acc + v)
    }
}

impl<'a> Sum<&'a Count> for Count {
    fn sum<I: Iterator<Item = &'a Count>>(iter: I) -> Count {
        iter.fold(Count::zero(), |acc, v| acc + v)
    }
}

impl Product for Count {
    fn product<I: Iterator<Item = Count>>(iter: I) -> Count {
        iter.fold(Count::one(), |acc, v| acc * v)
    }
}

impl serde::Serialize for Count {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Count {
    /// A decimal string; a non-negative JSON or TOML integer is accepted too.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a count as a decimal string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Count, E> {
                s.parse().map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count::from(v))
            }
            fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Count, E> {
                Ok(Count::from(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Count, E> {
                u64::try_from(v)
                    .map(Count::from)
                    .map_err(|_| E::custom(ParseCountError::Sign(v.to_string())))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 12x12 Sudoku with 2x6 boxes (Pettersen 2006; `results/reference/sudoku-12x12-2x6`).
    const SUDOKU_12X12: &str = "38296278920738107863746324732012492486187417600000";

    fn big(s: &str) -> BigUint {
        BigUint::parse_bytes(s.as_bytes(), 10).unwrap()
    }

    #[test]
    fn count_round_trips_text_past_2_128() {
        let c: Count = SUDOKU_12X12.parse().unwrap();
        assert_eq!(c.to_string(), SUDOKU_12X12);
        assert_eq!(c.as_biguint(), &big(SUDOKU_12X12));
        assert!(c.to_u128().is_none());
        assert_eq!(c.bits(), 165);
        let max = Count::from(u128::MAX);
        assert_eq!(max.bits(), 128);
        assert_eq!(max.to_u128(), Some(u128::MAX));
        let past = max + Count::one();
        assert_eq!(past.to_string(), "340282366920938463463374607431768211456");
        assert_eq!(past.bits(), 129);
        assert_eq!(past.to_u128(), None);
        assert_eq!("0".parse::<Count>().unwrap(), Count::zero());
        assert_eq!("007".parse::<Count>().unwrap().to_string(), "7");
    }

    #[test]
    fn count_round_trips_serde_as_a_decimal_string() {
        let c: Count = SUDOKU_12X12.parse().unwrap();
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, format!("\"{SUDOKU_12X12}\""));
        assert_eq!(serde_json::from_str::<Count>(&json).unwrap(), c);
        assert_eq!(
            serde_json::from_str::<Count>("288").unwrap(),
            Count::from(288u32)
        );
        for bad in ["-1", "\"-1\"", "\"1e5\"", "1.5", "\"\""] {
            assert!(serde_json::from_str::<Count>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn count_parse_errors_say_what_is_wrong() {
        let msg = |s: &str| s.parse::<Count>().unwrap_err().to_string();
        assert_eq!(
            "".parse::<Count>().unwrap_err(),
            ParseCountError::Empty,
            "empty"
        );
        assert!(msg("").contains("empty"));
        assert!(msg("-5").contains("without a sign"), "{}", msg("-5"));
        assert!(msg("+5").contains("without a sign"));
        let e = msg("12x4");
        assert!(e.contains("'x'") && e.contains("byte 2"), "{e}");
        let e = msg(" 12");
        assert!(e.contains("' '") && e.contains("byte 0"), "{e}");
        let e = msg("1,000");
        assert!(e.contains("','") && e.contains("byte 1"), "{e}");
        assert!(msg("12 ").contains("byte 2"));
    }

    #[test]
    fn count_arithmetic_is_exact_where_u128_overflowed() {
        // Eight terms of (2^127 + 1) x 3: the u128 sum overflows, the Count sum does not.
        let w = (1u128 << 127) + 1;
        assert!((0..8)
            .try_fold(0u128, |a, _| a.checked_add(w.checked_mul(3)?))
            .is_none());
        let got: Count = (0..8).map(|_| Count::from(w) * Count::from(3u8)).sum();
        let want = BigUint::from(w) * 3u32 * 8u32;
        assert_eq!(got.as_biguint(), &want);
        let refs = [Count::from(w), Count::from(w)];
        assert_eq!(refs.iter().sum::<Count>(), Count::from(w) + Count::from(w));
        let sq = Count::from(u128::MAX).square();
        assert_eq!(sq.as_biguint(), &(BigUint::from(u128::MAX) * u128::MAX));
        assert_eq!(sq.exact_sqrt(), Some(Count::from(u128::MAX)));
        assert_eq!((sq + Count::one()).exact_sqrt(), None);
        assert_eq!(Count::zero().exact_sqrt(), Some(Count::zero()));
        let p: Count = [2u8, 3, 7].into_iter().map(Count::from).product();
        assert_eq!(p, Count::from(42u8));
    }

    #[test]
    fn count_division_reports_remainders_and_zero() {
        let n: Count = SUDOKU_12X12.parse().unwrap();
        let d = Count::from(1u128 << 100);
        let (q, r) = n.checked_div_rem(&d).unwrap();
        assert_eq!(q * &d + r.clone(), n);
        assert!(r < d);
        assert!(n.checked_div_rem(&Count::zero()).is_none());
        assert!(n.checked_div_exact(&Count::zero()).is_none());
        let six = Count::from(6u8);
        assert_eq!((n.clone() * &six).checked_div_exact(&six), Some(n.clone()));
        assert!((n.clone() * &six + Count::one())
            .checked_div_exact(&six)
            .is_none());
        assert_eq!(six.checked_sub(&Count::from(7u8)), None);
        assert_eq!(six.checked_sub(&Count::from(2u8)), Some(Count::from(4u8)));
    }
}
