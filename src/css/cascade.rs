//! The cascade and computed values.
//!
//! Input: the page's DOM, the user-agent and author [`RuleSet`]s. Output: a [`ComputedStyle`]
//! for every element, in one iterative pass in document order (a parent is always computed
//! before its children, and nothing recurses, so 512-deep pages are fine).
//!
//! Declarations that apply to an element are ordered as CSS 2.1 section 6.4.1 says, lowest
//! first: user-agent rules, presentational hints, author rules, the `style` attribute, author
//! `!important` rules, `!important` in the `style` attribute; within a tier by specificity, then
//! source order. The last declaration of each property wins. Inherited properties (font size,
//! weight, family, style, colour, visibility) start from the parent's computed value; the rest
//! start from their initial values. Text decorations propagate to descendants as they are drawn.

use std::sync::Arc;

use ego_tree::iter::Edge;
use scraper::{ElementRef, Node};
use serde::Serialize;

use super::presentational::{body_link_color, hints, HintContext};
use super::sheet::{parse_style_attribute, Rule, RuleSet};
use super::values::{Decl, Display, Float, FontSizeSpec, Length, LengthSpec, Position, Prop, Rgba, Value, Visibility, WeightSpec, MEDIUM_PX};

/// The computed style of one element: the values the stylistic features read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComputedStyle {
    /// Font size in CSS pixels.
    pub font_size: f32,
    /// Font weight, 1–1000 (400 normal, 700 bold).
    pub font_weight: u16,
    /// The first family of `font-family`, lower case (`serif` when none is given).
    #[serde(serialize_with = "serialize_arc_str")]
    pub font_family: Arc<str>,
    /// Italic or oblique.
    pub italic: bool,
    /// Text decoration lines drawn on the element's text (bits of [`super::values::decoration`]),
    /// including those propagated from ancestors.
    pub decoration: u8,
    pub color: Rgba,
    /// The element's own background colour (transparent when it has none).
    pub background: Rgba,
    /// The colour behind the element's text: its own background or the nearest ancestor's
    /// (white canvas when none has one).
    pub effective_background: Rgba,
    pub background_image: bool,
    pub display: Display,
    /// False when the element or an ancestor is `display: none`.
    pub displayed: bool,
    pub visibility: Visibility,
    pub float: Float,
    pub position: Position,
    pub left: Length,
    pub top: Length,
    pub right: Length,
    pub bottom: Length,
    pub width: Length,
    pub height: Length,
    /// `None` for `auto`.
    pub z_index: Option<i32>,
}

fn serialize_arc_str<S: serde::Serializer>(v: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v)
}

impl ComputedStyle {
    /// The style of the (imaginary) parent of the root element: every property at its initial
    /// value.
    pub fn initial() -> ComputedStyle {
        ComputedStyle {
            font_size: MEDIUM_PX,
            font_weight: 400,
            font_family: Arc::from("serif"),
            italic: false,
            decoration: 0,
            color: Rgba::BLACK,
            background: Rgba([0, 0, 0, 0]),
            effective_background: Rgba::WHITE,
            background_image: false,
            display: Display::Inline,
            displayed: true,
            visibility: Visibility::Visible,
            float: Float::None,
            position: Position::Static,
            left: Length::Auto,
            top: Length::Auto,
            right: Length::Auto,
            bottom: Length::Auto,
            width: Length::Auto,
            height: Length::Auto,
            z_index: None,
        }
    }

    /// Whether the element's text is not drawn (`display: none` on it or an ancestor, or
    /// `visibility: hidden|collapse`).
    pub fn is_hidden(&self) -> bool {
        !self.displayed || self.visibility != Visibility::Visible
    }

    /// Whether the font is bold (weight 600 or more, where browsers switch to a bold face).
    pub fn is_bold(&self) -> bool {
        self.font_weight >= 600
    }

    /// A child's starting point: inherited properties copied, the others initial.
    fn inherit(parent: &ComputedStyle) -> ComputedStyle {
        ComputedStyle {
            font_size: parent.font_size,
            font_weight: parent.font_weight,
            font_family: Arc::clone(&parent.font_family),
            italic: parent.italic,
            decoration: parent.decoration,
            color: parent.color,
            effective_background: parent.effective_background,
            displayed: parent.displayed,
            visibility: parent.visibility,
            ..ComputedStyle::initial()
        }
    }
}

/// Which declarations an element gets, by cascade tier (CSS 2.1 §6.4.1), lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    UserAgent,
    Presentational,
    Author,
    StyleAttribute,
    AuthorImportant,
    StyleAttributeImportant,
}

/// The user-agent rules added in quirks mode (no or an old doctype, most corpus pages): tables do
/// not inherit font properties (the HTML standard's quirks-mode rendering rules).
pub const QUIRKS_CSS: &str = "table { font-weight: initial; font-style: initial; font-size: initial; }";

/// The style sheets of one page, ready to cascade.
pub struct Sheets<'a> {
    pub user_agent: &'a RuleSet,
    pub quirks: Option<&'a RuleSet>,
    pub author: &'a RuleSet,
}

/// Computes the style of every element of the document. Returns the styles in document order
/// with their nodes, and how many elements were styled without the author rules because the
/// page's author candidates (rules tried against an element, summed over elements) would have
/// passed `budget`.
pub fn cascade(html: &scraper::Html, sheets: &Sheets, budget: usize) -> (Vec<(ego_tree::NodeId, ComputedStyle)>, usize) {
    let mut out: Vec<(ego_tree::NodeId, ComputedStyle)> = Vec::new();
    // Indices into `out` of the open elements.
    let mut stack: Vec<usize> = Vec::new();
    let initial = ComputedStyle::initial();
    let mut ctx = HintContext::default();
    let mut root_font = MEDIUM_PX;
    let mut scratch = Scratch { author_budget: budget, ..Scratch::default() };
    for edge in html.tree.root().traverse() {
        match edge {
            Edge::Open(node) => {
                let Node::Element(el) = node.value() else { continue };
                let Some(element) = ElementRef::wrap(node) else { continue };
                if let Some(c) = body_link_color(el) {
                    ctx.link_color = Some(c);
                }
                let parent = stack.last().map_or(&initial, |&i| &out[i].1);
                let style = compute_element(element, parent, root_font, sheets, &ctx, &mut scratch, stack.is_empty());
                if stack.is_empty() {
                    root_font = style.font_size;
                }
                stack.push(out.len());
                out.push((node.id(), style));
            }
            Edge::Close(node) => {
                if node.value().is_element() {
                    stack.pop();
                }
            }
        }
    }
    (out, scratch.unstyled)
}

/// Buffers reused from element to element.
#[derive(Default)]
struct Scratch {
    /// Author candidates still allowed on this page.
    author_budget: usize,
    /// Elements styled without the author rules once the budget ran out.
    unstyled: usize,
    candidates: Vec<u32>,
    /// (tier, specificity, order, source) of every matched declaration list.
    matched: Vec<(Tier, u32, u32, Source)>,
    hints: Vec<Decl>,
}

/// Where a matched declaration list lives (no copies are made while matching).
#[derive(Debug, Clone, Copy)]
enum Source {
    /// A rule of the user-agent (0), quirks (1) or author (2) set.
    Rule {
        set: u8,
        rule: u32,
        important: bool,
    },
    Hints,
    Style {
        important: bool,
    },
}

fn compute_element(
    element: ElementRef,
    parent: &ComputedStyle,
    root_font: f32,
    sheets: &Sheets,
    ctx: &HintContext,
    scratch: &mut Scratch,
    is_root: bool,
) -> ComputedStyle {
    scratch.matched.clear();
    match_rules(element, sheets.user_agent, 0, Tier::UserAgent, 0, scratch);
    if let Some(quirks) = sheets.quirks {
        // Quirks rules come after the standard UA rules of the same tier and specificity.
        match_rules(element, quirks, 1, Tier::UserAgent, u32::MAX / 2, scratch);
    }
    scratch.hints.clear();
    hints(element.value(), ctx, &mut scratch.hints);
    if !scratch.hints.is_empty() {
        scratch.matched.push((Tier::Presentational, 0, 0, Source::Hints));
    }
    let el = element.value();
    let mut candidates = std::mem::take(&mut scratch.candidates);
    sheets.author.candidates(el.name(), el.id(), el.classes(), &mut candidates);
    let cost = candidates.len().saturating_mul(1 + el.classes().count() / super::CLASSES_PER_RULE_TEST);
    if cost <= scratch.author_budget && scratch.unstyled == 0 {
        scratch.author_budget -= cost;
        match_candidates(element, sheets.author, &candidates, 2, Tier::Author, 0, scratch);
    } else {
        scratch.unstyled += 1;
    }
    scratch.candidates = candidates;
    let style_attr = element.value().attr("style").map(parse_style_attribute);
    if style_attr.is_some() {
        scratch.matched.push((Tier::StyleAttribute, 0, 0, Source::Style { important: false }));
        scratch.matched.push((Tier::StyleAttributeImportant, 0, 0, Source::Style { important: true }));
    }
    // A stable sort keeps the order in which equal keys were pushed.
    scratch.matched.sort_by_key(|&(tier, spec, order, _)| (tier, spec, order));
    let sets = [Some(sheets.user_agent), sheets.quirks, Some(sheets.author)];
    let mut winners: [Option<&Value>; PROPS] = [None; PROPS];
    for &(_, _, _, source) in &scratch.matched {
        let decls: &[Decl] = match source {
            Source::Rule { set, rule, important } => {
                let Some(rule) = sets.get(usize::from(set)).copied().flatten().and_then(|s| s.rules.get(rule as usize)) else {
                    continue;
                };
                if important {
                    &rule.decls.important
                } else {
                    &rule.decls.normal
                }
            }
            Source::Hints => &scratch.hints,
            Source::Style { important } => match &style_attr {
                Some(block) if important => &block.important,
                Some(block) => &block.normal,
                None => continue,
            },
        };
        for d in decls {
            winners[d.prop as usize] = Some(&d.value);
        }
    }
    resolve(&winners, parent, root_font, is_root)
}

/// Number of [`Prop`] variants.
const PROPS: usize = Prop::ZIndex as usize + 1;

fn match_rules(element: ElementRef, set: &RuleSet, set_index: u8, tier: Tier, order_offset: u32, scratch: &mut Scratch) {
    let el = element.value();
    let mut candidates = std::mem::take(&mut scratch.candidates);
    set.candidates(el.name(), el.id(), el.classes(), &mut candidates);
    match_candidates(element, set, &candidates, set_index, tier, order_offset, scratch);
    scratch.candidates = candidates;
}

/// Matches an element against the given rules of a set.
fn match_candidates(element: ElementRef, set: &RuleSet, candidates: &[u32], set_index: u8, tier: Tier, order_offset: u32, scratch: &mut Scratch) {
    for &i in candidates {
        let Some(rule) = set.rules.get(i as usize) else { continue };
        if rule.selector.matches(&element) {
            push_rule(rule, set_index, i, tier, order_offset, scratch);
        }
    }
}

fn push_rule(rule: &Rule, set: u8, index: u32, tier: Tier, offset: u32, scratch: &mut Scratch) {
    let order = rule.order.saturating_add(offset);
    if !rule.decls.normal.is_empty() {
        scratch.matched.push((tier, rule.specificity, order, Source::Rule { set, rule: index, important: false }));
    }
    if !rule.decls.important.is_empty() {
        let important_tier = if tier == Tier::Author { Tier::AuthorImportant } else { tier };
        scratch.matched.push((important_tier, rule.specificity, order, Source::Rule { set, rule: index, important: true }));
    }
}

/// Turns the winning specified values into computed values.
fn resolve(winners: &[Option<&Value>; PROPS], parent: &ComputedStyle, root_font: f32, is_root: bool) -> ComputedStyle {
    let mut s = ComputedStyle::inherit(parent);
    // Font size first: `em` lengths of the other properties depend on it.
    if let Some(v) = winners[Prop::FontSize as usize] {
        s.font_size = match v {
            Value::FontSize(spec) => font_size(*spec, parent.font_size, root_font),
            Value::Initial => MEDIUM_PX,
            _ => parent.font_size,
        };
    }
    let font = s.font_size;
    for (i, winner) in winners.iter().enumerate() {
        let Some(v) = winner else { continue };
        match PROP_ORDER[i] {
            Prop::FontSize => {}
            Prop::FontWeight => {
                s.font_weight = match v {
                    Value::Weight(w) => weight(*w, parent.font_weight),
                    Value::Initial => 400,
                    _ => parent.font_weight,
                }
            }
            Prop::FontFamily => {
                s.font_family = match v {
                    Value::Family(f) => Arc::clone(f),
                    Value::Initial => Arc::from("serif"),
                    _ => Arc::clone(&parent.font_family),
                }
            }
            Prop::FontStyle => s.italic = matches!(v, Value::Italic(true)) || (matches!(v, Value::Inherit) && parent.italic),
            Prop::TextDecoration => {
                // Decorations propagate: a child cannot remove its ancestors' lines.
                if let Value::Decoration(bits) = v {
                    s.decoration |= bits;
                }
            }
            Prop::Color => {
                s.color = match v {
                    Value::Color(c) => *c,
                    Value::Initial => Rgba::BLACK,
                    _ => parent.color,
                }
            }
            Prop::BackgroundColor => {
                s.background = match v {
                    Value::Color(c) => *c,
                    Value::CurrentColor => s.color,
                    Value::Inherit => parent.background,
                    _ => Rgba([0, 0, 0, 0]),
                }
            }
            Prop::BackgroundImage => {
                s.background_image = match v {
                    Value::BackgroundImage(b) => *b,
                    Value::Inherit => parent.background_image,
                    _ => false,
                }
            }
            Prop::Display => {
                s.display = match v {
                    Value::Display(d) => *d,
                    Value::Inherit => parent.display,
                    _ => Display::Inline,
                }
            }
            Prop::Visibility => {
                s.visibility = match v {
                    Value::Visibility(x) => *x,
                    Value::Initial => Visibility::Visible,
                    _ => parent.visibility,
                }
            }
            Prop::Float => {
                s.float = match v {
                    Value::Float(f) => *f,
                    Value::Inherit => parent.float,
                    _ => Float::None,
                }
            }
            Prop::Position => {
                s.position = match v {
                    Value::Position(p) => *p,
                    Value::Inherit => parent.position,
                    _ => Position::Static,
                }
            }
            Prop::Left => s.left = length(v, parent.left, font, root_font),
            Prop::Top => s.top = length(v, parent.top, font, root_font),
            Prop::Right => s.right = length(v, parent.right, font, root_font),
            Prop::Bottom => s.bottom = length(v, parent.bottom, font, root_font),
            Prop::Width => s.width = length(v, parent.width, font, root_font),
            Prop::Height => s.height = length(v, parent.height, font, root_font),
            Prop::ZIndex => {
                s.z_index = match v {
                    Value::ZIndex(z) => *z,
                    Value::Inherit => parent.z_index,
                    _ => None,
                }
            }
        }
    }
    if s.color.is_transparent() {
        // A transparent text colour is the odd hack; treat it as not overriding.
        s.color = parent.color;
    }
    fix_up(&mut s, is_root);
    if !s.background.is_transparent() {
        s.effective_background = s.background;
    }
    s
}

/// CSS 2.1 §9.7: absolute positioning removes floating; floats, absolutely positioned boxes and
/// the root are blockified.
fn fix_up(s: &mut ComputedStyle, is_root: bool) {
    if matches!(s.position, Position::Absolute | Position::Fixed) {
        s.float = Float::None;
    }
    let blockify = is_root || s.float != Float::None || matches!(s.position, Position::Absolute | Position::Fixed);
    if blockify && matches!(s.display, Display::Inline | Display::InlineBlock | Display::TableRow | Display::TableCell | Display::TablePart) {
        s.display = Display::Block;
    }
    if s.display == Display::None {
        s.displayed = false;
    }
}

/// [`Prop`] by discriminant.
const PROP_ORDER: [Prop; PROPS] = [
    Prop::FontSize,
    Prop::FontWeight,
    Prop::FontFamily,
    Prop::FontStyle,
    Prop::TextDecoration,
    Prop::Color,
    Prop::BackgroundColor,
    Prop::BackgroundImage,
    Prop::Display,
    Prop::Visibility,
    Prop::Float,
    Prop::Position,
    Prop::Left,
    Prop::Top,
    Prop::Right,
    Prop::Bottom,
    Prop::Width,
    Prop::Height,
    Prop::ZIndex,
];

/// CSS Fonts 4: `smaller`/`larger` scale by 1.2, as browsers do between keyword steps.
const FONT_STEP: f32 = 1.2;

fn font_size(spec: FontSizeSpec, parent: f32, root: f32) -> f32 {
    let px = match spec {
        FontSizeSpec::Px(px) => px,
        FontSizeSpec::Em(f) => f * parent,
        FontSizeSpec::Rem(f) => f * root,
        FontSizeSpec::Smaller => parent / FONT_STEP,
        FontSizeSpec::Larger => parent * FONT_STEP,
    };
    // Sizes beyond any screen are junk or hacks (`font-size: 0` hides text: kept).
    px.clamp(0.0, 1000.0)
}

/// CSS Fonts 4, the table of `bolder`/`lighter` relative to the inherited weight.
fn weight(spec: WeightSpec, parent: u16) -> u16 {
    match spec {
        WeightSpec::Absolute(w) => w,
        WeightSpec::Bolder => match parent {
            0..350 => 400,
            350..550 => 700,
            _ => 900,
        },
        WeightSpec::Lighter => match parent {
            0..100 => parent,
            100..550 => 100,
            550..750 => 400,
            _ => 700,
        },
    }
}

fn length(v: &Value, parent: Length, font: f32, root_font: f32) -> Length {
    match v {
        Value::Length(LengthSpec::Auto) => Length::Auto,
        Value::Length(LengthSpec::Px(px)) => Length::Px(*px),
        Value::Length(LengthSpec::Em(f)) => Length::Px(f * font),
        Value::Length(LengthSpec::Rem(f)) => Length::Px(f * root_font),
        Value::Length(LengthSpec::Percent(p)) => Length::Percent(*p),
        Value::Inherit => parent,
        _ => Length::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prop_order_matches_discriminants() {
        for (i, p) in PROP_ORDER.iter().enumerate() {
            assert_eq!(*p as usize, i);
        }
    }

    #[test]
    fn bolder_and_lighter_follow_the_table() {
        assert_eq!(weight(WeightSpec::Bolder, 400), 700);
        assert_eq!(weight(WeightSpec::Bolder, 700), 900);
        assert_eq!(weight(WeightSpec::Lighter, 700), 400);
    }
}
