//! The PARCELS web page divider (Lee, Kan & Lai 2004, section 4, Figure 2).
//!
//! Input: a parsed [`Page`] and a [`DividerConfig`] (the tag inventory). Output: a [`Division`]:
//! the page text and the list of fine-grained [`Block`]s.
//!
//! The algorithm of Figure 2, done in one iterative pass over the DOM in document order:
//! 1. Every *leaf* (a run of visible text, or a replaced element such as an image) attaches to its
//!    proper container: the closest structural ancestor that is not nested deeper than `d`.
//! 2. Adjacent leaves attached to the same container merge into one block. "Adjacent" means no
//!    structural boundary (the start or end of a structural element) lies between them, so
//!    `<td>a<p>b</p>c</td>` gives three blocks. Leaves of an `own_block` element form a block of
//!    their own: a replaced element (an image) always, a text-bearing one (a `<time>` in
//!    configs/divider-bylines.toml) with all the text inside it, a run of `<br>` ends a block when configured, and visible and
//!    hidden leaves never merge.
//!
//! The *page text* is every leaf's text (whitespace collapsed, trimmed), in document order, one
//! leaf per line; an image or other object without text is written as U+FFFC (the object
//! replacement character) so it still owns a character. The page text depends only on which
//! elements are skipped, not on the structural inventory, so labels stored as character ranges of
//! the page text survive changes to the divider. Offsets are in Unicode scalar values (`char`s,
//! what Python's `str` indexes), not bytes.
//!
//! Invariants: every leaf belongs to exactly one block; each block covers one contiguous range of
//! the page text; blocks are in document order and numbered from 0. Nothing recurses over the
//! DOM, so pages nested 100,000 deep are fine.

mod config;
pub mod view;
mod walk;

pub use config::{ConfigError, DividerConfig, DEFAULT_DIVIDER_TOML};

use std::collections::HashSet;

use ego_tree::iter::Edge;
use ego_tree::NodeId;
use scraper::Node;
use serde::Serialize;

use crate::page::Page;
pub(crate) use walk::{SkipWalk, Visit};

/// U+FFFC OBJECT REPLACEMENT CHARACTER: the page-text stand-in for an image or other object that
/// has no text of its own.
pub const OBJECT_CHAR: char = '\u{FFFC}';

/// A block: the unit PARCELS classifies. One or more adjacent leaves under one container.
#[derive(Debug, Clone, Serialize)]
pub struct Block {
    /// Position in document order, from 0; stable for a given page and divider configuration.
    pub id: usize,
    /// Element path of the deepest element that contains all of the block's leaves, such as
    /// `/html[1]/body[1]/div[3]/p[2]` (XPath-like: 1-based index among same-named siblings).
    pub locator: String,
    /// Element path of the block's container (its closest active structural ancestor).
    pub container: String,
    /// Tag names from the root down to the container, such as `html/body/table/tbody/tr/td`.
    pub container_path: String,
    /// The text a reader sees: visible text plus image `alt` text, whitespace collapsed.
    pub text: String,
    /// The block's characters in the page text: `[start, end)` in chars.
    pub chars: [usize; 2],
    /// Number of words (whitespace-separated tokens with a letter or digit).
    pub words: usize,
    /// Hyperlinks with at least one leaf in the block.
    pub links: Vec<Link>,
    /// Images (and other replaced objects) in the block.
    pub images: Vec<Image>,
    /// Whether the block is hidden (`hidden` attribute, or `display:none`/`visibility:hidden` in
    /// a `style` attribute on it or an ancestor).
    pub hidden: bool,
    /// DOM nodes of the block's leaves (text nodes and replaced elements), in document order.
    #[serde(skip)]
    pub nodes: Vec<NodeId>,
    /// DOM node of the container (`None` when the container is the document itself).
    #[serde(skip)]
    pub container_node: Option<NodeId>,
}

/// What a hyperlink points to, the PARCELS lexical view's link kinds (section 5.3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// `mailto:` links (feedback, e-mail functions).
    Mailto,
    /// Links to an image file (thumbnails pointing to larger versions).
    Image,
    /// Every other link.
    Text,
}

/// A hyperlink's part in a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    pub href: String,
    /// The link's text inside this block (with image `alt` text).
    pub text: String,
    pub kind: LinkKind,
}

/// An image or other replaced object (iframe, embed, form field) in a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Image {
    /// Element name: `img`, `iframe`, `input`, …
    pub tag: String,
    pub src: Option<String>,
    pub alt: Option<String>,
    /// `width` and `height` attributes, where they are plain pixel numbers.
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Whether the object sits inside a hyperlink.
    pub linked: bool,
}

/// A divided page: its text and its blocks.
#[derive(Debug, Clone, Serialize)]
pub struct Division {
    /// The page text (see the module docs): leaves in document order, one per line.
    pub text: String,
    pub blocks: Vec<Block>,
}

/// Replaced elements: rendered as an object, not as text; their children are fallback content
/// and are not read. This is a fact of HTML rendering, not a tunable.
const REPLACED: &[&str] = &["img", "iframe", "embed", "object", "video", "audio", "canvas", "svg", "applet", "input"];

/// Elements rendered inline by default: their boundaries do not separate words, so
/// `foo<b>bar</b>` reads "foobar" while `<li>a</li><li>b</li>` reads "a b".
const INLINE: &[&str] = &[
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "blink", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "label", "mark", "nobr",
    "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
];

/// The divider: a validated inventory ready to divide pages.
#[derive(Debug, Clone)]
pub struct Divider {
    config: DividerConfig,
    structural: HashSet<String>,
    nesting: HashSet<String>,
    skip: HashSet<String>,
    own_block: HashSet<String>,
}

impl Divider {
    pub fn new(config: DividerConfig) -> Divider {
        let set = |v: &Vec<String>| v.iter().cloned().collect::<HashSet<_>>();
        Divider { structural: set(&config.structural), nesting: set(&config.nesting), skip: set(&config.skip), own_block: set(&config.own_block), config }
    }

    pub fn config(&self) -> &DividerConfig {
        &self.config
    }

    /// Divides a page into blocks (paper Figure 2).
    pub fn divide(&self, page: &Page) -> Division {
        let mut walk = Walk::new(self);
        let decide = |node: ego_tree::NodeRef<'_, Node>| match node.value() {
            Node::Element(el) if self.skip.contains(el.name()) || is_hidden_input(el) => Visit::Skip,
            Node::Element(el) if REPLACED.contains(&el.name()) => Visit::Childless,
            _ => Visit::Enter,
        };
        for edge in SkipWalk::new(page.html.tree.root(), decide) {
            match edge {
                Edge::Open(node) => match node.value() {
                    Node::Element(el) => {
                        walk.open(node.id(), el);
                        if REPLACED.contains(&el.name()) {
                            walk.replaced(node.id(), el);
                        }
                    }
                    Node::Text(t) => walk.text(node.id(), t),
                    _ => {}
                },
                Edge::Close(node) => {
                    if let Node::Element(_) = node.value() {
                        walk.close();
                    }
                }
            }
        }
        walk.finish()
    }
}

impl Default for Divider {
    fn default() -> Self {
        Divider::new(DividerConfig::default())
    }
}

fn is_hidden_input(el: &scraper::node::Element) -> bool {
    el.name() == "input" && el.attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("hidden"))
}

/// An open element on the walk's stack (names are borrowed from the page's tree).
struct Frame<'p> {
    node: NodeId,
    tag: &'p str,
    /// 1-based index among same-named element siblings.
    index: usize,
    /// Counts of child element names seen so far, for the children's indices.
    child_counts: Vec<(&'p str, usize)>,
    /// Whether this element is an active container (structural and not nested too deep).
    container: bool,
    /// Whether this element is a text-bearing `own_block` element (a `<time>` in
    /// configs/divider-bylines.toml): its text is a block of its own.
    own_block: bool,
    /// Stack depth (1-based) of the nearest container among this element and its ancestors, 0
    /// if none: kept per frame so a leaf finds its container in constant time however deep
    /// the inline nesting (a scan of the stack per leaf made 100,000 nested spans quadratic).
    container_depth: usize,
    /// Number of `nesting` elements among this element and its ancestors.
    nesting: usize,
    hidden: bool,
    /// Index into `Walk::anchors` of the hyperlink this element is in.
    anchor: Option<usize>,
}

struct Anchor {
    href: String,
    kind: LinkKind,
}

/// One leaf of the current run.
struct Leaf {
    node: NodeId,
    text: String,
    /// Whether a space separates this leaf from the previous one in the block's text.
    space_before: bool,
    anchor: Option<usize>,
    image: Option<Image>,
}

/// The run of leaves being merged into the next block.
struct Run {
    /// Stack depth (number of frames) of the container; 0 means the document.
    container_depth: usize,
    /// Smallest stack depth between the run's first and last leaf: the depth of the leaves'
    /// common ancestor.
    min_depth: usize,
    /// The common ancestor's locator, taken when an end tag after the last leaf closed it.
    locator: Option<String>,
    hidden: bool,
    start_char: usize,
    leaves: Vec<Leaf>,
}

struct Walk<'d, 'p> {
    divider: &'d Divider,
    stack: Vec<Frame<'p>>,
    /// Child name counts of the document node (for the root element's index).
    root_counts: Vec<(&'p str, usize)>,
    anchors: Vec<Anchor>,
    text: String,
    chars: usize,
    run: Option<Run>,
    blocks: Vec<Block>,
    /// A word boundary is pending before the next leaf (whitespace, `<br>`, or a block-level
    /// element boundary since the last leaf).
    pending_space: bool,
    /// Consecutive `<br>` elements since the last leaf.
    pending_brs: usize,
    /// Smallest stack depth since the last leaf: if the next leaf joins the run, the run's common
    /// ancestor is no deeper than this.
    min_since_leaf: usize,
}

impl<'d, 'p> Walk<'d, 'p> {
    fn new(divider: &'d Divider) -> Self {
        Walk {
            divider,
            stack: Vec::new(),
            root_counts: Vec::new(),
            anchors: Vec::new(),
            text: String::new(),
            chars: 0,
            run: None,
            blocks: Vec::new(),
            pending_space: false,
            pending_brs: 0,
            min_since_leaf: 0,
        }
    }

    fn open(&mut self, node: NodeId, el: &'p scraper::node::Element) {
        let tag = el.name();
        let counts = match self.stack.last_mut() {
            Some(parent) => &mut parent.child_counts,
            None => &mut self.root_counts,
        };
        let index = match counts.iter_mut().find(|(t, _)| *t == tag) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                counts.push((tag, 1));
                1
            }
        };
        let parent = self.stack.last();
        let nests = self.divider.nesting.contains(tag);
        let nesting = parent.map_or(0, |p| p.nesting) + usize::from(nests);
        let structural = self.divider.structural.contains(tag);
        let container = structural && nesting <= self.divider.config.max_depth;
        let hidden = parent.is_some_and(|p| p.hidden) || hides(el);
        let mut anchor = parent.and_then(|p| p.anchor);
        if tag == "a" {
            if let Some(href) = el.attr("href") {
                let href = href.trim().to_string();
                let kind = link_kind(&href);
                self.anchors.push(Anchor { href, kind });
                anchor = Some(self.anchors.len() - 1);
            }
        }
        // A text-bearing `own_block` element (a `<time>`) starts a block of its own; a replaced
        // one (an image) is split off in `replaced`.
        let own_block = self.divider.own_block.contains(tag) && !REPLACED.contains(&tag);
        if container || own_block {
            self.end_run();
        }
        if tag == "br" {
            self.pending_brs += 1;
            self.pending_space = true;
        } else if !INLINE.contains(&tag) {
            self.pending_space = true;
        }
        let container_depth = if container { self.stack.len() + 1 } else { self.container_depth() };
        self.stack.push(Frame { node, tag, index, child_counts: Vec::new(), container, own_block, container_depth, nesting, hidden, anchor });
        self.note_depth();
    }

    fn close(&mut self) {
        // The run must end while its container is still on the stack (its locator is read there).
        if self.stack.last().is_some_and(|f| f.container) {
            self.end_run();
        }
        // An end tag after the run's last leaf may close the run's common ancestor: keep its
        // locator while the element is still on the stack.
        let depth = self.stack.len();
        if let Some(run) = &self.run {
            if run.locator.is_none() && depth <= run.min_depth {
                let locator = self.locator(run.min_depth);
                if let Some(run) = &mut self.run {
                    run.locator = Some(locator);
                }
            }
        }
        // A text-bearing `own_block` element ends its block while it is still on the stack, so
        // that the block's locator names it.
        if self.stack.last().is_some_and(|f| f.own_block) {
            self.end_run();
        }
        let Some(frame) = self.stack.pop() else { return };
        if !INLINE.contains(&frame.tag) {
            self.pending_space = true;
        }
        self.note_depth();
    }

    fn note_depth(&mut self) {
        self.min_since_leaf = self.min_since_leaf.min(self.stack.len());
    }

    fn container_depth(&self) -> usize {
        self.stack.last().map_or(0, |f| f.container_depth)
    }

    fn text(&mut self, node: NodeId, text: &str) {
        let normalized = collapse_whitespace(text);
        if normalized.is_empty() {
            if !text.is_empty() {
                self.pending_space = true;
            }
            return;
        }
        let starts_with_space = text.starts_with(char::is_whitespace);
        let ends_with_space = text.ends_with(char::is_whitespace);
        self.pending_space |= starts_with_space;
        self.leaf(node, normalized, None);
        self.pending_space = ends_with_space;
    }

    /// A replaced element (image, iframe, form field): a leaf of its own, already on the stack.
    fn replaced(&mut self, node: NodeId, el: &scraper::node::Element) {
        let tag = el.name();
        let attr = |name| el.attr(name).map(collapse_whitespace).filter(|v| !v.is_empty());
        let text = match tag {
            "img" | "applet" | "area" => attr("alt"),
            "input" => match el.attr("type").map(|t| t.trim().to_ascii_lowercase()).as_deref() {
                Some("submit") | Some("button") | Some("reset") => attr("value"),
                Some("image") => attr("alt").or_else(|| attr("value")),
                _ => attr("value").or_else(|| attr("placeholder")),
            },
            _ => attr("title"),
        };
        let linked = self.stack.last().and_then(|f| f.anchor).is_some();
        let image = Image {
            tag: tag.to_string(),
            src: el.attr("src").or_else(|| el.attr("data")).map(|s| s.trim().to_string()),
            alt: el.attr("alt").map(collapse_whitespace),
            width: el.attr("width").and_then(parse_pixels),
            height: el.attr("height").and_then(parse_pixels),
            linked,
        };
        let own = self.divider.own_block.contains(tag);
        if own {
            self.end_run();
        }
        self.pending_space = true;
        self.leaf(node, text.unwrap_or_default(), Some(image));
        self.pending_space = true;
        if own {
            self.end_run();
        }
    }

    fn leaf(&mut self, node: NodeId, text: String, image: Option<Image>) {
        let hidden = self.stack.last().is_some_and(|f| f.hidden);
        let container_depth = self.container_depth();
        let br_breaks = self.divider.config.br_breaks;
        let breaks = br_breaks > 0 && self.pending_brs >= br_breaks;
        let continues = self.run.as_ref().is_some_and(|r| r.container_depth == container_depth && r.hidden == hidden && !breaks);
        if !continues {
            self.end_run();
        }
        self.pending_brs = 0;
        // Page text: one leaf per line; a textless object owns one U+FFFC.
        if !self.text.is_empty() {
            self.text.push('\n');
            self.chars += 1;
        }
        let start = self.chars;
        if text.is_empty() {
            self.text.push(OBJECT_CHAR);
            self.chars += 1;
        } else {
            self.text.push_str(&text);
            self.chars += text.chars().count();
        }
        // The leaf's own depth: a text node sits in the top frame, a replaced element is the top
        // frame itself (so its locator names it).
        let depth = self.stack.len();
        let anchor = self.stack.last().and_then(|f| f.anchor);
        let space_before = self.pending_space;
        if let Some(run) = &mut self.run {
            run.min_depth = run.min_depth.min(depth).min(self.min_since_leaf);
            run.locator = None;
        }
        let run = self.run.get_or_insert_with(|| Run { container_depth, min_depth: depth, locator: None, hidden, start_char: start, leaves: Vec::new() });
        run.leaves.push(Leaf { node, text, space_before, anchor, image });
        self.min_since_leaf = depth;
    }

    fn end_run(&mut self) {
        let Some(run) = self.run.take() else { return };
        let mut text = String::new();
        let mut links: Vec<(usize, Link)> = Vec::new();
        let mut images = Vec::new();
        let mut nodes = Vec::with_capacity(run.leaves.len());
        for leaf in run.leaves {
            nodes.push(leaf.node);
            if !leaf.text.is_empty() {
                if leaf.space_before && !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&leaf.text);
            }
            if let Some(a) = leaf.anchor {
                match links.last_mut() {
                    Some((last, link)) if *last == a => {
                        if !leaf.text.is_empty() {
                            if !link.text.is_empty() {
                                link.text.push(' ');
                            }
                            link.text.push_str(&leaf.text);
                        }
                    }
                    _ => {
                        let anchor = &self.anchors[a];
                        links.push((a, Link { href: anchor.href.clone(), text: leaf.text.clone(), kind: anchor.kind }));
                    }
                }
            }
            if let Some(image) = leaf.image {
                images.push(image);
            }
        }
        let words = count_words(&text);
        let container_node = run.container_depth.checked_sub(1).map(|i| self.stack[i].node);
        self.blocks.push(Block {
            id: self.blocks.len(),
            locator: run.locator.unwrap_or_else(|| self.locator(run.min_depth)),
            container: self.locator(run.container_depth),
            container_path: self.stack[..run.container_depth].iter().map(|f| f.tag).collect::<Vec<_>>().join("/"),
            text,
            chars: [run.start_char, self.chars],
            words,
            links: links.into_iter().map(|(_, l)| l).collect(),
            images,
            hidden: run.hidden,
            nodes,
            container_node,
        });
    }

    /// The element path of the first `depth` frames of the stack.
    fn locator(&self, depth: usize) -> String {
        if depth == 0 {
            return "/".to_string();
        }
        let mut s = String::new();
        for f in &self.stack[..depth] {
            s.push('/');
            s.push_str(f.tag);
            s.push('[');
            s.push_str(&f.index.to_string());
            s.push(']');
        }
        s
    }

    fn finish(mut self) -> Division {
        self.end_run();
        Division { text: self.text, blocks: self.blocks }
    }
}

/// Whether an element's own attributes hide it: `hidden`, or `display:none` /
/// `visibility:hidden` in its `style` attribute. (Style sheets are resolved by the CSS stage.)
fn hides(el: &scraper::node::Element) -> bool {
    if el.attr("hidden").is_some() {
        return true;
    }
    el.attr("style").is_some_and(|style| {
        let compact: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        compact.split(';').any(|decl| {
            let decl = decl.trim_end_matches("!important");
            decl == "display:none" || decl == "visibility:hidden"
        })
    })
}

fn link_kind(href: &str) -> LinkKind {
    let lower = href.to_ascii_lowercase();
    if lower.starts_with("mailto:") {
        return LinkKind::Mailto;
    }
    let path = lower.split(['?', '#']).next().unwrap_or("");
    const IMAGE_EXTENSIONS: &[&str] = &[".jpg", ".jpeg", ".gif", ".png", ".bmp", ".webp", ".tif", ".tiff", ".svg"];
    if IMAGE_EXTENSIONS.iter().any(|ext| path.ends_with(ext)) {
        LinkKind::Image
    } else {
        LinkKind::Text
    }
}

/// A `width`/`height` attribute as pixels: a plain number (`120`, `120px`); percentages and junk
/// give `None`.
fn parse_pixels(v: &str) -> Option<u32> {
    let v = v.trim();
    let v = v.strip_suffix("px").unwrap_or(v).trim();
    let digits: &str = v.split('.').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 6 {
        return None;
    }
    digits.parse().ok()
}

/// Collapses runs of whitespace (including no-break spaces) to one space and trims the ends.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(char::is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Number of whitespace-separated tokens with at least one letter or digit.
pub fn count_words(s: &str) -> usize {
    s.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count()
}

#[cfg(test)]
mod tests;
