//! CSS values: the specified values the cascade orders, the computed values it produces, and the
//! small parsers between text and both.
//!
//! Only the properties the stylistic view reads are modelled ([`Prop`]); every other declaration
//! is dropped when a sheet is read. Parsing is forgiving the way browsers in quirks mode are
//! (most corpus pages have no doctype): a unitless length is pixels, a legacy colour without `#`
//! is hex. A value that cannot be read is dropped, never an error.

use std::sync::Arc;

use lightningcss::traits::Parse;
use lightningcss::values::color::CssColor;
use serde::Serialize;

/// The initial (`medium`) font size in CSS pixels.
pub const MEDIUM_PX: f32 = 16.0;

/// The viewport against which `vw`/`vh` and viewport percentages are resolved: a desktop
/// browser window of the paper's time.
pub const VIEWPORT: (f32, f32) = (1024.0, 768.0);

/// A colour, 8 bits per channel plus alpha (0–255).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Rgba(pub [u8; 4]);

impl Rgba {
    pub const BLACK: Rgba = Rgba([0, 0, 0, 255]);
    pub const WHITE: Rgba = Rgba([255, 255, 255, 255]);
    pub const LINK_BLUE: Rgba = Rgba([0, 0, 238, 255]);

    /// Whether the colour paints nothing.
    pub fn is_transparent(self) -> bool {
        self.0[3] == 0
    }

    /// Euclidean RGB distance scaled to 0–1 (black to white is 1).
    pub fn distance(self, other: Rgba) -> f64 {
        let d: f64 = (0..3).map(|i| (f64::from(self.0[i]) - f64::from(other.0[i])).powi(2)).sum();
        d.sqrt() / (255.0 * 3f64.sqrt())
    }
}

/// The properties the stylistic view reads. Shorthands (`font`, `background`, `inset`) are
/// expanded into these when a sheet is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Prop {
    FontSize,
    FontWeight,
    FontFamily,
    FontStyle,
    TextDecoration,
    Color,
    BackgroundColor,
    BackgroundImage,
    Display,
    Visibility,
    Float,
    Position,
    Left,
    Top,
    Right,
    Bottom,
    Width,
    Height,
    ZIndex,
}

/// `display`, reduced to the distinctions the features need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Display {
    Inline,
    Block,
    InlineBlock,
    ListItem,
    Table,
    TableRow,
    TableCell,
    /// Other table parts (row groups, captions, columns).
    TablePart,
    Flex,
    Grid,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Visibility {
    Visible,
    Hidden,
    Collapse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Float {
    None,
    Left,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Position {
    Static,
    Relative,
    Absolute,
    Fixed,
    Sticky,
}

/// A computed length: `em`, `pt` and the like are resolved to pixels; percentages are kept
/// (PARCELS keeps percentage sizes as they are, section 5.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Length {
    Auto,
    Px(f32),
    Percent(f32),
}

impl Length {
    pub fn px(self) -> Option<f32> {
        match self {
            Length::Px(v) => Some(v),
            _ => None,
        }
    }
}

/// Text decoration lines, as bits.
pub mod decoration {
    pub const UNDERLINE: u8 = 1;
    pub const OVERLINE: u8 = 2;
    pub const LINE_THROUGH: u8 = 4;
}

/// A specified length before the element's font size is known.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LengthSpec {
    Auto,
    Px(f32),
    Em(f32),
    Rem(f32),
    Percent(f32),
}

/// A specified font size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FontSizeSpec {
    Px(f32),
    /// Relative to the parent's size (`em`, and `%` divided by 100).
    Em(f32),
    /// Relative to the root element's size.
    Rem(f32),
    Smaller,
    Larger,
}

/// A specified font weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WeightSpec {
    Absolute(u16),
    Bolder,
    Lighter,
}

/// A specified value of one [`Prop`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Inherit,
    Initial,
    FontSize(FontSizeSpec),
    Weight(WeightSpec),
    Family(Arc<str>),
    Italic(bool),
    Decoration(u8),
    Color(Rgba),
    CurrentColor,
    BackgroundImage(bool),
    Display(Display),
    Visibility(Visibility),
    Float(Float),
    Position(Position),
    Length(LengthSpec),
    ZIndex(Option<i32>),
}

/// One declaration the cascade orders: a property and its specified value.
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    pub prop: Prop,
    pub value: Value,
}

/// Reads one declaration (`name: value`, the value as lightningcss serialises it or as written
/// in HTML) into zero or more [`Decl`]s: unknown properties and unreadable values give none,
/// shorthands give several.
pub fn parse_declaration(name: &str, value: &str, out: &mut Vec<Decl>) {
    let value = value.trim();
    let lower = value.to_ascii_lowercase();
    let keyword = match lower.as_str() {
        "inherit" => Some(Value::Inherit),
        "initial" | "unset" | "revert" => Some(Value::Initial),
        _ => None,
    };
    let mut push = |prop: Prop, v: Option<Value>| {
        if let Some(value) = keyword.clone().or(v) {
            out.push(Decl { prop, value });
        }
    };
    match name.to_ascii_lowercase().as_str() {
        "font-size" => push(Prop::FontSize, parse_font_size(&lower).map(Value::FontSize)),
        "font-weight" => push(Prop::FontWeight, parse_weight(&lower).map(Value::Weight)),
        "font-family" => push(Prop::FontFamily, parse_family(value).map(Value::Family)),
        "font-style" => push(Prop::FontStyle, parse_font_style(&lower).map(Value::Italic)),
        "text-decoration" | "text-decoration-line" => push(Prop::TextDecoration, parse_decoration(&lower).map(Value::Decoration)),
        "color" => push(Prop::Color, parse_color_value(&lower)),
        "background-color" => push(Prop::BackgroundColor, parse_color_value(&lower)),
        "background-image" => push(Prop::BackgroundImage, Some(Value::BackgroundImage(lower.contains("url(")))),
        "display" => push(Prop::Display, parse_display(&lower).map(Value::Display)),
        "visibility" => push(Prop::Visibility, parse_visibility(&lower).map(Value::Visibility)),
        "float" => push(Prop::Float, parse_float(&lower).map(Value::Float)),
        "position" => push(Prop::Position, parse_position(&lower).map(Value::Position)),
        "left" => push(Prop::Left, parse_length(&lower).map(Value::Length)),
        "top" => push(Prop::Top, parse_length(&lower).map(Value::Length)),
        "right" => push(Prop::Right, parse_length(&lower).map(Value::Length)),
        "bottom" => push(Prop::Bottom, parse_length(&lower).map(Value::Length)),
        "width" => push(Prop::Width, parse_length(&lower).map(Value::Length)),
        "height" => push(Prop::Height, parse_length(&lower).map(Value::Length)),
        "z-index" => push(Prop::ZIndex, parse_z_index(&lower).map(Value::ZIndex)),
        "font" => expand_font(value, &lower, keyword, out),
        "background" => expand_background(&lower, keyword, out),
        _ => {}
    }
}

/// `font: [style] [variant] [weight] size[/line-height] family`. Every longhand is reset to its
/// initial value first, as the shorthand does.
fn expand_font(value: &str, lower: &str, keyword: Option<Value>, out: &mut Vec<Decl>) {
    const LONGHANDS: [Prop; 4] = [Prop::FontStyle, Prop::FontWeight, Prop::FontSize, Prop::FontFamily];
    if let Some(k) = keyword {
        out.extend(LONGHANDS.iter().map(|&prop| Decl { prop, value: k.clone() }));
        return;
    }
    let mut italic = false;
    let mut weight = WeightSpec::Absolute(400);
    let mut offset = 0;
    // Tokens before the size: style, variant, weight, stretch keywords.
    for token in lower.split_whitespace() {
        let token_start = lower[offset..].find(token).map_or(offset, |i| offset + i);
        offset = token_start + token.len();
        let size_part = token.split('/').next().unwrap_or(token);
        if let Some(size) = parse_font_size(size_part) {
            let family = value.get(offset..).map(skip_line_height).and_then(parse_family);
            out.push(Decl { prop: Prop::FontStyle, value: Value::Italic(italic) });
            out.push(Decl { prop: Prop::FontWeight, value: Value::Weight(weight) });
            out.push(Decl { prop: Prop::FontSize, value: Value::FontSize(size) });
            if let Some(f) = family {
                out.push(Decl { prop: Prop::FontFamily, value: Value::Family(f) });
            }
            return;
        }
        if let Some(i) = parse_font_style(token) {
            italic |= i;
        } else if let Some(w) = parse_weight(token) {
            weight = w;
        }
    }
    // No size: a system font (`caption`, `menu`) or junk; ignored.
}

/// What follows the size in `font`: `/ 1.5 Arial` (lightningcss writes spaces around the
/// slash) → `Arial`.
fn skip_line_height(rest: &str) -> &str {
    match rest.trim_start().strip_prefix('/') {
        Some(after) => {
            let after = after.trim_start();
            after.find(char::is_whitespace).map_or("", |i| &after[i..])
        }
        None => rest,
    }
}

/// `background: …`: its colour and whether it has an image; both reset by the shorthand.
fn expand_background(lower: &str, keyword: Option<Value>, out: &mut Vec<Decl>) {
    if let Some(k) = keyword {
        out.push(Decl { prop: Prop::BackgroundColor, value: k.clone() });
        out.push(Decl { prop: Prop::BackgroundImage, value: k });
        return;
    }
    let has_image = lower.contains("url(");
    // The colour is the last layer's token that reads as a colour (outside url(...)).
    let without_urls = strip_functions(lower, "url(");
    let color = split_tokens(&without_urls).into_iter().rev().find_map(|t| parse_color(&t)).unwrap_or(Rgba([0, 0, 0, 0]));
    out.push(Decl { prop: Prop::BackgroundColor, value: Value::Color(color) });
    out.push(Decl { prop: Prop::BackgroundImage, value: Value::BackgroundImage(has_image) });
}

/// Removes `name…)` groups (such as `url(…)`) from a value.
fn strip_functions(s: &str, name: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(name) {
        out.push_str(&rest[..i]);
        rest = rest[i..].find(')').map_or("", |j| &rest[i + j + 1..]);
    }
    out.push_str(rest);
    out
}

/// Splits a value into whitespace-separated tokens, keeping `fn(a, b)` groups whole.
fn split_tokens(s: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if (c.is_whitespace() || c == ',') && depth == 0 {
            if !cur.is_empty() {
                tokens.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    tokens
}

/// Splits a number from its unit: `12.5px` → (12.5, "px").
fn number_unit(s: &str) -> Option<(f32, &str)> {
    let s = s.trim();
    let end = s.char_indices().find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0))).map_or(s.len(), |(i, _)| i);
    let n: f32 = s[..end].parse().ok()?;
    n.is_finite().then_some((n, s[end..].trim()))
}

/// Absolute units in CSS pixels (`None` for relative or unknown units).
fn absolute_px(n: f32, unit: &str) -> Option<f32> {
    let factor = match unit {
        // Quirks mode: a unitless length is pixels.
        "px" | "" => 1.0,
        "pt" => 96.0 / 72.0,
        "pc" => 16.0,
        "in" => 96.0,
        "cm" => 96.0 / 2.54,
        "mm" => 96.0 / 25.4,
        "q" => 96.0 / 101.6,
        "vw" => VIEWPORT.0 / 100.0,
        "vh" => VIEWPORT.1 / 100.0,
        _ => return None,
    };
    Some(n * factor)
}

/// A length or percentage (`auto` included).
pub fn parse_length(s: &str) -> Option<LengthSpec> {
    let s = s.trim();
    if s == "auto" {
        return Some(LengthSpec::Auto);
    }
    let (n, unit) = number_unit(s)?;
    Some(match unit {
        "%" => LengthSpec::Percent(n),
        "em" => LengthSpec::Em(n),
        "ex" | "ch" => LengthSpec::Em(n / 2.0),
        "rem" => LengthSpec::Rem(n),
        _ => LengthSpec::Px(absolute_px(n, unit)?),
    })
}

/// The absolute-size keywords in pixels (CSS Fonts 4, `medium` = 16px).
fn font_keyword(s: &str) -> Option<f32> {
    Some(match s {
        "xx-small" => 9.0,
        "x-small" => 10.0,
        "small" => 13.0,
        "medium" => 16.0,
        "large" => 18.0,
        "x-large" => 24.0,
        "xx-large" => 32.0,
        "xxx-large" => 48.0,
        _ => return None,
    })
}

pub fn parse_font_size(s: &str) -> Option<FontSizeSpec> {
    let s = s.trim();
    if let Some(px) = font_keyword(s) {
        return Some(FontSizeSpec::Px(px));
    }
    match s {
        "smaller" => return Some(FontSizeSpec::Smaller),
        "larger" => return Some(FontSizeSpec::Larger),
        _ => {}
    }
    let (n, unit) = number_unit(s)?;
    if n < 0.0 {
        return None;
    }
    Some(match unit {
        "%" => FontSizeSpec::Em(n / 100.0),
        "em" => FontSizeSpec::Em(n),
        "ex" | "ch" => FontSizeSpec::Em(n / 2.0),
        "rem" => FontSizeSpec::Rem(n),
        _ => FontSizeSpec::Px(absolute_px(n, unit)?),
    })
}

/// The size of `<font size=N>`: N absolute (1–7) or relative to 3 (`+2`, `-1`), as in the HTML
/// standard's legacy font size table.
pub fn legacy_font_size(attr: &str) -> Option<f32> {
    let a = attr.trim();
    let (sign, digits) = match a.as_bytes().first()? {
        b'+' => (1, &a[1..]),
        b'-' => (-1, &a[1..]),
        _ => (0, a),
    };
    let digits: String = digits.trim().chars().take_while(char::is_ascii_digit).collect();
    let n: i32 = digits.parse().ok()?;
    let level = if sign == 0 { n } else { 3 + sign * n }.clamp(1, 7);
    const SIZES: [f32; 7] = [10.0, 13.0, 16.0, 18.0, 24.0, 32.0, 48.0];
    SIZES.get(usize::try_from(level - 1).ok()?).copied()
}

pub fn parse_weight(s: &str) -> Option<WeightSpec> {
    Some(match s.trim() {
        "normal" => WeightSpec::Absolute(400),
        "bold" => WeightSpec::Absolute(700),
        "bolder" => WeightSpec::Bolder,
        "lighter" => WeightSpec::Lighter,
        other => {
            let n: f32 = other.parse().ok()?;
            if !(1.0..=1000.0).contains(&n) {
                return None;
            }
            WeightSpec::Absolute(n as u16)
        }
    })
}

/// The first family of a `font-family` list, lower case, unquoted.
pub fn parse_family(s: &str) -> Option<Arc<str>> {
    let first = s.split(',').next()?.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    if first.is_empty() {
        return None;
    }
    Some(Arc::from(first.to_ascii_lowercase().as_str()))
}

fn parse_font_style(s: &str) -> Option<bool> {
    match s.trim() {
        "normal" => Some(false),
        "italic" => Some(true),
        t if t.starts_with("oblique") => Some(true),
        _ => None,
    }
}

fn parse_decoration(s: &str) -> Option<u8> {
    let mut bits = 0;
    let mut any = false;
    for token in s.split_whitespace() {
        match token {
            "none" => {}
            "underline" => bits |= decoration::UNDERLINE,
            "overline" => bits |= decoration::OVERLINE,
            "line-through" => bits |= decoration::LINE_THROUGH,
            _ => continue,
        }
        any = true;
    }
    any.then_some(bits)
}

fn parse_color_value(s: &str) -> Option<Value> {
    if s.trim() == "currentcolor" {
        return Some(Value::CurrentColor);
    }
    parse_color(s).map(Value::Color)
}

/// A CSS colour (named, `#hex`, `rgb()`, `hsl()`, …) through lightningcss, or a legacy HTML
/// colour (`ff0000` without `#`, as `bgcolor` and `<font color>` allow).
pub fn parse_color(s: &str) -> Option<Rgba> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if let Some(c) = css_color(s) {
        return Some(c);
    }
    let hex = s.trim_start_matches('#');
    if (hex.len() == 3 || hex.len() == 6) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return css_color(&format!("#{hex}"));
    }
    None
}

fn css_color(s: &str) -> Option<Rgba> {
    let color = CssColor::parse_string(s).ok()?;
    match color.to_rgb().ok()? {
        CssColor::RGBA(c) => Some(Rgba([c.red, c.green, c.blue, c.alpha])),
        _ => None,
    }
}

pub fn parse_display(s: &str) -> Option<Display> {
    Some(match s.trim() {
        "none" => Display::None,
        "inline" => Display::Inline,
        "block" | "flow-root" | "run-in" | "block flow" => Display::Block,
        "inline-block" | "inline-flex" | "inline-grid" | "inline-table" => Display::InlineBlock,
        "list-item" => Display::ListItem,
        "table" => Display::Table,
        "table-row" => Display::TableRow,
        "table-cell" => Display::TableCell,
        "table-row-group" | "table-header-group" | "table-footer-group" | "table-column" | "table-column-group" | "table-caption" => Display::TablePart,
        "flex" | "-webkit-box" | "-webkit-flex" | "-ms-flexbox" => Display::Flex,
        "grid" | "-ms-grid" => Display::Grid,
        // `contents` renders the children in place: closest is inline.
        "contents" => Display::Inline,
        _ => return None,
    })
}

fn parse_visibility(s: &str) -> Option<Visibility> {
    Some(match s.trim() {
        "visible" => Visibility::Visible,
        "hidden" => Visibility::Hidden,
        "collapse" => Visibility::Collapse,
        _ => return None,
    })
}

fn parse_float(s: &str) -> Option<Float> {
    Some(match s.trim() {
        "none" => Float::None,
        "left" | "inline-start" => Float::Left,
        "right" | "inline-end" => Float::Right,
        _ => return None,
    })
}

fn parse_position(s: &str) -> Option<Position> {
    Some(match s.trim() {
        "static" => Position::Static,
        "relative" => Position::Relative,
        "absolute" => Position::Absolute,
        "fixed" => Position::Fixed,
        "sticky" | "-webkit-sticky" => Position::Sticky,
        _ => return None,
    })
}

fn parse_z_index(s: &str) -> Option<Option<i32>> {
    let s = s.trim();
    if s == "auto" {
        return Some(None);
    }
    let n: f64 = s.parse().ok()?;
    Some(Some(n.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_resolve_units() {
        assert_eq!(parse_length("12pt"), Some(LengthSpec::Px(16.0)));
        assert_eq!(parse_length("50%"), Some(LengthSpec::Percent(50.0)));
        assert_eq!(parse_length("1.5em"), Some(LengthSpec::Em(1.5)));
        assert_eq!(parse_length("300"), Some(LengthSpec::Px(300.0)));
        assert_eq!(parse_length("1in"), Some(LengthSpec::Px(96.0)));
        assert_eq!(parse_length("banana"), None);
    }

    #[test]
    fn legacy_font_sizes_follow_the_html_table() {
        assert_eq!(legacy_font_size("+2"), Some(24.0)); // 3 + 2 = 5 → x-large
        assert_eq!(legacy_font_size("-1"), Some(13.0));
        assert_eq!(legacy_font_size("7"), Some(48.0));
        assert_eq!(legacy_font_size("+9"), Some(48.0));
        assert_eq!(legacy_font_size("x"), None);
    }

    #[test]
    fn colours_named_hex_and_legacy() {
        assert_eq!(parse_color("red"), Some(Rgba([255, 0, 0, 255])));
        assert_eq!(parse_color("#00f"), Some(Rgba([0, 0, 255, 255])));
        assert_eq!(parse_color("ff8000"), Some(Rgba([255, 128, 0, 255])));
        assert_eq!(parse_color("rgb(1, 2, 3)"), Some(Rgba([1, 2, 3, 255])));
        assert_eq!(parse_color("nonsense"), None);
    }

    #[test]
    fn font_shorthand_expands() {
        let mut out = Vec::new();
        parse_declaration("font", "italic bold 12px/30px Georgia, serif", &mut out);
        let mut spaced = Vec::new();
        parse_declaration("font", "bold 12px / 1.5 Lucida Grande, sans-serif", &mut spaced);
        assert!(spaced.contains(&Decl { prop: Prop::FontFamily, value: Value::Family(Arc::from("lucida grande")) }));
        assert!(out.contains(&Decl { prop: Prop::FontSize, value: Value::FontSize(FontSizeSpec::Px(12.0)) }));
        assert!(out.contains(&Decl { prop: Prop::FontWeight, value: Value::Weight(WeightSpec::Absolute(700)) }));
        assert!(out.contains(&Decl { prop: Prop::FontStyle, value: Value::Italic(true) }));
        assert!(out.contains(&Decl { prop: Prop::FontFamily, value: Value::Family(Arc::from("georgia")) }));
    }

    #[test]
    fn background_shorthand_finds_colour() {
        let mut out = Vec::new();
        parse_declaration("background", "url(a.png) no-repeat #ff0000", &mut out);
        assert_eq!(out[0], Decl { prop: Prop::BackgroundColor, value: Value::Color(Rgba([255, 0, 0, 255])) });
        assert_eq!(out[1], Decl { prop: Prop::BackgroundImage, value: Value::BackgroundImage(true) });
    }
}
