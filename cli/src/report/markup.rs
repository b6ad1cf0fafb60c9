//! Text made safe inside HTML and SVG, for the page (`html`) and its charts (`charts`).

/// `&`, `<`, `>` and `"` as entities.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
