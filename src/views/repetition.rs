//! The `repetition` feature group (stylistic view, opt-in): whether a block sits in one of a run
//! of sibling elements built alike (the cards of a listing, the posts of a forum thread, the items
//! of a menu), and what those items hold.
//!
//! Input: a page's division and its DOM. Output: one dense row per block (names and meanings in
//! [`FEATURES`]); `NaN` where a value does not apply (the block is in no repeated item).
//!
//! The item: going up from the block's container (level 0) at most `max_levels` elements, the
//! first element that has at least `min_items − 1` siblings of the same *signature* (tag name
//! and first class word without digits, so `<li>`, `<article class="post post-81">` and
//! `<div class="card featured">` are signatures `li`, `article.post` and `div.card`). The group
//! is that element with its same-signature siblings.
//!
//! Why: on listing, collection and forum pages the main content is a run of items (WCXB's gold
//! holds them), and on article pages a run of items is navigation, a "most read" list or the
//! comments. What tells them apart is the shape of an item: a menu item is one or two linked
//! words in one block, a listing card a heading and a snippet in two to four blocks, a forum
//! post a hundred unlinked words; and how much of the page the run holds. The per-block
//! features of the other groups see one block at a time and cannot count its look-alikes.
//!
//! Why the stylistic view: the group reads how the page is built (which elements repeat, how
//! many blocks and words each holds), never which words; the lexical view reads the words.
//! Settings are data, in `repetition.toml`.

use std::collections::HashMap;
use std::sync::OnceLock;

use ego_tree::NodeId;
use scraper::Node;
use serde::Deserialize;

use super::density::linked_words;
use super::groups::{FeatureGroup, GroupError, GroupOutput, PageContext, ViewKind};

/// The group's columns, `(name, meaning)`, in column order.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("rep.items", "number of items in the block's group of repeated siblings (0: the block is in no repeated item)"),
    ("rep.level", "elements between the block's container and its repeated item (0: the container itself is the item; NaN without one)"),
    ("rep.item_words", "words per item of the group: the group's words / its items"),
    ("rep.item_blocks", "blocks per item of the group"),
    ("rep.group_link", "link density of the group: words inside hyperlinks / words (NaN without words)"),
    ("rep.group_words", "words of the group / words of the page"),
    ("rep.inner_items", "items the block itself spans: the most children of its container of one signature that hold its text (a menu made one block: its `<li>`s; a paragraph: 0)"),
    ("rep.page_max_words", "words of the page's largest group of repeated items (by words) / words of the page (page-wide)"),
    ("rep.in_largest", "1 if the block's group is the page's largest group of repeated items"),
];

/// The settings file, compiled in.
const SETTINGS_TOML: &str = include_str!("repetition.toml");

/// Settings of the repetition group (`repetition.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    /// Elements looked at above a block's container (the container is level 0).
    max_levels: usize,
    /// Same-signature siblings (the item included) that make a group.
    min_items: usize,
}

impl Settings {
    fn builtin() -> Result<&'static Settings, GroupError> {
        static SETTINGS: OnceLock<Result<Settings, String>> = OnceLock::new();
        SETTINGS
            .get_or_init(|| match toml::from_str::<Settings>(SETTINGS_TOML) {
                Ok(s) if s.min_items < 2 => Err("repetition.toml: min_items must be at least 2".into()),
                Ok(s) => Ok(s),
                Err(e) => Err(format!("repetition.toml: {e}")),
            })
            .as_ref()
            .map_err(|e| GroupError::Other(e.clone().into()))
    }
}

/// What the blocks under an element (or a group of elements) hold; `items` counts the elements
/// of a group (0 for one element).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Held {
    items: usize,
    words: usize,
    linked: usize,
    blocks: usize,
}

impl Held {
    fn add(&mut self, other: Held) {
        self.words += other.words;
        self.linked += other.linked;
        self.blocks += other.blocks;
    }
}

/// A block's group of repeated items: (parent element, signature), levels up from the block's
/// container, and what the group holds.
struct Found {
    key: (NodeId, String),
    level: usize,
    group: Held,
}

/// An element's signature: its tag name, and its first class word unless that word has a digit
/// (`post-81`, a per-item id written as a class).
fn signature(el: &scraper::node::Element) -> String {
    let class = el.attr("class").and_then(|c| c.split_ascii_whitespace().next()).filter(|c| !c.bytes().any(|b| b.is_ascii_digit()));
    match class {
        Some(c) => format!("{}.{}", el.name(), c.to_ascii_lowercase()),
        None => el.name().to_string(),
    }
}

/// The most children of one signature, among the children of a block's container, that hold one
/// of the block's leaves: how many items a block spans when the divider merged them (a menu's
/// `<li>`s under one `<ul>` container).
fn inner_items(tree: &ego_tree::Tree<Node>, block: &crate::divide::Block) -> usize {
    let Some(container) = block.container_node else { return 0 };
    let mut children: std::collections::HashSet<NodeId> = std::collections::HashSet::new();
    for &leaf in &block.nodes {
        let mut node = tree.get(leaf);
        while let Some(n) = node {
            match n.parent() {
                Some(p) if p.id() == container => {
                    if n.value().is_element() {
                        children.insert(n.id());
                    }
                    break;
                }
                Some(p) => node = Some(p),
                None => break,
            }
        }
    }
    let mut by_sig: HashMap<String, usize> = HashMap::new();
    for id in children {
        if let Some(el) = tree.get(id).and_then(|n| n.value().as_element().map(signature)) {
            *by_sig.entry(el).or_default() += 1;
        }
    }
    by_sig.into_values().max().unwrap_or(0)
}

/// The `repetition` group.
pub(super) struct Repetition;

impl FeatureGroup for Repetition {
    fn name(&self) -> &str {
        "repetition"
    }

    fn view(&self) -> ViewKind {
        ViewKind::Stylistic
    }

    fn features(&self) -> Vec<(String, String)> {
        FEATURES.iter().map(|(n, m)| (n.to_string(), m.to_string())).collect()
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
        let settings = Settings::builtin()?;
        let tree = &ctx.page().html.tree;
        let blocks = &ctx.division().blocks;
        let page_words = blocks.iter().map(|b| b.words).sum::<usize>().max(1) as f64;
        // What the blocks under each element hold: every block counts for its container and
        // each of the container's ancestors.
        let mut under: HashMap<NodeId, Held> = HashMap::new();
        for block in blocks {
            let held = Held { items: 0, words: block.words, linked: linked_words(block), blocks: 1 };
            let mut node = block.container_node.and_then(|id| tree.get(id));
            while let Some(n) = node {
                if n.value().is_element() {
                    under.entry(n.id()).or_default().add(held);
                }
                node = n.parent();
            }
        }
        // Per parent element, its element children grouped by signature, computed once.
        let mut groups: HashMap<NodeId, HashMap<String, Held>> = HashMap::new();
        let mut group_of = |parent: ego_tree::NodeRef<'_, Node>, sig: &str| -> Held {
            let by_sig = groups.entry(parent.id()).or_insert_with(|| {
                let mut by_sig: HashMap<String, Held> = HashMap::new();
                for child in parent.children() {
                    if let Some(el) = child.value().as_element() {
                        let g = by_sig.entry(signature(el)).or_default();
                        g.items += 1;
                        g.add(under.get(&child.id()).copied().unwrap_or_default());
                    }
                }
                by_sig
            });
            by_sig.get(sig).copied().unwrap_or_default()
        };
        // Each block's group: (parent, signature) of its nearest repeated item, and the level.
        let mut found: Vec<Option<Found>> = Vec::with_capacity(blocks.len());
        for block in blocks {
            let mut node = block.container_node.and_then(|id| tree.get(id));
            let mut hit = None;
            for level in 0..=settings.max_levels {
                let Some(n) = node else { break };
                let (Some(el), Some(parent)) = (n.value().as_element(), n.parent()) else { break };
                if !parent.value().is_element() {
                    break;
                }
                let sig = signature(el);
                let group = group_of(parent, &sig);
                if group.items >= settings.min_items {
                    hit = Some(Found { key: (parent.id(), sig), level, group });
                    break;
                }
                node = Some(parent);
            }
            found.push(hit);
        }
        let largest =
            found.iter().flatten().max_by(|a, b| a.group.words.cmp(&b.group.words).then_with(|| b.key.cmp(&a.key))).map(|f| (f.key.clone(), f.group.words));
        let page_max = largest.as_ref().map_or(0.0, |(_, w)| *w as f64 / page_words);
        for (b, hit) in found.iter().enumerate() {
            let inner = inner_items(tree, &blocks[b]) as f64;
            let row = match hit {
                Some(Found { key, level, group: g }) => {
                    let items = g.items as f64;
                    [
                        items,
                        *level as f64,
                        g.words as f64 / items,
                        g.blocks as f64 / items,
                        if g.words == 0 { f64::NAN } else { g.linked as f64 / g.words as f64 },
                        g.words as f64 / page_words,
                        inner,
                        page_max,
                        if largest.as_ref().is_some_and(|(k, _)| k == key) { 1.0 } else { 0.0 },
                    ]
                }
                None => [0.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, inner, page_max, 0.0],
            };
            out.row_mut(b).copy_from_slice(&row);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::css::StyledDom;
    use crate::divide::Divider;
    use crate::page::{LoadOptions, Page};
    use crate::stylistic::StyleOptions;

    fn rows(html: &str) -> (Vec<String>, GroupOutput) {
        let page = Page::from_bytes("r.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let style = StyleOptions::default();
        let styled = StyledDom::compute(&page, &style.css).unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, None);
        let mut out = GroupOutput::new(division.blocks.len(), FEATURES.len(), 0);
        Repetition.compute(&ctx, &mut out).unwrap();
        (division.blocks.iter().map(|b| b.text.clone()).collect(), out)
    }

    fn col(name: &str) -> usize {
        FEATURES.iter().position(|(n, _)| *n == name).unwrap()
    }

    #[test]
    fn a_menu_and_a_listing_of_cards_are_told_apart_by_their_items() {
        let card = |n: usize| {
            format!("<div class=\"card c-{n}\"><h3><a href=/s{n}>Story number {n} of the day</a></h3><p>A snippet of the story, eight words long.</p></div>")
        };
        let html = format!(
            "<body><ul><li><a href=/>Home</a></li><li><a href=/w>World</a></li><li><a href=/s>Sport</a></li></ul>\
             <main>{}{}{}{}</main><div class=\"card\"><p>Alone on its level.</p></div></body>",
            card(1),
            card(2),
            card(3),
            card(4)
        );
        let (texts, out) = rows(&html);
        assert_eq!(texts[..3], ["Home World Sport", "Story number 1 of the day", "A snippet of the story, eight words long."]);
        // The menu, one block: in no repeated item, but it spans three <li>s.
        assert_eq!(out.row(0)[col("rep.items")], 0.0);
        assert_eq!(out.row(0)[col("rep.inner_items")], 3.0);
        assert_eq!(out.row(0)[col("rep.in_largest")], 0.0);
        // A card's heading: its <h3> is no item (one per card), the card is, one level up; the
        // digit-bearing class `c-1` does not split the cards.
        assert_eq!(out.row(1)[col("rep.items")], 4.0);
        assert_eq!(out.row(1)[col("rep.level")], 1.0);
        assert_eq!(out.row(1)[col("rep.item_words")], 14.0);
        assert_eq!(out.row(1)[col("rep.item_blocks")], 2.0);
        assert_eq!(out.row(1)[col("rep.inner_items")], 1.0, "the heading's text is in one <a>");
        assert_eq!(out.row(2)[col("rep.inner_items")], 0.0, "the snippet's text is the <p>'s own");
        assert_eq!(out.row(2)[col("rep.group_link")], 24.0 / 56.0);
        let page_words = 3.0 + 56.0 + 4.0;
        assert_eq!(out.row(2)[col("rep.group_words")], 56.0 / page_words);
        assert_eq!(out.row(2)[col("rep.in_largest")], 1.0);
        assert_eq!(out.row(0)[col("rep.page_max_words")], 56.0 / page_words);
        // The lone card under <body>: no same-signature siblings at any level.
        let last = texts.len() - 1;
        assert_eq!(texts[last], "Alone on its level.");
        assert_eq!(out.row(last)[col("rep.items")], 0.0);
        assert!(out.row(last)[col("rep.level")].is_nan());
        assert_eq!(out.row(last)[col("rep.page_max_words")], 56.0 / page_words);
    }

    #[test]
    fn signatures_are_the_tag_and_the_first_class_word_without_digits() {
        let html = scraper::Html::parse_fragment("<article class=\"Post post-81\"></article><div class=\"x1 card\"></div><li></li>");
        let sigs: Vec<String> = html.tree.nodes().filter_map(|n| n.value().as_element().map(signature)).collect();
        assert_eq!(sigs[sigs.len() - 3..], ["article.post", "div", "li"], "{sigs:?}");
    }
}
