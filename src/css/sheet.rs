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
}

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
    pub fn add_sheet(&mut self, css: &str, name: &str, on_import: &mut dyn FnMut(&mut RuleSet, SheetItem)) {
        let warnings = Arc::new(RwLock::new(Vec::new()));
        let options = ParserOptions { filename: name.to_string(), error_recovery: true, warnings: Some(Arc::clone(&warnings)), ..ParserOptions::default() };
        match StyleSheet::parse(css, options) {
            Ok(sheet) => self.add_rules(&sheet.rules.0, on_import),
            // Error recovery makes this rare (an unterminated block at top level); the sheet is
            // dropped as a browser would drop what it cannot read.
            Err(_) => self.parse_warnings += 1,
        }
        self.parse_warnings += warnings.read().map_or(0, |w| w.len());
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

/// Reads a `style` attribute.
pub fn parse_style_attribute(text: &str) -> DeclBlock {
    let options = ParserOptions { error_recovery: true, ..ParserOptions::default() };
    match StyleAttribute::parse(text, options) {
        Ok(attr) => read_declarations(&attr.declarations),
        Err(_) => DeclBlock::default(),
    }
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
