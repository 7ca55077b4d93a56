//! Feature groups: the named sets of columns a view is made of, the per-page context they read,
//! and the registry that names them.
//!
//! A [`FeatureGroup`] declares its view, its dense features as `(name, meaning)` pairs in column
//! order and optionally sparse token columns; [`FeatureGroup::compute`] fills those columns for
//! every block of a page from a [`PageContext`]. The [`Registry`] lists the groups a
//! [`crate::views::ViewBuilder`] may choose from; a view's columns are its chosen groups'
//! columns, concatenated in registry order.

use std::cell::OnceCell;

use crate::css::StyledDom;
use crate::divide::Division;
use crate::lexical::{self, IdfTable, LexicalFeatures};
use crate::page::Page;
use crate::stylistic::{StyleError, StyleOptions, StylePass};

use super::{PageMetadata, ViewError};

/// The view a feature group belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewKind {
    /// How a block looks and where it sits.
    Stylistic,
    /// What a block's words say.
    Lexical,
}

impl ViewKind {
    /// `stylistic` or `lexical`, as configs and errors write it.
    pub fn name(self) -> &'static str {
        match self {
            ViewKind::Stylistic => "stylistic",
            ViewKind::Lexical => "lexical",
        }
    }
}

/// Why a feature group could not compute a page's columns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// The stylistic pass failed (e.g. the division belongs to another page).
    #[error(transparent)]
    Style(#[from] StyleError),
    /// The group reads the lexical pass but the context was made without an IDF table.
    #[error("the lexical pass needs an IDF table and this page context has none")]
    NoIdf,
    /// A group wrote a token column outside its declared token columns.
    #[error("block {block}: token column {column} is out of range ({n_columns} token columns)")]
    TokenColumn { block: usize, column: usize, n_columns: usize },
    /// Any other failure of a contributed group.
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}

/// A named set of feature columns of one view, computed for every block of a page.
///
/// Implementations must be deterministic: the same page and division give the same values.
/// Missing values are `NaN` (in the stylistic view infinities are turned into `NaN` too).
pub trait FeatureGroup: Send + Sync {
    /// The group's name, as a [`crate::views::ViewConfig`] lists it (unique within its view).
    fn name(&self) -> &str;
    /// The view whose matrix holds the group's columns.
    fn view(&self) -> ViewKind;
    /// The dense features, `(name, meaning)`, in column order.
    fn features(&self) -> Vec<(String, String)>;
    /// Names of the group's sparse token columns, if it has any (the lexical `tokens` group: one
    /// per stem of the IDF table). The same for every page.
    fn token_names(&self, _idf: &IdfTable) -> Vec<String> {
        Vec::new()
    }
    /// Fills `out`: one row of [`FeatureGroup::features`] per block of `ctx` (pre-filled with
    /// `NaN`), and the block's token columns if the group has any.
    fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError>;
    /// Whether a config must name the group to get it. Opt-in groups are left out of the default
    /// views ([`crate::views::ViewConfig::default`]) and of the paper's stylistic pass
    /// ([`crate::stylistic::extract`]), so adding one changes no existing config, model or
    /// report; any config may still name it.
    fn opt_in(&self) -> bool {
        false
    }
}

/// One page's input to the feature groups, with the per-page work several groups share (the
/// stylistic pass, the lexical pass), each computed at most once per page, when first asked for.
///
/// The CSS cascade is given already computed: every view configuration has a stylistic view, so
/// it is always needed.
pub struct PageContext<'a> {
    page: &'a Page,
    division: &'a Division,
    styled: &'a StyledDom,
    style: &'a StyleOptions,
    idf: Option<&'a IdfTable>,
    style_pass: OnceCell<StylePass<'a>>,
    lexical: OnceCell<LexicalFeatures>,
    metadata: OnceCell<PageMetadata>,
}

impl<'a> PageContext<'a> {
    /// A context for one divided page and its cascade; `idf` is needed by the lexical pass only.
    pub fn new(page: &'a Page, division: &'a Division, styled: &'a StyledDom, style: &'a StyleOptions, idf: Option<&'a IdfTable>) -> PageContext<'a> {
        PageContext { page, division, styled, style, idf, style_pass: OnceCell::new(), lexical: OnceCell::new(), metadata: OnceCell::new() }
    }

    /// The page.
    pub fn page(&self) -> &'a Page {
        self.page
    }

    /// The page's division: its blocks, in row order, and its text.
    pub fn division(&self) -> &'a Division {
        self.division
    }

    /// Number of blocks, the rows of every group's output.
    pub fn blocks(&self) -> usize {
        self.division.blocks.len()
    }

    /// The computed style of every element.
    pub fn styled(&self) -> &'a StyledDom {
        self.styled
    }

    /// The options of the stylistic view.
    pub fn style_options(&self) -> &'a StyleOptions {
        self.style
    }

    /// The IDF table of the lexical view, if the context has one.
    pub fn idf(&self) -> Option<&'a IdfTable> {
        self.idf
    }

    /// The stylistic pass: page-level facts the built-in stylistic groups share.
    pub fn style_pass(&self) -> Result<&StylePass<'a>, GroupError> {
        if let Some(pass) = self.style_pass.get() {
            return Ok(pass);
        }
        let pass = StylePass::new(self.page, self.division, self.styled, self.style)?;
        Ok(self.style_pass.get_or_init(|| pass))
    }

    /// The lexical pass: numeric features ([`lexical::numeric_feature_names`]) and token weights
    /// of every block.
    pub fn lexical(&self) -> Result<&LexicalFeatures, GroupError> {
        if let Some(l) = self.lexical.get() {
            return Ok(l);
        }
        let idf = self.idf.ok_or(GroupError::NoIdf)?;
        Ok(self.lexical.get_or_init(|| lexical::extract(self.division, idf)))
    }

    /// What the page declares about itself (JSON-LD, OpenGraph, `<meta>`, `<title>`), read once
    /// for the `metadata` and `headline` groups.
    pub fn metadata(&self) -> &PageMetadata {
        self.metadata.get_or_init(|| PageMetadata::read(&self.page.html))
    }
}

/// The columns one feature group computes for one page: a dense `blocks × features` table
/// (pre-filled with `NaN`) and per-block sparse token columns (numbered from 0 within the group).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupOutput {
    width: usize,
    values: Vec<f64>,
    n_tokens: usize,
    tokens: Vec<Vec<(usize, f64)>>,
}

impl GroupOutput {
    /// An output for `blocks` blocks, `width` dense features and `n_tokens` token columns.
    pub fn new(blocks: usize, width: usize, n_tokens: usize) -> GroupOutput {
        GroupOutput { width, values: vec![f64::NAN; blocks * width], n_tokens, tokens: vec![Vec::new(); blocks] }
    }

    /// Number of blocks (rows).
    pub fn blocks(&self) -> usize {
        self.tokens.len()
    }

    /// Number of dense features (columns).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The dense row of a block (empty past the last block).
    pub fn row(&self, block: usize) -> &[f64] {
        self.values.get(block * self.width..(block + 1) * self.width).unwrap_or_default()
    }

    /// The dense row of a block, to fill (empty past the last block).
    pub fn row_mut(&mut self, block: usize) -> &mut [f64] {
        self.values.get_mut(block * self.width..(block + 1) * self.width).unwrap_or_default()
    }

    /// Sets a block's token columns: `(column, weight)` with column below the group's number of
    /// token names, weights finite and > 0, any order. Fails on a column out of range.
    pub fn set_tokens(&mut self, block: usize, tokens: Vec<(usize, f64)>) -> Result<(), GroupError> {
        if let Some(&(column, _)) = tokens.iter().find(|(c, _)| *c >= self.n_tokens) {
            return Err(GroupError::TokenColumn { block, column, n_columns: self.n_tokens });
        }
        if let Some(row) = self.tokens.get_mut(block) {
            *row = tokens;
        }
        Ok(())
    }

    /// A block's token columns.
    pub fn tokens(&self, block: usize) -> &[(usize, f64)] {
        self.tokens.get(block).map_or(&[], Vec::as_slice)
    }

    pub(super) fn into_tokens(self) -> Vec<Vec<(usize, f64)>> {
        self.tokens
    }
}

/// The feature groups a view builder may choose from, in column order.
pub struct Registry {
    groups: Vec<Box<dyn FeatureGroup>>,
}

impl Registry {
    /// The built-in groups (the table in `src/views/builtin.rs`): stylistic `placement`, `layout`,
    /// `layer`, `table`, `font`, `image`, `css`; lexical `words`, `links`, `pos`, `tokens`; and
    /// the opt-in groups for today's markup: stylistic `semantics` and `density`, lexical
    /// `metadata`.
    pub fn builtin() -> Registry {
        Registry { groups: super::builtin::groups() }
    }

    /// A registry without groups.
    pub fn empty() -> Registry {
        Registry { groups: Vec::new() }
    }

    /// Adds a group after the others of its view; fails if its view already has a group of that
    /// name.
    pub fn with(mut self, group: Box<dyn FeatureGroup>) -> Result<Registry, ViewError> {
        if self.get(group.view(), group.name()).is_some() {
            return Err(ViewError::DuplicateGroup { view: group.view().name(), group: group.name().to_string() });
        }
        self.groups.push(group);
        Ok(self)
    }

    /// The groups of a view, in column order.
    pub fn groups(&self, view: ViewKind) -> impl Iterator<Item = &dyn FeatureGroup> {
        self.groups.iter().map(|g| g.as_ref()).filter(move |g| g.view() == view)
    }

    /// The group of a view with that name.
    pub fn get(&self, view: ViewKind, name: &str) -> Option<&dyn FeatureGroup> {
        self.groups(view).find(|g| g.name() == name)
    }

    /// The names of a view's default groups (all but the opt-in ones: what a config without
    /// `[views]` gets), in column order.
    pub fn names(&self, view: ViewKind) -> Vec<&str> {
        self.default_groups(view).map(|g| g.name()).collect()
    }

    /// The names of every group of a view, opt-in ones included, in column order: the names a
    /// config may choose from.
    pub fn known_names(&self, view: ViewKind) -> Vec<&str> {
        self.groups(view).map(|g| g.name()).collect()
    }

    /// Every dense feature `(name, meaning)` of a view's default groups, in column order.
    pub fn features(&self, view: ViewKind) -> Vec<(String, String)> {
        self.default_groups(view).flat_map(|g| g.features()).collect()
    }

    fn default_groups(&self, view: ViewKind) -> impl Iterator<Item = &dyn FeatureGroup> {
        self.groups(view).filter(|g| !g.opt_in())
    }

    /// The dense columns of every default group of a view for one page: names and one row per
    /// block.
    pub(crate) fn compute_dense(&self, view: ViewKind, ctx: &PageContext<'_>) -> Result<(Vec<String>, Vec<Vec<f64>>), GroupError> {
        let groups: Vec<&dyn FeatureGroup> = self.default_groups(view).collect();
        let names: Vec<String> = groups.iter().flat_map(|g| g.features()).map(|(n, _)| n).collect();
        let mut rows = vec![Vec::with_capacity(names.len()); ctx.blocks()];
        for g in groups {
            let mut out = GroupOutput::new(ctx.blocks(), g.features().len(), 0);
            g.compute(ctx, &mut out)?;
            for (b, row) in rows.iter_mut().enumerate() {
                row.extend_from_slice(out.row(b));
            }
        }
        if view == ViewKind::Stylistic {
            rows.iter_mut().for_each(|r| finite_or_nan(r));
        }
        Ok((names, rows))
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.groups.iter().map(|g| (g.view().name(), g.name()))).finish()
    }
}

/// Ratios of degenerate quantities must not leak infinities into the stylistic learner.
pub(super) fn finite_or_nan(values: &mut [f64]) {
    for v in values.iter_mut() {
        if v.is_infinite() {
            *v = f64::NAN;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divide::Divider;
    use crate::page::LoadOptions;

    #[test]
    fn group_output_rows_and_tokens_stay_in_their_bounds() {
        let mut out = GroupOutput::new(2, 3, 4);
        assert_eq!((out.blocks(), out.width()), (2, 3));
        assert!(out.row(1).iter().all(|v| v.is_nan()), "pre-filled with NaN");
        out.row_mut(1).copy_from_slice(&[1.0, 2.0, 3.0]);
        assert_eq!(out.row(1), [1.0, 2.0, 3.0]);
        assert!(out.row(0)[0].is_nan());
        assert!(out.row_mut(2).is_empty(), "past the last block");
        out.set_tokens(0, vec![(3, 0.5), (0, 1.5)]).unwrap();
        assert_eq!(out.tokens(0), [(3, 0.5), (0, 1.5)]);
        let err = out.set_tokens(1, vec![(4, 1.0)]).unwrap_err();
        assert!(matches!(err, GroupError::TokenColumn { block: 1, column: 4, n_columns: 4 }), "{err}");
        assert!(out.tokens(1).is_empty());
    }

    #[test]
    fn the_context_computes_each_pass_once_and_needs_an_idf_for_the_lexical_one() {
        let page = Page::from_bytes("c.html", b"<p>One block of words.</p><p>Another.</p>", &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let style = StyleOptions::default();
        let styled = StyledDom::compute(&page, &style.css).unwrap();
        let idf = IdfTable::dragnet().unwrap();
        let ctx = PageContext::new(&page, &division, &styled, &style, Some(&idf));
        assert_eq!(ctx.blocks(), 2);
        assert!(std::ptr::eq(ctx.lexical().unwrap(), ctx.lexical().unwrap()), "one lexical pass per page");
        assert!(std::ptr::eq(ctx.style_pass().unwrap(), ctx.style_pass().unwrap()), "one stylistic pass per page");
        assert_eq!(ctx.lexical().unwrap().numeric[0][0], 4.0, "words of the first block");
        let without = PageContext::new(&page, &division, &styled, &style, None);
        assert!(matches!(without.lexical(), Err(GroupError::NoIdf)));
        assert_eq!(without.style_pass().unwrap().blocks(), 2);
    }
}
