//! Where in a spec's text a TOML error or a key is: 1-based lines for the messages of every
//! spec reader (`file:line: problem`).

/// 1-based line of byte offset `at` in `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The line to blame for a TOML error: the key or value named in backquotes in the message
/// when it appears inside the span (serde names the field or variant), else the span's start.
pub fn blame_line(text: &str, span: std::ops::Range<usize>, message: &str) -> usize {
    let inside = &text[span.start.min(text.len())..span.end.min(text.len())];
    let quoted = message.split('`').nth(1).filter(|q| !q.is_empty());
    if let Some(q) = quoted {
        // A key first (an unknown field), then a value (an unknown variant).
        let key = |line: &str| line.split('=').next().unwrap_or("").trim() == q;
        let value =
            |line: &str| line.contains(&format!("\"{q}\"")) || line.contains(&format!("'{q}'"));
        for matches in [&key as &dyn Fn(&str) -> bool, &value] {
            if let Some(i) = inside.lines().position(matches) {
                return line_of(text, span.start) + i;
            }
        }
    }
    line_of(text, span.start)
}
