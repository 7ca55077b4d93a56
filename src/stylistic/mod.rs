//! The stylistic view of PARCELS (paper section 5.2): how each block looks and where it sits,
//! never what it says.
//!
//! Input: a [`Page`], its [`Division`] (the blocks, from the same page) and [`StyleOptions`].
//! Output: [`StylisticFeatures`]: one dense row of `f64` per block, in block order, under stable
//! feature names ([`feature_names`]); `NaN` means the feature does not apply or is unknown (a
//! block outside any table has no table row).
//!
//! The CSS stage ([`crate::css`]) computes every element's style first; the feature families
//! then read it: placement, layout system and layers ([`layout`]), tables ([`table`]), fonts
//! ([`fonts`]) and images, all gathered once per page by [`StylePass`]. Each family's columns
//! make a built-in stylistic feature group of [`crate::views::Registry::builtin`], whose order is
//! the row order here. Font features are relative to the page's normal text and positions
//! relative to the page's extent, so a model learns "bigger than normal, near the top" and
//! carries over to unseen sites.
//!
//! Invariants: every row has exactly `names.len()` values; no feature is infinite; nothing
//! fails on page content (a missing external sheet is a warning and the `css.missing_sheets`
//! feature).
//!
//! ```
//! use parcels::divide::Divider;
//! use parcels::page::{LoadOptions, Page};
//! use parcels::stylistic::{extract, StyleOptions};
//!
//! let html = b"<body><h1>Title</h1><p>Some body text, the page's normal text.</p></body>";
//! let page = Page::from_bytes("p.html", html, &LoadOptions::default()).unwrap();
//! let division = Divider::default().divide(&page);
//! let features = extract(&page, &division, &StyleOptions::default()).unwrap();
//! assert_eq!(features.rows.len(), division.blocks.len());
//! assert_eq!(features.get(0, "font.larger"), Some(1.0)); // the h1 is larger than normal
//! assert!(features.get(0, "table.row").unwrap().is_nan()); // not in a table
//! ```
//!
//! # Features
//!
//! In column order, by group (a unit test checks this table against the registry).
//!
//! | name | meaning |
//! |---|---|
//! | `pos.start` | first character of the block in the page text / page text length (0 = top of the document, 1 = end) |
//! | `pos.index_rel` | block number / (number of blocks − 1) (0 if one block) |
//! | `pos.dom_depth` | element depth of the block's first leaf element below the root element |
//! | `pos.depth_rel` | `pos.dom_depth` / the largest `pos.dom_depth` of the page's blocks |
//! | `hidden` | 1 if the block is not drawn (`hidden`, `display:none` on it or an ancestor, or `visibility:hidden`), from the cascade |
//! | `layout.page_tabular` | 1 if the page is laid out by tables (at least as many `<table>` as `<div>` within [`StyleOptions::near_root`] levels below `<body>`) |
//! | `layout.page_layer` | 1 if it is laid out by divisions/layers (more `<div>` and sectioning elements near the root than tables) |
//! | `layout.page_linear` | 1 if neither appears near the root |
//! | `layout.table_share` | tables / (tables + divisions) near the root (NaN if none) |
//! | `layout.by_table` | 1 if the block's nearest layout ancestor is a table cell |
//! | `layout.by_layer` | 1 if it is a division (div, section…, or a floated or positioned box) |
//! | `layout.by_linear` | 1 if it has neither below `<body>` |
//! | `layer.relative` / `layer.absolute` / `layer.fixed` | scheme of the block's nearest positioned ancestor (itself included) |
//! | `layer.float_left` / `layer.float_right` | 1 if the block is inside a box floated left / right |
//! | `layer.x` / `layer.y` | left / top edge of the block's absolutely positioned box over the page's maximal x / y (NaN if unknown) |
//! | `layer.width` / `layer.height` | set width / height of the nearest sized box: pixels over the page's maximal x / y, percentages / 100 |
//! | `layer.z_index` | effective stacking level: z-index of the outermost positioned ancestor that sets one (0 if none) |
//! | `layer.z_rank` | rank of that level among the page's levels, 0 bottom to 1 top (NaN if one level) |
//! | `layer.overlaps` | other positioned boxes the block's box overlaps (NaN without a known box) |
//! | `layer.above` | 1 if one of them has a lower stacking level (the block floats over it) |
//! | `table.in_table` | 1 if the block lies in a table cell (the other `table.*` are NaN otherwise) |
//! | `table.row` / `table.col` | grid row / column of the cell (0-based, rowspan and colspan honoured) |
//! | `table.row_rel` / `table.col_rel` | relative position of the cell's centre in the grid |
//! | `table.rows` / `table.cols` | grid size |
//! | `table.rowspan` / `table.colspan` | the cell's spans |
//! | `table.depth` | nesting depth of the cell's table (1 = outermost) |
//! | `table.first_in_row` / `table.last_in_row` / `table.first_in_col` / `table.last_in_col` | cell flow: the cell touches that edge of the grid |
//! | `table.row_cells` | cells in the cell's `<tr>` |
//! | `table.parent_row_rel` / `table.parent_col_rel` | for a nested table, the relative position of the parent-table cell holding it |
//! | `table.th` | the cell is a `<th>` or in `<thead>` |
//! | `table.header_row` / `table.header_col` | the cell's row / column looks like a header (all `<th>`, or first row/column bold or coloured unlike the second) |
//! | `table.numeric` | every word of the cell is a number |
//! | `table.word_density` | words of the cell / words of the page |
//! | `table.row_same_type` / `table.col_same_type` | share of the other cells in the row / column with the same data type (empty, images, numeric, or words by ⌊log2(1+words)⌋) |
//! | `table.neighbours_same_type` | share of the adjacent cells (left, right, above, below) with the same data type |
//! | `font.size_ratio` | mean font size of the block's text / the page's median (NaN without text) |
//! | `font.larger` / `font.smaller` | size ratio above 1.1 / below 0.9 |
//! | `font.weight_diff` | (mean weight − page median weight) / 300 |
//! | `font.bold_share` / `font.italic_share` / `font.underline_share` | share of the block's characters so drawn |
//! | `font.color_differs` / `font.color_distance` | main text colour differs from the page's / RGB distance 0–1 |
//! | `font.family_differs` | main family differs from the page's |
//! | `font.background_differs` | the background behind the text differs from the page's main background |
//! | `font.link_share` | share of the block's characters in hyperlinks |
//! | `img.count` | `<img>` leaves in the block |
//! | `img.objects` | other replaced objects (iframe, embed, object, video, form fields) |
//! | `img.max_width` / `img.max_height` | largest known image width / height in pixels (attributes or CSS; NaN if none known) |
//! | `img.area_share` | known image area of the block / known image area of the page (NaN if the page has none) |
//! | `img.linked_share` | share of the block's images inside hyperlinks |
//! | `img.only` | 1 if the block has images or objects and no text of its own (alt text aside) |
//! | `css.missing_sheets` | external style sheets the page links that were not found (page-wide) |
//! | `css.author_rules` | log2(1 + author CSS rules read) (page-wide) |

mod dom;
pub mod fonts;
pub mod layout;
pub mod table;

use std::fmt::Write as _;

use scraper::Node;
use serde::Serialize;

use crate::css::{CssError, CssOptions, CssWarning, StyledDom};
use crate::divide::Division;
use crate::page::Page;
use fonts::{PageFont, TextLeaf};
use layout::Layout;
use table::Tables;

/// Options of the stylistic view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StyleOptions {
    /// Where external style sheets are looked for.
    pub css: CssOptions,
    /// Levels below `<body>` whose `<table>` and `<div>` elements decide the page's layout system
    /// (the paper's "topmost levels of the DOM tree").
    pub near_root: usize,
}

impl Default for StyleOptions {
    fn default() -> Self {
        // Three levels cover the usual wrappers (body > div#page > div#content, or body > table >
        // tbody > tr) without reaching the content itself.
        StyleOptions { css: CssOptions::default(), near_root: 3 }
    }
}

/// Why stylistic features could not be computed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StyleError {
    #[error(transparent)]
    Css(#[from] CssError),
    /// The division names a node the page does not have (it was made from another page).
    #[error("{page}: block {block} does not belong to this page")]
    ForeignBlock { page: std::path::PathBuf, block: usize },
    /// A stylistic feature group failed for another reason.
    #[error("stylistic feature group: {0}")]
    Group(String),
}

/// The stylistic feature matrix of one page: a row per block, a column per feature.
#[derive(Debug, Clone, Serialize)]
pub struct StylisticFeatures {
    /// Feature names, the columns (see the module docs for their meaning).
    pub names: Vec<String>,
    /// One row per block, in block order; `NaN` = missing (serialised as `null` in JSON).
    pub rows: Vec<Vec<f64>>,
    /// Warnings met while reading style sheets.
    pub warnings: Vec<CssWarning>,
}

impl StylisticFeatures {
    /// Tab-separated values: a header line `block` + names, then one line per block; `NaN` is
    /// written as `NaN`.
    pub fn to_tsv(&self) -> String {
        let mut out = String::from("block");
        for n in &self.names {
            out.push('\t');
            out.push_str(n);
        }
        out.push('\n');
        for (i, row) in self.rows.iter().enumerate() {
            let _ = write!(out, "{i}");
            for v in row {
                let _ = write!(out, "\t{v}");
            }
            out.push('\n');
        }
        out
    }

    /// JSON: `{"names": [...], "rows": [[...]], "warnings": [...]}`, `NaN` as `null`.
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }

    /// JSON records, one object per block: `[{"block": 0, "pos.start": 0.0, …}, …]`, `NaN` as
    /// `null` (easier to read than the matrix form).
    pub fn to_records_json(&self) -> serde_json::Result<String> {
        // Written straight from the rows, without a `serde_json::Map` per block (a page of
        // 100,000 blocks took over a gigabyte that way), in the order such a map writes its keys:
        // sorted, `block` among them, a repeated name keeping its last column.
        let mut order: std::collections::BTreeMap<&str, Option<usize>> = std::collections::BTreeMap::new();
        order.insert("block", None);
        for (j, name) in self.names.iter().enumerate() {
            order.insert(name, Some(j));
        }
        let keys: Vec<(&str, Option<usize>)> = order.into_iter().collect();
        serde_json::to_string_pretty(&Records { keys: &keys, rows: &self.rows })
    }

    /// The value of a named feature for a block.
    pub fn get(&self, block: usize, name: &str) -> Option<f64> {
        let col = self.names.iter().position(|n| n == name)?;
        self.rows.get(block)?.get(col).copied()
    }
}

/// [`StylisticFeatures::to_records_json`]'s records: one JSON object per row.
struct Records<'a> {
    /// Record keys in output order, each with its column (`None` for the block index).
    keys: &'a [(&'a str, Option<usize>)],
    rows: &'a [Vec<f64>],
}

impl serde::Serialize for Records<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        struct Record<'a>(&'a [(&'a str, Option<usize>)], usize, &'a [f64]);
        impl serde::Serialize for Record<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                for &(key, column) in self.0 {
                    match column {
                        None => map.serialize_entry(key, &(self.1 as u64))?,
                        // Missing values (NaN, infinities) are `null`, as `serde_json::Number` has them.
                        Some(j) => match self.2.get(j) {
                            Some(v) if v.is_finite() => map.serialize_entry(key, v)?,
                            Some(_) => map.serialize_entry(key, &())?,
                            None => {}
                        },
                    }
                }
                map.end()
            }
        }
        let mut seq = serializer.serialize_seq(Some(self.rows.len()))?;
        for (i, row) in self.rows.iter().enumerate() {
            seq.serialize_element(&Record(self.keys, i, row))?;
        }
        seq.end()
    }
}

/// The `placement` group: names and meanings, in column order.
pub const PLACEMENT: &[(&str, &str)] = &[
    ("pos.start", "first character of the block in the page text / page text length"),
    ("pos.index_rel", "block number / (number of blocks − 1)"),
    ("pos.dom_depth", "element depth of the block's first leaf element"),
    ("pos.depth_rel", "pos.dom_depth / the page's largest block depth"),
    ("hidden", "1 if the block is not drawn (display:none, visibility:hidden, hidden attribute)"),
];

/// The `image` group: names and meanings, in column order.
pub const IMAGES: &[(&str, &str)] = &[
    ("img.count", "<img> leaves in the block"),
    ("img.objects", "other replaced objects in the block (iframe, embed, object, video, form fields)"),
    ("img.max_width", "largest known image width in pixels (NaN if none known)"),
    ("img.max_height", "largest known image height in pixels (NaN if none known)"),
    ("img.area_share", "known image area of the block / known image area of the page (NaN if none on the page)"),
    ("img.linked_share", "share of the block's images inside hyperlinks (NaN without images)"),
    ("img.only", "1 if the block has images or objects and no text of its own (alt text aside)"),
];

/// The page-wide `css` group: names and meanings, in column order.
pub const CSS: &[(&str, &str)] =
    &[("css.missing_sheets", "external style sheets linked by the page but not found"), ("css.author_rules", "log2(1 + author CSS rules read)")];

/// Every feature name with its meaning, in row order: the built-in stylistic feature groups of
/// [`crate::views::Registry::builtin`], in registry order.
pub fn feature_table() -> Vec<(String, String)> {
    crate::views::Registry::builtin().features(crate::views::ViewKind::Stylistic)
}

/// Every feature name, in row order.
pub fn feature_names() -> Vec<String> {
    feature_table().into_iter().map(|(n, _)| n).collect()
}

/// Computes the stylistic features of every block of a page (CSS included).
pub fn extract(page: &Page, division: &Division, opts: &StyleOptions) -> Result<StylisticFeatures, StyleError> {
    let styled = StyledDom::compute(page, &opts.css)?;
    extract_styled(page, division, &styled, opts)
}

/// Per-block facts gathered once.
struct BlockFacts<'s> {
    element: Option<ego_tree::NodeId>,
    text: Vec<TextLeaf<'s>>,
    images: Vec<ImageFact>,
    all_hidden: bool,
    depth: usize,
}

struct ImageFact {
    is_img: bool,
    width: Option<f32>,
    height: Option<f32>,
}

/// Computes the features from an already styled page (to share one cascade between views): the
/// built-in stylistic feature groups of the registry, run over one page.
pub fn extract_styled(page: &Page, division: &Division, styled: &StyledDom, opts: &StyleOptions) -> Result<StylisticFeatures, StyleError> {
    use crate::views::{GroupError, PageContext, Registry, ViewKind};
    let ctx = PageContext::new(page, division, styled, opts, None);
    let registry = Registry::builtin();
    let (names, rows) = registry.compute_dense(ViewKind::Stylistic, &ctx).map_err(|e| match e {
        GroupError::Style(s) => s,
        // The built-in stylistic groups fail only on the stylistic pass.
        other => StyleError::Group(other.to_string()),
    })?;
    Ok(StylisticFeatures { names, rows, warnings: styled.warnings.clone() })
}

/// The shared per-page work of the built-in stylistic feature groups: facts about every block and
/// the page's normal font, layout system, table grids and image area, gathered once per page.
/// Each group asks it for its own columns of one block.
pub struct StylePass<'s> {
    page: &'s Page,
    division: &'s Division,
    styled: &'s StyledDom,
    facts: Vec<BlockFacts<'s>>,
    page_font: PageFont,
    layout: Layout,
    /// Layout and layer columns per block (one [`Layout::features`] call serves both groups).
    layout_rows: std::cell::OnceCell<Vec<Vec<f64>>>,
    tables: std::cell::RefCell<Tables<'s>>,
    text_len: f64,
    max_depth: f64,
    page_area: f64,
}

impl<'s> StylePass<'s> {
    /// Gathers the page-level facts; fails if a block names a node the page does not have.
    pub fn new(page: &'s Page, division: &'s Division, styled: &'s StyledDom, opts: &StyleOptions) -> Result<StylePass<'s>, StyleError> {
        let facts = division.blocks.iter().map(|b| block_facts(page, styled, b)).collect::<Result<Vec<_>, _>>()?;
        let page_font = PageFont::new(facts.iter().flat_map(|f| f.text.iter().copied()));
        let layout = Layout::new(page, styled, opts.near_root);
        let page_words: usize = division.blocks.iter().filter(|b| !b.hidden).map(|b| b.words).sum();
        let tables = std::cell::RefCell::new(Tables::new(page, styled, page_words));
        let text_len = division.text.chars().count().max(1) as f64;
        let max_depth = facts.iter().map(|f| f.depth).max().unwrap_or(0).max(1) as f64;
        let page_area: f64 = facts.iter().flat_map(|f| &f.images).filter_map(area).sum();
        Ok(StylePass { page, division, styled, facts, page_font, layout, layout_rows: std::cell::OnceCell::new(), tables, text_len, max_depth, page_area })
    }

    /// Number of blocks (rows).
    pub fn blocks(&self) -> usize {
        self.facts.len()
    }

    /// The `placement` columns ([`PLACEMENT`]) of block `b`.
    pub fn placement(&self, b: usize, out: &mut [f64]) {
        let (Some(block), Some(f)) = (self.division.blocks.get(b), self.facts.get(b)) else { return };
        let n_blocks = self.division.blocks.len();
        out.copy_from_slice(&[
            block.chars[0] as f64 / self.text_len,
            if n_blocks > 1 { block.id as f64 / (n_blocks - 1) as f64 } else { 0.0 },
            f.depth as f64,
            f.depth as f64 / self.max_depth,
            if block.hidden || f.all_hidden { 1.0 } else { 0.0 },
        ]);
    }

    /// The layout columns ([`layout::LAYOUT_NAMES`]) then the layer columns
    /// ([`layout::LAYER_NAMES`]) of block `b`.
    pub fn layout_and_layers(&self, b: usize) -> &[f64] {
        let rows = self.layout_rows.get_or_init(|| {
            let width = layout::LAYOUT_NAMES.len() + layout::LAYER_NAMES.len();
            self.facts
                .iter()
                .map(|f| {
                    let mut row = vec![f64::NAN; width];
                    self.layout.features(self.page, self.styled, f.element, &mut row);
                    row
                })
                .collect()
        });
        rows.get(b).map_or(&[], Vec::as_slice)
    }

    /// The `table` columns ([`table::NAMES`]) of block `b`.
    pub fn table(&self, b: usize, out: &mut [f64]) {
        if let Some(f) = self.facts.get(b) {
            self.tables.borrow_mut().features(f.element, out);
        }
    }

    /// The `font` columns ([`fonts::NAMES`]) of block `b`.
    pub fn font(&self, b: usize, out: &mut [f64]) {
        let (Some(block), Some(f)) = (self.division.blocks.get(b), self.facts.get(b)) else { return };
        let link_chars: usize = block.links.iter().map(|l| l.text.chars().filter(|c| !c.is_whitespace()).count()).sum();
        self.page_font.features(&f.text, link_chars, out);
    }

    /// The `image` columns ([`IMAGES`]) of block `b`.
    pub fn image(&self, b: usize, out: &mut [f64]) {
        let (Some(block), Some(f)) = (self.division.blocks.get(b), self.facts.get(b)) else { return };
        image_features(f, block.images.iter().map(|i| i.linked), self.page_area, out);
    }

    /// The page-wide `css` columns ([`CSS`]).
    pub fn css(&self, out: &mut [f64]) {
        out.copy_from_slice(&[self.styled.stats.missing_sheets as f64, (1.0 + self.styled.stats.author_rules as f64).log2()]);
    }
}

fn block_facts<'s>(page: &Page, styled: &'s StyledDom, block: &crate::divide::Block) -> Result<BlockFacts<'s>, StyleError> {
    let foreign = || StyleError::ForeignBlock { page: page.path.clone(), block: block.id };
    let mut text = Vec::new();
    let mut images = Vec::new();
    let mut all_hidden = !block.nodes.is_empty();
    for &leaf in &block.nodes {
        let node = page.html.tree.get(leaf).ok_or_else(foreign)?;
        let Some(element) = dom::leaf_element(page, leaf) else { continue };
        let Some(style) = styled.style(element) else { continue };
        all_hidden &= style.is_hidden();
        match node.value() {
            Node::Text(_) => text.push((dom::text_chars(page, leaf), style)),
            Node::Element(el) => images.push(ImageFact {
                is_img: el.name() == "img" || (el.name() == "input" && el.attr("type").is_some_and(|t| t.eq_ignore_ascii_case("image"))),
                width: style.width.px(),
                height: style.height.px(),
            }),
            _ => {}
        }
    }
    let element = dom::block_element(page, block);
    let depth = element.map_or(0, |e| dom::depth(page, e));
    Ok(BlockFacts { element, text, images, all_hidden, depth })
}

fn area(i: &ImageFact) -> Option<f64> {
    Some(f64::from(i.width?) * f64::from(i.height?))
}

fn image_features(f: &BlockFacts, linked: impl Iterator<Item = bool>, page_area: f64, out: &mut [f64]) {
    let imgs: Vec<&ImageFact> = f.images.iter().filter(|i| i.is_img).collect();
    let max = |get: fn(&ImageFact) -> Option<f32>| imgs.iter().filter_map(|i| get(i)).map(f64::from).fold(f64::NAN, f64::max);
    let block_area: f64 = f.images.iter().filter_map(area).sum();
    let linked: Vec<bool> = linked.collect();
    let linked_share = if linked.is_empty() { f64::NAN } else { linked.iter().filter(|&&l| l).count() as f64 / linked.len() as f64 };
    out.copy_from_slice(&[
        imgs.len() as f64,
        (f.images.len() - imgs.len()) as f64,
        max(|i| i.width),
        max(|i| i.height),
        if page_area > 0.0 { block_area / page_area } else { f64::NAN },
        linked_share,
        if !f.images.is_empty() && f.text.iter().all(|t| t.0 == 0) { 1.0 } else { 0.0 },
    ]);
}

#[cfg(test)]
mod tests;
