//! Style sheets: reading CSS text with lightningcss into rules the cascade can match.
//!
//! Input: CSS text (a `<style>` element, an external file, the user-agent sheet) and where it came
//! from. Output: a [`RuleSet`]: one [`Rule`] per complex selector, with its specificity, its
//! source order and the declarations the stylistic view reads, bucketed by the rightmost
//! compound's id, class or tag so an element is only tested against rules that can match it.
//!
//! lightningcss parses with error recovery, so a bad rule or declaration (IE hacks such as
//! `*zoom:1`, `_height:1px`, `filter:progid:…`) is skipped and parsing goes on. Selectors are
//! serialised back to text and parsed again by `scraper` (servo's `selectors`), which matches
//! them against the DOM; selectors it cannot represent (`:hover`, `::before`) never match a
//! static page anyway and are dropped. `@media` blocks apply when they target the screen of a
//! desktop browser (see [`media_matches`]); `@import` is resolved by the caller's loader.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use lightningcss::declaration::DeclarationBlock;
use lightningcss::rules::CssRule;
use lightningcss::selector::Component;
use lightningcss::stylesheet::{ParserOptions, PrinterOptions, StyleAttribute, StyleSheet};
use lightningcss::traits::ToCss;

use super::values::{parse_declaration, Decl};

/// The declarations of one style rule, split by importance.
#[derive(Debug, Default)]
pub struct DeclBlock {
    pub normal: Vec<Decl>,
    pub important: Vec<Decl>,
}

impl DeclBlock {
    fn is_empty(&self) -> bool {
        self.normal.is_empty() && self.important.is_empty()
    }
}

/// One complex selector of a style rule and the rule's declarations.
#[derive(Debug)]
pub struct Rule {
    pub selector: scraper::Selector,
    /// Specificity as `selectors` packs it: ids, classes and tags in 10-bit fields.
    pub specificity: u32,
    /// Position among all rules of its origin, in source order (imports before their importer).
    pub order: u32,
    pub decls: Arc<DeclBlock>,
}

/// The rightmost compound's most selective simple selector: the bucket a rule is filed under.
enum Key {
    Id(String),
    Class(String),
    Tag(String),
    Universal,
}

/// Rules of one origin, bucketed for matching.
#[derive(Debug, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    by_id: HashMap<String, Vec<u32>>,
    by_class: HashMap<String, Vec<u32>>,
    by_tag: HashMap<String, Vec<u32>>,
    universal: Vec<u32>,
    /// Declarations lightningcss reported and skipped (bad values, IE hacks) and rules dropped.
    pub parse_warnings: usize,
    /// Rules (complex selectors) not kept because the set already held [`MAX_RULES_PER_PAGE`].
    pub dropped_rules: usize,
}

/// Most rules (one per complex selector) kept per page, all author sheets together; later ones
/// are dropped with a [`CssWarning::RuleLimit`](super::CssWarning::RuleLimit). The cascade's cost is
/// rules × elements (every element is matched against every universal rule): 200,000 `*` rules
/// took 52 s on a small page. The largest author rule count of the shared corpora is about
/// 3,500 (of 3,432 pages), far below this bound.
pub const MAX_RULES_PER_PAGE: usize = 20_000;

/// What a sheet asks the loader for while it is read.
pub enum SheetItem {
    /// An `@import` (already filtered by its media list).
    Import(String),
}

impl RuleSet {
    /// Indices of the rules that may match an element with this tag, id and classes, in no
    /// particular order and without duplicates.
    pub fn candidates<'c>(&self, tag: &str, id: Option<&str>, classes: impl Iterator<Item = &'c str>, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&self.universal);
        if let Some(v) = self.by_tag.get(tag) {
            out.extend_from_slice(v);
        }
        if let Some(v) = id.and_then(|id| self.by_id.get(id)) {
            out.extend_from_slice(v);
        }
        let before = out.len();
        for class in classes {
            if let Some(v) = self.by_class.get(class) {
                out.extend_from_slice(v);
            }
        }
        // Only an element listing a class twice can produce duplicates.
        if out.len() > before {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// Reads a style sheet, appending its rules. `on_import` is called for each `@import` in
    /// order, where its rules belong (so imported rules come before the importer's own).
    /// Returns how many top-level statements were dropped for nesting deeper than
    /// [`MAX_CSS_NESTING`] (also counted in `parse_warnings`).
    pub fn add_sheet(&mut self, css: &str, name: &str, on_import: &mut dyn FnMut(&mut RuleSet, SheetItem)) -> usize {
        let (css, dropped) = match drop_deep_statements(css, MAX_CSS_NESTING) {
            Some((kept, dropped)) => (std::borrow::Cow::Owned(kept), dropped),
            None => (std::borrow::Cow::Borrowed(css), 0),
        };
        self.parse_warnings += dropped;
        let css = css.as_ref();
        let warnings = Arc::new(RwLock::new(Vec::new()));
        let options = ParserOptions { filename: name.to_string(), error_recovery: true, warnings: Some(Arc::clone(&warnings)), ..ParserOptions::default() };
        match StyleSheet::parse(css, options) {
            Ok(sheet) => self.add_rules(&sheet.rules.0, on_import),
            // Error recovery makes this rare (an unterminated block at top level); the sheet is
            // dropped as a browser would drop what it cannot read.
            Err(_) => self.parse_warnings += 1,
        }
        self.parse_warnings += warnings.read().map_or(0, |w| w.len());
        dropped
    }

    fn add_rules(&mut self, rules: &[CssRule], on_import: &mut dyn FnMut(&mut RuleSet, SheetItem)) {
        for rule in rules {
            match rule {
                CssRule::Style(style) => self.add_style_rule(&style.selectors.0, &style.declarations),
                CssRule::Media(media) if list_matches(&media.query) => self.add_rules(&media.rules.0, on_import),
                CssRule::Import(import) if list_matches(&import.media) => on_import(self, SheetItem::Import(import.url.to_string())),
                // Every feature query a 2008-era page asks is one a modern browser supports.
                CssRule::Supports(supports) => self.add_rules(&supports.rules.0, on_import),
                CssRule::LayerBlock(layer) => self.add_rules(&layer.rules.0, on_import),
                _ => {}
            }
        }
    }

    fn add_style_rule(&mut self, selectors: &[lightningcss::selector::Selector], declarations: &DeclarationBlock) {
        let decls = read_declarations(declarations);
        if decls.is_empty() {
            return;
        }
        let decls = Arc::new(decls);
        for sel in selectors {
            if sel.has_pseudo_element() {
                continue;
            }
            if self.rules.len() >= MAX_RULES_PER_PAGE {
                self.dropped_rules += 1;
                continue;
            }
            let Ok(text) = sel.to_css_string(PrinterOptions::default()) else { continue };
            let Ok(selector) = scraper::Selector::parse(&static_link_pseudo(&text)) else {
                self.parse_warnings += 1;
                continue;
            };
            let order = self.rules.len() as u32;
            let bucket = match rightmost_key(sel) {
                Key::Id(id) => self.by_id.entry(id).or_default(),
                Key::Class(c) => self.by_class.entry(c).or_default(),
                Key::Tag(t) => self.by_tag.entry(t).or_default(),
                Key::Universal => &mut self.universal,
            };
            bucket.push(order);
            self.rules.push(Rule { selector, specificity: sel.specificity(), order, decls: Arc::clone(&decls) });
        }
    }
}

/// Whether a parsed media list applies (see [`media_matches`]). An empty list serialises as
/// `not all` but means "all media".
fn list_matches(list: &lightningcss::media_query::MediaList) -> bool {
    list.media_queries.is_empty() || media_matches(&list.to_css_string(PrinterOptions::default()).unwrap_or_default())
}

/// `:link` and `:any-link` match every `<a href>` of a static page (nothing is visited); `scraper`
/// has no such pseudo-classes, so they become `[href]`.
fn static_link_pseudo(selector: &str) -> String {
    selector.replace(":any-link", "[href]").replace(":link", "[href]")
}

fn rightmost_key(sel: &lightningcss::selector::Selector) -> Key {
    let mut class = None;
    let mut tag = None;
    for component in sel.iter() {
        match component {
            Component::ID(id) => return Key::Id(id.0.to_string()),
            Component::Class(c) if class.is_none() => class = Some(c.0.to_string()),
            // HTML element names are matched case-insensitively; the DOM stores them lower case.
            Component::LocalName(name) => tag = Some(name.lower_name.0.to_string()),
            _ => {}
        }
    }
    class.map(Key::Class).or(tag.map(Key::Tag)).unwrap_or(Key::Universal)
}

/// The declarations of a block that the stylistic view reads.
pub fn read_declarations(block: &DeclarationBlock) -> DeclBlock {
    let mut out = DeclBlock::default();
    for (list, target) in [(&block.declarations, &mut out.normal), (&block.important_declarations, &mut out.important)] {
        for property in list {
            let id = property.property_id();
            let Ok(value) = property.value_to_css_string(PrinterOptions::default()) else { continue };
            parse_declaration(id.name(), &value, target);
        }
    }
    out
}

/// Reads a `style` attribute. Declarations nesting deeper than [`MAX_CSS_NESTING`] are dropped
/// first (see [`drop_deep_statements`]).
pub fn parse_style_attribute(text: &str) -> DeclBlock {
    let kept = drop_deep_statements(text, MAX_CSS_NESTING);
    let text = kept.as_ref().map_or(text, |(kept, _)| kept.as_str());
    let options = ParserOptions { error_recovery: true, ..ParserOptions::default() };
    let block = match StyleAttribute::parse(text, options) {
        Ok(attr) => read_declarations(&attr.declarations),
        Err(_) => DeclBlock::default(),
    };
    block
}

/// Deepest nesting of brackets (`(`, `[`, `{` together) kept in CSS text. lightningcss and
/// servo's `selectors` parse nested selectors (`:not(:not(…))`, `:is`, `:where`, `:has`),
/// functions and blocks recursively, so a 3 KB `<style>` nesting `:not(` 500 deep overflows the
/// stack and kills the process. Real sheets nest a few levels
/// (`@media { @supports { a:not(:is(.x)) { width: calc(1px + (2em * 3)) } } }` is 5).
pub const MAX_CSS_NESTING: usize = 32;

/// Removes the top-level statements (rules, at-rules, or declarations of a `style` attribute)
/// of `css` whose brackets nest deeper than `max`, before any parser sees them. Returns the text
/// kept and how many statements were dropped, or `None` (no copy) when nothing was. The scan is
/// linear and keeps only counters: comments and strings are skipped, escapes honoured; a
/// statement ends at a `;` or a `}` at nesting depth 0, or at the end of the text (where an
/// unclosed statement ends for a CSS parser too).
pub fn drop_deep_statements(css: &str, max: usize) -> Option<(String, usize)> {
    let bytes = css.as_bytes();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let (mut depth, mut start, mut too_deep) = (0usize, 0usize, false);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = find_from(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 1),
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q && bytes[i] != b'\n' {
                    i += usize::from(bytes[i] == b'\\') + 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                too_deep |= depth > max;
            }
            close @ (b')' | b']' | b'}' | b';') => {
                depth = depth.saturating_sub(usize::from(close != b';'));
                if depth == 0 && (close == b'}' || close == b';') {
                    if too_deep {
                        cuts.push((start, i + 1));
                    }
                    (start, too_deep) = (i + 1, false);
                }
            }
            _ => {}
        }
        i += 1;
    }
    if too_deep {
        cuts.push((start, bytes.len()));
    }
    if cuts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(css.len());
    let mut at = 0;
    for &(s, e) in &cuts {
        // Cuts are at ASCII bytes or the end, so they fall on character boundaries.
        out.push_str(&css[at..s]);
        at = e;
    }
    out.push_str(&css[at..]);
    Some((out, cuts.len()))
}

fn find_from(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

/// Whether a media query list (as text: a `media` attribute or a serialised `@media` prelude)
/// applies to a desktop browser's screen, 1024 px wide: an empty list, `all` or `screen`, with
/// `min-width`/`max-width` conditions checked against that width; `print`, `handheld`, `speech`
/// and other types do not apply.
pub fn media_matches(list: &str) -> bool {
    let list = list.trim().to_ascii_lowercase();
    if list.is_empty() {
        return true;
    }
    list.split(',').any(|q| query_matches(q.trim()))
}

fn query_matches(query: &str) -> bool {
    if query.is_empty() {
        return true;
    }
    let (negated, rest) = match query.strip_prefix("not ") {
        Some(r) => (true, r.trim()),
        None => (false, query.strip_prefix("only ").unwrap_or(query).trim()),
    };
    let type_ok = match rest.split_whitespace().next() {
        Some(t) if t.starts_with('(') => true,
        Some("all") | Some("screen") => true,
        _ => false,
    };
    let result = type_ok && width_conditions_hold(rest);
    result != negated
}

fn width_conditions_hold(query: &str) -> bool {
    const WIDTH: f32 = super::values::VIEWPORT.0;
    let px_after = |name: &str| -> Option<f32> {
        let i = query.find(name)?;
        let rest = query[i + name.len()..].trim_start().strip_prefix(':')?;
        let value: String = rest.trim_start().chars().take_while(|c| *c != ')').collect();
        match super::values::parse_length(value.trim())? {
            super::values::LengthSpec::Px(v) => Some(v),
            super::values::LengthSpec::Em(v) | super::values::LengthSpec::Rem(v) => Some(v * super::values::MEDIUM_PX),
            _ => None,
        }
    };
    let max_ok = px_after("max-width").is_none_or(|v| v >= WIDTH);
    let min_ok = px_after("min-width").is_none_or(|v| v <= WIDTH);
    max_ok && min_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_lists() {
        assert!(media_matches(""));
        assert!(media_matches("screen"));
        assert!(media_matches("print, screen"));
        assert!(media_matches("all and (min-width: 800px)"));
        assert!(!media_matches("print"));
        assert!(!media_matches("handheld"));
        assert!(!media_matches("screen and (max-width: 600px)"));
        assert!(media_matches("not print"));
    }

    #[test]
    fn ie_hacks_are_skipped_and_parsing_goes_on() {
        let mut set = RuleSet::default();
        let css = ".a { *zoom: 1; _height: 1px; filter: progid:DXImageTransform.Microsoft.Alpha(opacity=50); color: red }\n\
                   .b { color: blue; font-size: 12px }";
        set.add_sheet(css, "t.css", &mut |_, _| {});
        assert_eq!(set.rules.len(), 2);
        assert_eq!(set.rules[0].decls.normal.len(), 1, "{:?}", set.rules[0].decls);
        assert_eq!(set.rules[1].decls.normal.len(), 2);
    }

    #[test]
    fn deeply_nested_selectors_are_dropped_not_parsed() {
        for depth in [500, 5000] {
            for pseudo in [":not(", ":is(", ":where(", ":has("] {
                let deep = format!("p{} .x {}", pseudo.repeat(depth), ")".repeat(depth));
                let css = format!(".a {{ color: red }}\n{deep} {{ color: blue }}\n.b {{ color: green }}");
                let mut set = RuleSet::default();
                let dropped = set.add_sheet(&css, "t.css", &mut |_, _| {});
                assert_eq!(dropped, 1, "{pseudo} x {depth}");
                assert_eq!(set.rules.len(), 2, "the rules around the deep one are kept");
                // Unclosed nesting drops the rest of the sheet, as a parser would read it.
                let mut set = RuleSet::default();
                assert_eq!(set.add_sheet(&format!(".a {{ color: red }} {}", pseudo.repeat(depth)), "t.css", &mut |_, _| {}), 1);
                assert_eq!(set.rules.len(), 1);
            }
        }
        // Deep blocks and functions too, and in `style` attributes.
        let mut set = RuleSet::default();
        assert_eq!(set.add_sheet(&format!("{}p {{ color: red }}{}", "@media screen {".repeat(5000), "}".repeat(5000)), "t.css", &mut |_, _| {}), 1);
        let attr = parse_style_attribute(&format!("color: red; width: {}1px{}", "calc(".repeat(5000), ")".repeat(5000)));
        assert_eq!(attr.normal.len(), 1);
        // Brackets in strings and comments do not count; ordinary nesting is kept.
        let css = format!("/* {} */ a[title=\"{}\"] {{ width: calc(1px + (2em * 3)) }}", "(".repeat(100), "[".repeat(100));
        assert_eq!(drop_deep_statements(&css, MAX_CSS_NESTING), None);
    }

    #[test]
    fn specificity_and_buckets() {
        let mut set = RuleSet::default();
        set.add_sheet("#x p.y { color: red } div { color: red } * { color: red }", "t.css", &mut |_, _| {});
        assert_eq!(set.rules.len(), 3);
        assert!(set.rules[0].specificity > set.rules[1].specificity);
        let mut c = Vec::new();
        set.candidates("p", None, ["y"].into_iter(), &mut c);
        assert_eq!(c, vec![0, 2]);
    }
}
