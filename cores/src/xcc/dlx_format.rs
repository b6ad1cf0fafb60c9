//! Knuth's DLX text format, the input of his DLX1 and DLX2 programs (and of the `dlx` crate):
//!
//! ```text
//! | a comment: any line whose first non-blank character is `|`
//! a b c | x y          <- the item line: primary items, then `|`, then secondary items
//! a x:red              <- one option per line: `item` or `item:colour`
//! b c x:blue y
//! ```
//!
//! Blank lines are skipped, as in Knuth's programs. Colours go on secondary items only. The
//! `|` before the secondary items may be omitted when there are none, and may be glued to the
//! first secondary item (`a b |x`), as DLX1 allows. Knuth's DLX3 multiplicities (`2:3|a`) are
//! not part of this format.
//!
//! Invariant: `parse_dlx(&write_dlx(p)) == Ok(p)` for every problem whose colours are numbered
//! in order of first use, which is every problem that `parse_dlx` or the builders in
//! `cores::problems` make. Every breach of the format is a [`DlxParseError`] naming the
//! 1-based line; nothing here panics on bad input.

use std::fmt::Write as _;

use super::problem::{Problem, ProblemBuilder, ProblemError};

/// A malformed DLX text: the 1-based line at fault and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct DlxParseError {
    /// 1-based line number; for a missing item line, one past the last line.
    pub line: usize,
    pub kind: DlxErrorKind,
}

impl DlxParseError {
    /// The problem without the line number.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

/// What is wrong with a line of DLX text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DlxErrorKind {
    #[error("no item line: the text holds only comments and blank lines")]
    NoItemLine,
    #[error("the item line has `|` twice")]
    SecondBar,
    #[error("empty item name in `{0}`")]
    EmptyItemName(String),
    #[error("empty colour in `{0}`")]
    EmptyColour(String),
    #[error(transparent)]
    Problem(#[from] ProblemError),
}

/// Reads a problem in Knuth's DLX format.
pub fn parse_dlx(text: &str) -> Result<Problem, DlxParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| {
            let t = l.trim_start();
            !t.is_empty() && !t.starts_with('|')
        });
    let Some((item_line, items)) = lines.next() else {
        return Err(DlxParseError {
            line: text.lines().count() + 1,
            kind: DlxErrorKind::NoItemLine,
        });
    };
    let at = |line: usize| move |kind: DlxErrorKind| DlxParseError { line, kind };
    let mut builder = ProblemBuilder::new();
    let primary = parse_items(&mut builder, items).map_err(at(item_line))?;
    if primary == 0 {
        return Err(at(item_line)(ProblemError::NoPrimaryItems.into()));
    }
    for (line, option) in lines {
        parse_option(&mut builder, option).map_err(at(line))?;
    }
    // The only failure left (no primary item) was ruled out above.
    builder.build().map_err(|e| at(item_line)(e.into()))
}

/// Declares the items of the item line; returns how many are primary.
fn parse_items(builder: &mut ProblemBuilder, line: &str) -> Result<usize, DlxErrorKind> {
    let mut secondary = false;
    let mut primary = 0;
    for word in line.split_whitespace() {
        let name = match word.strip_prefix('|') {
            Some(rest) => {
                if secondary {
                    return Err(DlxErrorKind::SecondBar);
                }
                secondary = true;
                rest
            }
            None => word,
        };
        if name.is_empty() {
            continue;
        }
        if secondary {
            builder.secondary(name)?;
        } else {
            builder.primary(name)?;
            primary += 1;
        }
    }
    Ok(primary)
}

fn parse_option(builder: &mut ProblemBuilder, line: &str) -> Result<(), DlxErrorKind> {
    let words: Vec<&str> = line.split_whitespace().collect();
    for w in &words {
        let (name, colour) = match w.split_once(':') {
            Some((n, c)) => (n, Some(c)),
            None => (*w, None),
        };
        if name.is_empty() {
            return Err(DlxErrorKind::EmptyItemName(w.to_string()));
        }
        if colour == Some("") {
            return Err(DlxErrorKind::EmptyColour(w.to_string()));
        }
    }
    builder.option_named(&words)?;
    Ok(())
}

/// Writes `problem` in Knuth's DLX format: a header comment, the item line, one option a line.
pub fn write_dlx(problem: &Problem) -> String {
    let mut out = String::new();
    let secondary = problem.num_items() - problem.num_primary();
    let _ = writeln!(
        out,
        "| dancehall exact-cover problem: {} items ({} primary, {} secondary), {} options",
        problem.num_items(),
        problem.num_primary(),
        secondary,
        problem.num_options()
    );
    for i in 0..problem.num_items() {
        if i > 0 {
            out.push(' ');
        }
        if i == problem.num_primary() {
            out.push_str("| ");
        }
        out.push_str(problem.item_name(i as u32));
    }
    out.push('\n');
    for o in 0..problem.num_options() {
        out.push_str(&problem.option_text(o as u32));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn err(text: &str) -> (usize, DlxErrorKind) {
        let e = parse_dlx(text).unwrap_err();
        (e.line, e.kind)
    }

    #[test]
    fn reads_knuths_example() {
        // The XCC example of TAOCP 7.2.2.1 (49), as fed to DLX2.
        let text = "| Knuth's example with colours\n\
                    p q r | x y\n\
                    p q x y:A\n\
                    p r x:A y\n\
                    \n\
                    p x:B\n\
                    q x:A\n\
                    r y:B\n";
        let p = parse_dlx(text).unwrap();
        assert_eq!(p.num_items(), 5);
        assert_eq!(p.num_primary(), 3);
        assert_eq!(p.num_options(), 5);
        assert_eq!(p.num_colours(), 2);
        assert_eq!(p.option_text(0), "p q x y:A");
        assert_eq!(p.option_text(4), "r y:B");
        assert_eq!(p.item_name(3), "x");
        assert!(!p.is_primary(3));
    }

    #[test]
    fn bar_may_be_glued_or_absent() {
        let a = parse_dlx("a b |x\na x\nb\n").unwrap();
        let b = parse_dlx("a b | x\na x\nb\n").unwrap();
        assert_eq!(a, b);
        let c = parse_dlx("  | comment\r\na b\r\na\r\nb\r\n").unwrap();
        assert_eq!(c.num_primary(), 2);
        assert_eq!(c.num_items(), 2);
        assert_eq!(c.num_options(), 2);
    }

    #[test]
    fn missing_item_line() {
        assert_eq!(err(""), (1, DlxErrorKind::NoItemLine));
        assert_eq!(err("| only\n\n| comments\n"), (4, DlxErrorKind::NoItemLine));
    }

    #[test]
    fn item_line_errors() {
        assert_eq!(
            err("| c\na b a\n"),
            (2, ProblemError::DuplicateItem("a".into()).into())
        );
        assert_eq!(err("a | x | y\n"), (1, DlxErrorKind::SecondBar));
        assert_eq!(
            err("\n\na b:c\n"),
            (3, ProblemError::BadItemName("b:c".into()).into())
        );
        assert_eq!(
            err("a b|c\n"),
            (1, ProblemError::BadItemName("b|c".into()).into())
        );
    }

    #[test]
    fn option_errors() {
        let head = "| test\na b | x y\n";
        let cases: [(&str, DlxErrorKind); 7] = [
            ("a q", ProblemError::UnknownItem("q".into()).into()),
            ("a b a", ProblemError::ItemTwiceInOption("a".into()).into()),
            (
                "a x:1 x:2",
                ProblemError::ItemTwiceInOption("x".into()).into(),
            ),
            ("a:red b", ProblemError::ColourOnPrimary("a".into()).into()),
            ("x y:red", ProblemError::NoPrimaryInOption.into()),
            ("a :red", DlxErrorKind::EmptyItemName(":red".into())),
            ("a x:", DlxErrorKind::EmptyColour("x:".into())),
        ];
        for (option, kind) in cases {
            let text = format!("{head}a x\n| between\n{option}\nb\n");
            assert_eq!(err(&text), (5, kind), "option `{option}`");
        }
    }

    #[test]
    fn error_message_names_line_and_item() {
        let e = parse_dlx("a b\na\nb c\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3: unknown item `c`");
        assert_eq!(e.message(), "unknown item `c`");
    }

    #[test]
    fn writes_header_items_and_options() {
        let p = parse_dlx("a b | x\na x:red\nb x:red\nb\n").unwrap();
        let text = write_dlx(&p);
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("| "));
        assert_eq!(lines.next(), Some("a b | x"));
        assert_eq!(lines.collect::<Vec<_>>(), ["a x:red", "b x:red", "b"]);
        let q = parse_dlx("a b\na b\n").unwrap();
        assert_eq!(write_dlx(&q).lines().nth(1), Some("a b"));
    }

    /// A random well-formed problem, built through the builder's public API with colours
    /// interned in order of first use.
    fn arb_problem() -> impl Strategy<Value = Problem> {
        (1usize..6, 0usize..4)
            .prop_flat_map(|(np, ns)| {
                let n = np + ns;
                let option = (0..np, proptest::collection::vec((0..n, 0u32..3), 0..4));
                (
                    Just(np),
                    proptest::collection::vec(option, 0..8),
                    proptest::collection::vec("[A-Za-z0-9_#.,-]{1,4}", n..=n),
                )
            })
            .prop_map(|(np, options, names)| {
                let mut b = ProblemBuilder::new();
                let mut ids = Vec::new();
                for (i, stem) in names.iter().enumerate() {
                    // A per-index suffix keeps names distinct.
                    let name = format!("{stem}{i}");
                    ids.push(if i < np {
                        b.primary(&name).unwrap()
                    } else {
                        b.secondary(&name).unwrap()
                    });
                }
                for (first, rest) in options {
                    let mut words = vec![format!("{}{first}", names[first])];
                    let mut used = vec![first];
                    for (item, colour) in rest {
                        if used.contains(&item) {
                            continue;
                        }
                        used.push(item);
                        let mut w = format!("{}{item}", names[item]);
                        if item >= np && colour > 0 {
                            w.push_str(&format!(":c{colour}"));
                        }
                        words.push(w);
                    }
                    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
                    b.option_named(&refs).unwrap();
                }
                b.build().unwrap()
            })
    }

    proptest! {
        #[test]
        fn parse_inverts_write(p in arb_problem()) {
            let text = write_dlx(&p);
            prop_assert_eq!(parse_dlx(&text), Ok(p));
        }
    }
}
