//! The CSS stage: a page's style sheets, the cascade, and a computed style per element.
//!
//! Input: a parsed [`Page`] and [`CssOptions`] (where to look for external sheets). Output: a
//! [`StyledDom`]: the [`ComputedStyle`] of every element, the warnings met on the way (missing
//! external sheets) and counts of what was read.
//!
//! Style sources, in cascade order: a small user-agent sheet (`ua.css`, plus the quirks-mode
//! table rule for pages without a standards doctype), presentational HTML
//! (`presentational.rs`), `<style>` elements and `<link rel="stylesheet">` in document order with
//! their `@import`s resolved to local files, and `style` attributes. `@media` applies for a
//! desktop screen, not print.
//!
//! Invariants: nothing here fails on page content. Malformed CSS is skipped rule by rule
//! (lightningcss error recovery); a missing or unreadable external sheet becomes a
//! [`CssWarning`] and a count in [`CssStats`]; the only error is a bad option ([`CssError`]).
//! The DOM is walked iteratively, never recursively, and CSS nesting deeper than
//! [`MAX_CSS_NESTING`] is dropped before any parser recurses into it. A page cannot make parcels
//! read other local files: external sheets are read only if, after canonicalisation, they are
//! regular files inside the page's directory tree or the assets directory; each is read once,
//! and at most [`MAX_SHEETS_PER_PAGE`] sheets and [`MAX_SHEET_BYTES_PER_PAGE`] bytes of them per
//! page ([`MAX_SHEET_BYTES`] each). At most [`MAX_RULES_PER_PAGE`] author rules are kept, and
//! at most [`MAX_AUTHOR_CANDIDATES_PER_PAGE`] of them are tried against the page's elements.
//!
//! ```
//! use parcels::css::{CssOptions, StyledDom};
//! use parcels::page::{LoadOptions, Page};
//!
//! let html = b"<style>p { font-size: 12pt }</style><p><b>bold</b> <font size=+2>big</font></p>";
//! let page = Page::from_bytes("p.html", html, &LoadOptions::default()).unwrap();
//! let styled = StyledDom::compute(&page, &CssOptions::default()).unwrap();
//! let b = styled.select(&page, "p b").unwrap();
//! assert_eq!((b.font_size, b.font_weight), (16.0, 700)); // 12pt = 16px; <b> is bolder
//! assert_eq!(styled.select(&page, "font").unwrap().font_size, 24.0); // size 3 + 2 = x-large
//! ```

mod cascade;
mod presentational;
mod sheet;
pub mod values;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ego_tree::NodeId;
use scraper::{ElementRef, Node};
use serde::Serialize;

use crate::page::Page;
pub use cascade::ComputedStyle;
use cascade::{Sheets, QUIRKS_CSS};
use sheet::{media_matches, RuleSet, SheetItem};
pub use sheet::{MAX_CSS_NESTING, MAX_RULES_PER_PAGE};
pub use values::{Display, Float, Length, Position, Rgba, Visibility};

/// The user-agent style sheet, compiled in.
pub const UA_CSS: &str = include_str!("ua.css");

/// Most author rules tried against elements per page (after bucketing by id, class and tag,
/// summed over the elements): once the next element would pass it, the remaining elements are
/// styled without the author rules ([`CssWarning::CascadeBudget`]). The cascade costs time in
/// proportion to this count (about 45 ns each when every rule matches: 20,000 `*` rules on a
/// page of 10,000 elements took 9 s); the most a page of the shared corpora tries is about
/// 960,000.
pub const MAX_AUTHOR_CANDIDATES_PER_PAGE: usize = 25_000_000;

/// Classes of an element that make one more unit of [`MAX_AUTHOR_CANDIDATES_PER_PAGE`] per rule
/// tried on it: a rule test costs 1 + classes / 32 units. A class selector is tested by scanning
/// the element's class list, so on an element listing thousands of classes every test costs that
/// much more: 25 `<p>` of 10,000 classes under 10,000 class rules took 3.4 s of CPU (about
/// 1.35 ns per class compared, where a whole rule test is about 45 ns, or 32 classes), and
/// elements of 20,000 classes would have reached a minute within the page limit before this
/// charge. Real elements list a handful of classes and are charged one unit per rule, as before.
pub const CLASSES_PER_RULE_TEST: usize = 32;

/// External sheets larger than this are not read (no real sheet comes near it).
pub const MAX_SHEET_BYTES: u64 = 4 * 1024 * 1024;
/// `@import` chains deeper than this are cut ([`CssWarning::ImportTooDeep`]). Sheets are read
/// once each, so cycles stop by themselves; only a chain of distinct sheets gets this deep, and
/// real sites import two or three levels at most.
pub const MAX_IMPORT_DEPTH: usize = 8;
/// External sheets read for one page at most. Sheets are read once each (by canonical path),
/// but a page's sheets may import many distinct files; real pages link a few dozen at most.
pub const MAX_SHEETS_PER_PAGE: usize = 100;
/// Bytes of external sheets read for one page at most.
pub const MAX_SHEET_BYTES_PER_PAGE: u64 = 16 * 1024 * 1024;

/// Where external style sheets are looked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CssOptions {
    /// A directory of saved assets: a sheet not found next to the page is looked for here by its
    /// URL path, then by shorter and shorter tails of it, down to its file name.
    pub assets_dir: Option<PathBuf>,
    /// Whether to read `<link rel="stylesheet">` and `@import` files at all.
    pub skip_external: bool,
}

/// A bad CSS option. Page content never causes one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CssError {
    #[error("{path}: assets directory does not exist or is not a directory")]
    AssetsDir { path: PathBuf },
}

/// Something worth telling the user that did not stop the cascade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum CssWarning {
    /// An external sheet (`<link>` or `@import`) was not found locally.
    #[error("{page}: style sheet {href} not found")]
    MissingSheet { page: PathBuf, href: String },
    /// An external sheet exists but could not be read (too large, not a regular file, I/O
    /// error).
    #[error("{page}: style sheet {path}: {problem}")]
    UnreadableSheet { page: PathBuf, path: PathBuf, problem: String },
    /// An external sheet resolves outside the page's directory tree and the assets directory;
    /// a page may not make parcels read other local files.
    #[error("{page}: style sheet {href} is outside the page's directory and the assets directory; not read")]
    OutsideSheet { page: PathBuf, href: String },
    /// The page's external sheets reached [`MAX_SHEETS_PER_PAGE`] or
    /// [`MAX_SHEET_BYTES_PER_PAGE`]; the rest were not read.
    #[error("{page}: more than {limit} of external style sheets; the rest were not read")]
    SheetLimit { page: PathBuf, limit: String },
    /// An `@import` chain of distinct sheets went deeper than [`MAX_IMPORT_DEPTH`]; the sheet at
    /// the next level was not read.
    #[error("{page}: style sheet {href} is imported more than {max} levels deep; not read")]
    ImportTooDeep { page: PathBuf, href: String, max: usize },
    /// Statements of a sheet nesting brackets deeper than [`MAX_CSS_NESTING`] were
    /// dropped (hostile input: deep `:not(:not(…))` would overflow the parser's stack).
    #[error("{page}: {dropped} rule(s) of {sheet} nest more than {max} levels deep; dropped")]
    TooDeep { page: PathBuf, sheet: String, dropped: usize, max: usize },
    /// The page's author sheets held more than [`MAX_RULES_PER_PAGE`] rules; the later ones
    /// were dropped (hostile input: the cascade's cost is rules × elements).
    #[error("{page}: more than {max} style rules; the last {dropped} were dropped")]
    RuleLimit { page: PathBuf, dropped: usize, max: usize },
    /// Matching the author rules against the page's elements would have tried more than
    /// [`MAX_AUTHOR_CANDIDATES_PER_PAGE`] rules; the last `elements` elements were styled
    /// without them (user-agent rules, presentational attributes and `style` attributes only).
    #[error("{page}: more than {max} style rule matches; the last {elements} element(s) were styled without the page's style sheets")]
    CascadeBudget { page: PathBuf, elements: usize, max: usize },
}

/// What the CSS stage read for one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CssStats {
    /// `<style>` elements read.
    pub style_elements: usize,
    /// External sheets (`<link>`, `@import`) found and read.
    pub external_sheets: usize,
    /// External sheets referenced but not found.
    pub missing_sheets: usize,
    /// Author rules (one per complex selector).
    pub author_rules: usize,
    /// Declarations, rules and selectors skipped as unreadable.
    pub parse_warnings: usize,
    /// Elements with a `style` attribute.
    pub style_attributes: usize,
}

/// A page's DOM with a computed style for every element.
#[derive(Debug)]
pub struct StyledDom {
    index: NodeMap<u32>,
    styles: Vec<ComputedStyle>,
    /// Whether the page was parsed in quirks mode (no or an old doctype).
    pub quirks: bool,
    pub warnings: Vec<CssWarning>,
    pub stats: CssStats,
}

impl StyledDom {
    /// Reads the page's style sources and computes every element's style.
    pub fn compute(page: &Page, opts: &CssOptions) -> Result<StyledDom, CssError> {
        if let Some(dir) = &opts.assets_dir {
            if !dir.is_dir() {
                return Err(CssError::AssetsDir { path: dir.clone() });
            }
        }
        let mut loader = Loader::new(page, opts);
        let author = loader.author_rules();
        if author.dropped_rules > 0 {
            loader.warnings.push(CssWarning::RuleLimit { page: page.path.clone(), dropped: author.dropped_rules, max: MAX_RULES_PER_PAGE });
        }
        // scraper does not re-export html5ever's `QuirksMode`; its variant names are stable.
        let quirks = format!("{:?}", page.html.quirks_mode) == "Quirks";
        let sheets = Sheets { user_agent: ua_rules(), quirks: quirks.then(quirks_rules), author: &author };
        let (styled, unstyled) = cascade::cascade(&page.html, &sheets, MAX_AUTHOR_CANDIDATES_PER_PAGE);
        if unstyled > 0 {
            loader.warnings.push(CssWarning::CascadeBudget { page: page.path.clone(), elements: unstyled, max: MAX_AUTHOR_CANDIDATES_PER_PAGE });
        }
        let mut stats = loader.stats;
        stats.author_rules = author.rules.len();
        stats.parse_warnings += author.parse_warnings;
        stats.style_attributes = page.html.tree.nodes().filter(|n| matches!(n.value(), Node::Element(el) if el.attr("style").is_some())).count();
        let mut index = NodeMap::with_capacity_and_hasher(styled.len(), Default::default());
        let mut styles = Vec::with_capacity(styled.len());
        for (node, style) in styled {
            index.insert(node, styles.len() as u32);
            styles.push(style);
        }
        Ok(StyledDom { index, styles, quirks, warnings: loader.warnings, stats })
    }

    /// The computed style of an element.
    pub fn style(&self, element: NodeId) -> Option<&ComputedStyle> {
        self.index.get(&element).and_then(|&i| self.styles.get(i as usize))
    }

    /// The style a node is drawn with: an element's own, a text node's parent's.
    pub fn style_of_node(&self, page: &Page, node: NodeId) -> Option<&ComputedStyle> {
        if let Some(s) = self.style(node) {
            return Some(s);
        }
        let parent = page.html.tree.get(node)?.parent()?;
        self.style(parent.id())
    }

    /// The computed style of the first element matching a CSS selector (for tests and tools);
    /// `None` when the selector is invalid or matches nothing.
    pub fn select(&self, page: &Page, selector: &str) -> Option<&ComputedStyle> {
        let selector = scraper::Selector::parse(selector).ok()?;
        let element = page.html.select(&selector).next()?;
        self.style(element.id())
    }

    /// Number of elements styled.
    pub fn len(&self) -> usize {
        self.styles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.styles.is_empty()
    }
}

/// A map keyed by DOM node. `NodeId` hashes one `usize` (its arena index), so a multiplicative
/// hash does; SipHash showed up in profiles of the feature pass.
pub type NodeMap<V> = HashMap<NodeId, V, std::hash::BuildHasherDefault<NodeIdHasher>>;

/// Fibonacci hashing of the node index (see [`NodeMap`]).
#[derive(Default)]
pub struct NodeIdHasher(u64);

impl std::hash::Hasher for NodeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

fn ua_rules() -> &'static RuleSet {
    static UA: OnceLock<RuleSet> = OnceLock::new();
    UA.get_or_init(|| {
        let mut set = RuleSet::default();
        set.add_sheet(UA_CSS, "ua.css", &mut |_, _| {});
        set
    })
}

fn quirks_rules() -> &'static RuleSet {
    static QUIRKS: OnceLock<RuleSet> = OnceLock::new();
    QUIRKS.get_or_init(|| {
        let mut set = RuleSet::default();
        set.add_sheet(QUIRKS_CSS, "quirks.css", &mut |_, _| {});
        set
    })
}

/// Collects the author style sheets of a page, in document order.
struct Loader<'p> {
    page: &'p Page,
    opts: &'p CssOptions,
    page_dir: PathBuf,
    /// Directories sheets may be read from, canonical: the page's and the assets directory.
    roots: Vec<PathBuf>,
    /// Sheets already read, by canonical path (cycles, duplicate links and the same file named
    /// through different `..` paths are read once).
    seen: HashSet<PathBuf>,
    /// Bytes of external sheets read so far, against [`MAX_SHEET_BYTES_PER_PAGE`].
    bytes_read: u64,
    /// Whether a per-page cap was hit (then no more sheets are read).
    capped: bool,
    warnings: Vec<CssWarning>,
    stats: CssStats,
}

/// Where an `href` leads.
enum Located {
    /// A regular file inside the allowed directories (canonical path).
    File(PathBuf),
    /// Something exists but may not be read: outside the allowed directories, or not a
    /// regular file (a named pipe would block the batch).
    Refused(PathBuf, &'static str),
    Missing,
}

impl<'p> Loader<'p> {
    fn new(page: &'p Page, opts: &'p CssOptions) -> Self {
        let page_dir = match page.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let roots = std::iter::once(&page_dir).chain(&opts.assets_dir).filter_map(|d| d.canonicalize().ok()).collect();
        Loader { page, opts, page_dir, roots, seen: HashSet::new(), bytes_read: 0, capped: false, warnings: Vec::new(), stats: CssStats::default() }
    }

    fn author_rules(&mut self) -> RuleSet {
        let mut set = RuleSet::default();
        let page = self.page;
        for node in page.html.tree.root().descendants() {
            let Some(el) = ElementRef::wrap(node) else { continue };
            let attrs = el.value();
            if !attrs.attr("media").is_none_or(media_matches) {
                continue;
            }
            match attrs.name() {
                "style" => {
                    let css: String = el.text().collect();
                    self.stats.style_elements += 1;
                    let dir = self.page_dir.clone();
                    self.add_sheet(&mut set, &css, &page.path.display().to_string(), &dir, 0);
                }
                "link" if is_stylesheet_link(attrs) => {
                    if let Some(href) = attrs.attr("href") {
                        let dir = self.page_dir.clone();
                        self.add_external(&mut set, href, &dir, 0);
                    }
                }
                _ => {}
            }
        }
        set
    }

    fn add_sheet(&mut self, set: &mut RuleSet, css: &str, name: &str, dir: &Path, depth: usize) {
        // `@import` rules come first in a sheet, so the imported rules land before the
        // importer's own, as the cascade's source order requires.
        let dropped = set.add_sheet(css, name, &mut |set, SheetItem::Import(url)| self.add_external(set, &url, dir, depth + 1));
        if dropped > 0 {
            self.warnings.push(CssWarning::TooDeep { page: self.page.path.clone(), sheet: name.to_string(), dropped, max: MAX_CSS_NESTING });
        }
    }

    fn add_external(&mut self, set: &mut RuleSet, href: &str, dir: &Path, depth: usize) {
        if self.opts.skip_external || self.capped {
            return;
        }
        if depth > MAX_IMPORT_DEPTH {
            self.warnings.push(CssWarning::ImportTooDeep { page: self.page.path.clone(), href: href.to_string(), max: MAX_IMPORT_DEPTH });
            return;
        }
        let path = match self.locate(href, dir) {
            Located::File(path) => path,
            Located::Missing => {
                self.stats.missing_sheets += 1;
                self.warnings.push(CssWarning::MissingSheet { page: self.page.path.clone(), href: href.to_string() });
                return;
            }
            Located::Refused(path, problem) => {
                self.stats.missing_sheets += 1;
                let page = self.page.path.clone();
                self.warnings.push(if problem == OUTSIDE {
                    CssWarning::OutsideSheet { page, href: href.to_string() }
                } else {
                    CssWarning::UnreadableSheet { page, path, problem: problem.to_string() }
                });
                return;
            }
        };
        if self.seen.contains(&path) {
            return;
        }
        if self.seen.len() >= MAX_SHEETS_PER_PAGE {
            self.cap(format!("{MAX_SHEETS_PER_PAGE} files"));
            return;
        }
        self.seen.insert(path.clone());
        match read_sheet(&path, MAX_SHEET_BYTES_PER_PAGE.saturating_sub(self.bytes_read)) {
            Ok(css) => {
                self.bytes_read += css.len() as u64;
                self.stats.external_sheets += 1;
                let sheet_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                self.add_sheet(set, &css, &path.display().to_string(), &sheet_dir, depth);
            }
            Err(SheetProblem::PageBudget) => self.cap(format!("{MAX_SHEET_BYTES_PER_PAGE} bytes")),
            Err(SheetProblem::Unreadable(problem)) => {
                self.stats.missing_sheets += 1;
                self.warnings.push(CssWarning::UnreadableSheet { page: self.page.path.clone(), path, problem });
            }
        }
    }

    /// Stops reading external sheets for this page, with one warning.
    fn cap(&mut self, limit: String) {
        self.capped = true;
        self.warnings.push(CssWarning::SheetLimit { page: self.page.path.clone(), limit });
    }

    /// The local file an `href` names: relative to `dir` (the page's or the importing sheet's
    /// directory), then under the assets directory by URL path, then by file name. Candidates
    /// are canonicalised (so `a/../s.css` and `b/../s.css` are one sheet, and a symbolic link
    /// cannot lead out) and must be regular files inside the page's directory tree or the
    /// assets directory.
    fn locate(&self, href: &str, dir: &Path) -> Located {
        let Some(url_path) = url_path(href) else { return Located::Missing };
        let relative = url_path.trim_start_matches('/');
        let mut candidates = Vec::new();
        if !relative.is_empty() && !is_remote(href) {
            candidates.push(dir.join(relative));
        }
        if let Some(assets) = &self.opts.assets_dir {
            // Saved assets keep the tail of the URL path: try `a/b/c.css`, `b/c.css`, `c.css`.
            let mut tail = relative;
            loop {
                candidates.push(assets.join(tail));
                match tail.split_once('/') {
                    Some((_, rest)) if !rest.is_empty() => tail = rest,
                    _ => break,
                }
            }
        }
        let mut refused = None;
        for candidate in candidates {
            let Ok(canonical) = candidate.canonicalize() else { continue };
            let Ok(meta) = std::fs::metadata(&canonical) else { continue };
            if meta.is_dir() {
                continue;
            }
            if !self.roots.iter().any(|root| canonical.starts_with(root)) {
                refused.get_or_insert((canonical, OUTSIDE));
            } else if !meta.is_file() {
                refused.get_or_insert((canonical, crate::page::file_kind(meta.file_type())));
            } else {
                return Located::File(canonical);
            }
        }
        refused.map_or(Located::Missing, |(path, problem)| Located::Refused(path, problem))
    }
}

/// The problem of a sheet outside the allowed directories (see [`Loader::locate`]).
const OUTSIDE: &str = "outside the page's directory and the assets directory";

fn is_stylesheet_link(el: &scraper::node::Element) -> bool {
    el.attr("rel").is_some_and(|rel| {
        let rel = rel.to_ascii_lowercase();
        let words: Vec<&str> = rel.split_whitespace().collect();
        words.contains(&"stylesheet") && !words.contains(&"alternate")
    })
}

fn is_remote(href: &str) -> bool {
    let h = href.trim().to_ascii_lowercase();
    h.starts_with("http:") || h.starts_with("https:") || h.starts_with("//")
}

/// The path part of a URL (`http://host/a/b.css?v=2` → `/a/b.css`), percent-escaped spaces
/// decoded; `None` for `data:` and other non-file URLs.
fn url_path(href: &str) -> Option<String> {
    let h = href.trim();
    let lower = h.to_ascii_lowercase();
    if lower.starts_with("data:") || lower.starts_with("javascript:") {
        return None;
    }
    let without_scheme = if is_remote(h) {
        let after = h.split_once("//").map_or(h, |(_, r)| r);
        after.find('/').map_or("", |i| &after[i..])
    } else {
        h
    };
    let path = without_scheme.split(['?', '#']).next().unwrap_or("");
    (!path.is_empty()).then(|| path.replace("%20", " "))
}

/// Why an external sheet was not read.
enum SheetProblem {
    /// It would take the page past [`MAX_SHEET_BYTES_PER_PAGE`].
    PageBudget,
    Unreadable(String),
}

/// Reads a sheet (a canonical path to a regular file) of at most [`MAX_SHEET_BYTES`] and at
/// most `budget` bytes.
fn read_sheet(path: &Path, budget: u64) -> Result<String, SheetProblem> {
    use std::io::Read;
    let problem = |e: std::io::Error| SheetProblem::Unreadable(e.to_string());
    let file = std::fs::File::open(path).map_err(problem)?;
    // Checked on the open file too: `locate` looked at the path, which may have changed since.
    let meta = file.metadata().map_err(problem)?;
    if !meta.is_file() {
        return Err(SheetProblem::Unreadable(crate::page::file_kind(meta.file_type()).to_string()));
    }
    if meta.len() > MAX_SHEET_BYTES {
        return Err(SheetProblem::Unreadable(format!("{} bytes, above the limit of {MAX_SHEET_BYTES}", meta.len())));
    }
    if meta.len() > budget {
        return Err(SheetProblem::PageBudget);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // At most one byte past the smaller limit: the file may have grown since `metadata`.
    file.take(MAX_SHEET_BYTES.min(budget) + 1).read_to_end(&mut bytes).map_err(problem)?;
    if bytes.len() as u64 > budget {
        return Err(SheetProblem::PageBudget);
    }
    if bytes.len() as u64 > MAX_SHEET_BYTES {
        return Err(SheetProblem::Unreadable(format!("more than {MAX_SHEET_BYTES} bytes")));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests;
