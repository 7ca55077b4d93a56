//! Presentational HTML mapped into the cascade, as the HTML standard's rendering section tells
//! browsers to: `<font size color face>`, `bgcolor`, `background`, `text`/`link` on `<body>`,
//! `width`/`height` and `align=left|right` on tables, cells and images.
//!
//! These hints sit in the author origin with specificity zero, before every author rule, so any
//! style sheet rule or `style` attribute overrides them. Real corpus pages (2000s news pages
//! without their external sheets) carry most of their styling this way.

use scraper::node::Element;

use super::values::{legacy_font_size, parse_color, parse_family, Decl, Float, FontSizeSpec, LengthSpec, Prop, Rgba, Value};

/// Page-wide state a hint needs: the `<body link>` colour applies to every `<a href>`.
#[derive(Debug, Default, Clone, Copy)]
pub struct HintContext {
    pub link_color: Option<Rgba>,
}

/// Elements whose `bgcolor` attribute paints their background.
const BGCOLOR: &[&str] = &["body", "table", "tr", "td", "th", "thead", "tbody", "tfoot", "marquee"];
/// Elements whose `background` attribute is an image.
const BACKGROUND: &[&str] = &["body", "table", "tr", "td", "th", "thead", "tbody", "tfoot"];
/// Elements whose `width` attribute maps to the `width` property.
const WIDTH: &[&str] = &["table", "td", "th", "col", "colgroup", "img", "iframe", "embed", "object", "video", "hr", "applet", "canvas", "input", "pre"];
/// Elements whose `height` attribute maps to the `height` property.
const HEIGHT: &[&str] = &["table", "tr", "td", "th", "img", "iframe", "embed", "object", "video", "applet", "canvas", "input"];
/// Elements whose `align=left|right` floats them.
const FLOAT_ALIGN: &[&str] = &["img", "table", "iframe", "embed", "object", "applet"];

/// Appends the presentational hints of one element.
pub fn hints(el: &Element, ctx: &HintContext, out: &mut Vec<Decl>) {
    let tag = el.name();
    let mut push = |prop, value| out.push(Decl { prop, value });
    if tag == "font" {
        if let Some(px) = el.attr("size").and_then(legacy_font_size) {
            push(Prop::FontSize, Value::FontSize(FontSizeSpec::Px(px)));
        }
        if let Some(c) = el.attr("color").and_then(parse_color) {
            push(Prop::Color, Value::Color(c));
        }
        if let Some(f) = el.attr("face").and_then(parse_family) {
            push(Prop::FontFamily, Value::Family(f));
        }
    }
    if tag == "body" {
        if let Some(c) = el.attr("text").and_then(parse_color) {
            push(Prop::Color, Value::Color(c));
        }
    }
    if tag == "a" && el.attr("href").is_some() {
        if let Some(c) = ctx.link_color {
            push(Prop::Color, Value::Color(c));
        }
    }
    if BGCOLOR.contains(&tag) {
        if let Some(c) = el.attr("bgcolor").and_then(parse_color) {
            push(Prop::BackgroundColor, Value::Color(c));
        }
    }
    if BACKGROUND.contains(&tag) && el.attr("background").is_some_and(|v| !v.trim().is_empty()) {
        push(Prop::BackgroundImage, Value::BackgroundImage(true));
    }
    if WIDTH.contains(&tag) {
        if let Some(l) = el.attr("width").and_then(dimension) {
            push(Prop::Width, Value::Length(l));
        }
    }
    if HEIGHT.contains(&tag) {
        if let Some(l) = el.attr("height").and_then(dimension) {
            push(Prop::Height, Value::Length(l));
        }
    }
    if FLOAT_ALIGN.contains(&tag) {
        match el.attr("align").map(|a| a.trim().to_ascii_lowercase()).as_deref() {
            Some("left") => push(Prop::Float, Value::Float(Float::Left)),
            Some("right") => push(Prop::Float, Value::Float(Float::Right)),
            _ => {}
        }
    }
}

/// The `<body link>` colour, read when `<body>` is met.
pub fn body_link_color(el: &Element) -> Option<Rgba> {
    (el.name() == "body").then(|| el.attr("link").and_then(parse_color)).flatten()
}

/// An HTML dimension attribute: `120`, `120px`, `50%` (the standard's "rules for parsing
/// dimension values": leading digits, then an optional `%`; zero and junk are ignored).
fn dimension(v: &str) -> Option<LengthSpec> {
    let v = v.trim();
    let end = v.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(v.len());
    let n: f32 = v[..end].parse().ok()?;
    if n <= 0.0 || !n.is_finite() {
        return None;
    }
    Some(if v[end..].trim_start().starts_with('%') { LengthSpec::Percent(n) } else { LengthSpec::Px(n) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions() {
        assert_eq!(dimension("120"), Some(LengthSpec::Px(120.0)));
        assert_eq!(dimension(" 50% "), Some(LengthSpec::Percent(50.0)));
        assert_eq!(dimension("300px"), Some(LengthSpec::Px(300.0)));
        assert_eq!(dimension("*"), None);
        assert_eq!(dimension("0"), None);
    }
}
