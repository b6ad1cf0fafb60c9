//! Figures as the report's tables show them (text and HTML alike): times with their unit, so
//! that a run of a fraction of a millisecond is not shown as `0.000`.

/// A duration in seconds as a table shows it: `0.213 ms` below a millisecond, `108.2 ms` below
/// a second, `1.09 s` from a second on (`0 s` for nothing).
pub fn seconds(s: f64) -> String {
    if s == 0.0 {
        "0 s".into()
    } else if s < 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_under_a_second_are_shown_in_milliseconds() {
        assert_eq!(seconds(0.0), "0 s");
        assert_eq!(seconds(0.000_213), "0.213 ms");
        assert_eq!(seconds(0.108_24), "108.2 ms");
        assert_eq!(seconds(20.018), "20.02 s");
    }
}
