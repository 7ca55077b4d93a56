//! The two views of a block (paper sections 3 and 5): the feature tables the stylistic and the
//! lexical learner see.
//!
//! Input: a page and its division. Output: [`PageViews`], one [`FeatureMatrix`] per view with one
//! row per block, built from the feature groups an experiment names in its [`ViewConfig`]. A
//! [`FeatureGroup`] is a named set of columns of one view with their meanings; the [`Registry`]
//! lists the groups to choose from (the built-in ones are in `views/builtin.rs`, reading the
//! stylistic pass of [`crate::stylistic`] and the lexical pass of [`crate::lexical`] through a
//! [`PageContext`] that computes each pass at most once per page). A view's columns are its
//! chosen groups' columns in registry order: dense values (NaN = missing) and sparse token
//! columns — for the lexical `tokens` group TF×IDF stems whose columns are the IDF table's ids,
//! for the stylistic `semantics` group markup tokens of a fixed vocabulary — so every page's
//! matrices have the same columns.
//!
//! Opt-in groups ([`FeatureGroup::opt_in`]: `semantics`, `density`, `repetition`, `metadata`, the
//! features of issue 14 for today's markup, and `headline`, `targets`, `topic` and `wire`, of issue 15 for the
//! fine-grained classes) are only built when a config names them, so configs without
//! them, the models trained from those and their reports are unchanged.
//!
//! # How to add a feature group
//!
//! Write one file, e.g. `src/views/shouting.rs` (or a module of your own crate), with a type
//! implementing [`FeatureGroup`]: its name, its [`ViewKind`], its `(name, meaning)` features and
//! a `compute` that fills one row per block from the [`PageContext`]. Then add one line: in the
//! table of `src/views/builtin.rs` for a built-in group (plus a `mod` line in this file), or
//! `Registry::builtin().with(Box::new(MyGroup))` and [`ViewBuilder::with_groups`] from outside
//! the crate. Configs then name it like any other group. A built-in stylistic group must also get
//! its rows in the feature table of the [`crate::stylistic`] module docs (a unit test checks it).

mod builtin;
mod density;
mod groups;
mod headline;
mod metadata;
mod repetition;
pub use metadata::PageMetadata;
pub(crate) use metadata::{words, MONTH_WORDS, TITLE_SEPARATORS};
mod semantics;
pub(crate) use semantics::class_words;
mod targets;
mod topic;
mod wire;

use serde::{Deserialize, Serialize};

pub use groups::{FeatureGroup, GroupError, GroupOutput, PageContext, Registry, ViewKind};

use crate::css::{CssWarning, StyledDom};
use crate::divide::Division;
use crate::lexical::IdfTable;
use crate::matrix::{FeatureMatrix, MatrixError, SparseRows};
use crate::page::Page;
use crate::stylistic::{StyleError, StyleOptions};

/// Which feature groups make each view (names of [`Registry`] groups; their order does not
/// matter, columns follow the registry's order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewConfig {
    /// Groups of the stylistic view: `placement`, `layout`, `layer`, `table`, `font`, `image`,
    /// `css`; opt-in: `semantics`, `density`, `repetition`, `headline`.
    pub stylistic: Vec<String>,
    /// Groups of the lexical view: `words`, `links`, `pos`, `tokens`; opt-in: `metadata`,
    /// `targets`, `topic`, `wire`.
    pub lexical: Vec<String>,
}

impl Default for ViewConfig {
    /// Every built-in group that is not opt-in.
    fn default() -> Self {
        let registry = Registry::builtin();
        let names = |view| registry.names(view).into_iter().map(str::to_string).collect();
        ViewConfig { stylistic: names(ViewKind::Stylistic), lexical: names(ViewKind::Lexical) }
    }
}

/// Why views could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    #[error("unknown {view} feature group {group:?} (known: {known})")]
    UnknownGroup { view: &'static str, group: String, known: String },
    #[error("the {view} view has no features")]
    Empty { view: &'static str },
    /// Two groups of one view share a name in a registry.
    #[error("the {view} view already has a feature group {group:?}")]
    DuplicateGroup { view: &'static str, group: String },
    #[error(transparent)]
    Style(#[from] StyleError),
    /// A feature group failed on a page.
    #[error("{view} feature group {group:?}: {source}")]
    Group {
        view: &'static str,
        group: String,
        #[source]
        source: GroupError,
    },
    #[error(transparent)]
    Matrix(#[from] MatrixError),
}

/// The features of every block of one page, per view (rows in block order).
#[derive(Debug, Clone)]
pub struct PageViews {
    pub stylistic: FeatureMatrix,
    pub lexical: FeatureMatrix,
    /// What the CSS stage met and left out on the way (a missing or unreadable sheet, a sheet
    /// outside the page's tree, a limit reached): the views describe the page without it.
    pub warnings: Vec<CssWarning>,
}

/// The chosen groups of one view and where their columns go.
#[derive(Debug, Default)]
struct ViewPlan {
    /// `(index among the view's registry groups, first dense column, dense width, first token
    /// column, token columns)`, in registry order.
    groups: Vec<(usize, usize, usize, usize, usize)>,
    /// Shared with every page's matrix (cloning is a reference count, not a copy).
    names: crate::matrix::Names,
    token_names: crate::matrix::Names,
}

/// Builds both views for pages, with the feature groups an experiment chose.
pub struct ViewBuilder {
    idf: IdfTable,
    style: StyleOptions,
    registry: Registry,
    stylistic: ViewPlan,
    lexical: ViewPlan,
}

impl ViewBuilder {
    /// A builder over the built-in feature groups.
    pub fn new(config: &ViewConfig, idf: IdfTable, style: StyleOptions) -> Result<ViewBuilder, ViewError> {
        ViewBuilder::with_groups(config, idf, style, Registry::builtin())
    }

    /// A builder choosing the config's groups from `registry` (e.g. the built-in groups plus a
    /// contributed one). Fails on a group the registry does not have, listing the known ones, and
    /// on a view without any column.
    pub fn with_groups(config: &ViewConfig, idf: IdfTable, style: StyleOptions, registry: Registry) -> Result<ViewBuilder, ViewError> {
        let stylistic = plan(&registry, ViewKind::Stylistic, &config.stylistic, &idf)?;
        let lexical = plan(&registry, ViewKind::Lexical, &config.lexical, &idf)?;
        for (view, plan) in [(ViewKind::Stylistic, &stylistic), (ViewKind::Lexical, &lexical)] {
            if plan.names.is_empty() && plan.token_names.is_empty() {
                return Err(ViewError::Empty { view: view.name() });
            }
        }
        Ok(ViewBuilder { idf, style, registry, stylistic, lexical })
    }

    /// The IDF table the lexical view weights stems with.
    pub fn idf(&self) -> &IdfTable {
        &self.idf
    }

    /// The registry the groups come from.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Names of the stylistic view's dense columns, in column order.
    pub fn stylistic_names(&self) -> &[String] {
        &self.stylistic.names
    }

    /// Names of the stylistic view's token columns (those of the opt-in `semantics` group, if
    /// chosen; none otherwise).
    pub fn stylistic_token_names(&self) -> &[String] {
        &self.stylistic.token_names
    }

    /// Names of the lexical view's dense (numeric) columns, in column order.
    pub fn lexical_names(&self) -> &[String] {
        &self.lexical.names
    }

    /// Names of the lexical view's token columns (`tok:STEM` per IDF table id with the `tokens`
    /// group, else none).
    pub fn token_names(&self) -> &[String] {
        &self.lexical.token_names
    }

    /// Both views of every block of a divided page.
    pub fn build(&self, page: &Page, division: &Division) -> Result<PageViews, ViewError> {
        let styled = StyledDom::compute(page, &self.style.css).map_err(StyleError::from)?;
        let ctx = PageContext::new(page, division, &styled, &self.style, Some(&self.idf));
        let stylistic = self.matrix(ViewKind::Stylistic, &self.stylistic, &ctx)?;
        let lexical = self.matrix(ViewKind::Lexical, &self.lexical, &ctx)?;
        drop(ctx);
        Ok(PageViews { stylistic, lexical, warnings: styled.warnings })
    }

    fn matrix(&self, view: ViewKind, plan: &ViewPlan, ctx: &PageContext<'_>) -> Result<FeatureMatrix, ViewError> {
        let n = ctx.blocks();
        let mut dense = ndarray::Array2::from_elem((n, plan.names.len()), f64::NAN);
        let mut tokens: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        let groups: Vec<&dyn FeatureGroup> = self.registry.groups(view).collect();
        for &(g, offset, width, token_offset, n_tokens) in &plan.groups {
            let group = groups[g];
            let failed = |source: GroupError| match source {
                GroupError::Style(e) => ViewError::Style(e),
                source => ViewError::Group { view: view.name(), group: group.name().to_string(), source },
            };
            let mut out = GroupOutput::new(n, width, n_tokens);
            group.compute(ctx, &mut out).map_err(failed)?;
            for (b, mut row) in dense.rows_mut().into_iter().enumerate() {
                for (target, v) in row.iter_mut().skip(offset).zip(out.row(b)) {
                    *target = *v;
                }
            }
            for (row, group_row) in tokens.iter_mut().zip(out.into_tokens()) {
                row.extend(group_row.into_iter().map(|(c, w)| (token_offset + c, w)));
            }
        }
        if view == ViewKind::Stylistic {
            if let Some(values) = dense.as_slice_mut() {
                groups::finite_or_nan(values);
            }
        }
        let tokens = SparseRows::from_rows(plan.token_names.len(), tokens)?;
        Ok(FeatureMatrix::with_names(dense, plan.names.clone(), tokens, plan.token_names.clone())?)
    }
}

/// Where the chosen groups' columns go; fails on a group the registry does not have.
fn plan(registry: &Registry, view: ViewKind, chosen: &[String], idf: &IdfTable) -> Result<ViewPlan, ViewError> {
    let known = registry.known_names(view);
    if let Some(unknown) = chosen.iter().find(|c| !known.contains(&c.as_str())) {
        return Err(ViewError::UnknownGroup { view: view.name(), group: unknown.clone(), known: known.join(", ") });
    }
    let (mut groups, mut names, mut all_tokens) = (Vec::new(), Vec::new(), Vec::new());
    for (i, group) in registry.groups(view).enumerate().filter(|(_, g)| chosen.iter().any(|c| c == g.name())) {
        let features = group.features();
        let token_names = group.token_names(idf);
        groups.push((i, names.len(), features.len(), all_tokens.len(), token_names.len()));
        names.extend(features.into_iter().map(|(n, _)| n));
        all_tokens.extend(token_names);
    }
    Ok(ViewPlan { groups, names: names.into(), token_names: all_tokens.into() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divide::Divider;
    use crate::lexical;
    use crate::page::LoadOptions;
    use crate::stylistic;

    #[test]
    fn views_have_one_row_per_block_and_the_chosen_groups() {
        let page = Page::from_bytes(
            "v.html",
            b"<table><tr><td><font size=+2><b>Storm closes harbour</b></font></td></tr><tr><td><p>Gale-force winds kept the harbour closed.</p><a href=/x>World</a></td></tr></table>",
            &LoadOptions::default(),
        )
        .unwrap();
        let division = Divider::default().divide(&page);
        let config = ViewConfig { stylistic: vec!["font".into(), "table".into()], lexical: vec!["links".into(), "tokens".into()] };
        let builder = ViewBuilder::new(&config, IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
        let v = builder.build(&page, &division).unwrap();
        assert_eq!(v.stylistic.n_rows(), division.blocks.len());
        assert_eq!(v.lexical.n_rows(), division.blocks.len());
        assert!(v.stylistic.numeric_names().iter().all(|n| n.starts_with("font.") || n.starts_with("table.")));
        assert_eq!(v.lexical.numeric_names(), ["images", "mailto-links", "image-links", "text-links", "total-links"]);
        assert!(v.lexical.n_tokens() > 20_000, "token columns are the IDF table's stems");
        let harbour = v.lexical.tokens().row(1).0.len();
        assert!(harbour >= 3, "the paragraph's stems are present");
        let err = ViewBuilder::new(&ViewConfig { stylistic: vec!["colour".into()], lexical: vec![] }, IdfTable::dragnet().unwrap(), StyleOptions::default());
        assert!(matches!(err, Err(ViewError::UnknownGroup { .. })));
    }

    fn pages() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages");
        let mut out: Vec<std::path::PathBuf> =
            ["layers.html", "table.html", "linear.html", "css/table.html", "css/cascade.html", "css/layers.html", "css/linked.html"]
                .iter()
                .map(|p| root.join(p))
                .filter(|p| p.is_file())
                .collect();
        out.sort();
        out
    }

    /// Bit-identical to the passes: every column of the builder's matrices is the pass's column
    /// of the same name (compared by bits, NaN included).
    fn assert_same_as_passes(config: &ViewConfig) {
        let builder = ViewBuilder::new(config, IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
        let paths = pages();
        assert_eq!(paths.len(), 7, "test pages found: {paths:?}");
        for path in paths {
            let page = Page::load(&path, &LoadOptions::default()).unwrap();
            let division = Divider::default().divide(&page);
            let v = builder.build(&page, &division).unwrap();
            let s = stylistic::extract(&page, &division, &StyleOptions::default()).unwrap();
            let l = lexical::extract(&division, builder.idf());
            assert_eq!(v.stylistic.numeric_names(), builder.stylistic_names());
            assert_eq!(v.lexical.numeric_names(), builder.lexical_names());
            assert_eq!(v.lexical.token_names(), builder.token_names());
            for (c, name) in v.stylistic.numeric_names().iter().enumerate() {
                let col = s.names.iter().position(|n| n == name).unwrap();
                for b in 0..division.blocks.len() {
                    assert_eq!(v.stylistic.numeric()[[b, c]].to_bits(), s.rows[b][col].to_bits(), "{}: {name} of block {b}", path.display());
                }
            }
            for (c, name) in v.lexical.numeric_names().iter().enumerate() {
                let col = lexical::numeric_feature_names().iter().position(|n| n == name).unwrap();
                for b in 0..division.blocks.len() {
                    assert_eq!(v.lexical.numeric()[[b, c]].to_bits(), l.numeric[b][col].to_bits(), "{}: {name} of block {b}", path.display());
                }
            }
            for b in 0..division.blocks.len() {
                let (cols, weights) = v.lexical.tokens().row(b);
                let expected: Vec<(usize, u64)> =
                    if builder.token_names().is_empty() { Vec::new() } else { l.tokens[b].iter().map(|&(id, w)| (id as usize, w.to_bits())).collect() };
                let got: Vec<(usize, u64)> = cols.iter().zip(weights).map(|(&c, w)| (c, w.to_bits())).collect();
                assert_eq!(got, expected, "{}: tokens of block {b}", path.display());
            }
        }
    }

    #[test]
    fn default_views_are_the_passes_columns() {
        let config = ViewConfig::default();
        assert_eq!(config.stylistic, ["placement", "layout", "layer", "table", "font", "image", "css"]);
        assert_eq!(config.lexical, ["words", "links", "pos", "tokens"]);
        let builder = ViewBuilder::new(&config, IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
        assert_eq!(builder.stylistic_names(), stylistic::feature_names().as_slice());
        assert_eq!(builder.lexical_names(), lexical::numeric_feature_names());
        assert_same_as_passes(&config);
    }

    #[test]
    fn opt_in_groups_are_chosen_by_name_only_and_come_after_the_others() {
        let registry = Registry::builtin();
        assert_eq!(registry.known_names(ViewKind::Stylistic)[7..], ["semantics", "density", "repetition", "headline"]);
        assert_eq!(registry.known_names(ViewKind::Lexical)[4..], ["metadata", "targets", "topic", "wire"]);
        assert!(!ViewConfig::default().stylistic.iter().chain(&ViewConfig::default().lexical).any(|g| [
            "semantics",
            "density",
            "repetition",
            "headline",
            "metadata",
            "targets",
            "topic",
            "wire"
        ]
        .contains(&g.as_str())));
        let config = ViewConfig { stylistic: vec!["density".into(), "font".into(), "semantics".into()], lexical: vec!["metadata".into(), "words".into()] };
        let builder = ViewBuilder::new(&config, IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
        let names = builder.stylistic_names();
        assert!(names[0].starts_with("font.") && names.last().is_some_and(|n| n == "dens.run_words"), "{names:?}");
        assert_eq!(builder.stylistic_token_names().first().map(String::as_str), Some("tag:article"));
        assert_eq!((builder.lexical_names()[0].as_str(), builder.lexical_names()[4].as_str()), ("words", "meta.title_recall"));
        let page = Page::from_bytes(
            "o.html",
            b"<nav><a href=/>Home</a></nav><article><h1>Storm</h1><p>Winds kept the harbour shut.</p></article>",
            &LoadOptions::default(),
        )
        .unwrap();
        let division = Divider::default().divide(&page);
        let v = builder.build(&page, &division).unwrap();
        assert_eq!(v.stylistic.n_tokens(), builder.stylistic_token_names().len());
        let (cols, _) = v.stylistic.tokens().row(0);
        assert!(cols.iter().any(|&c| builder.stylistic_token_names()[c] == "tag:nav"), "the link sits in a nav");
    }

    #[test]
    fn partial_views_are_the_passes_columns_in_registry_order() {
        let config = ViewConfig { stylistic: vec!["css".into(), "layer".into(), "placement".into()], lexical: vec!["pos".into(), "words".into()] };
        assert_same_as_passes(&config);
        let builder = ViewBuilder::new(&config, IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
        let names = builder.stylistic_names();
        assert_eq!(names.len(), 5 + 13 + 2);
        assert_eq!((names[0].as_str(), names[5].as_str(), names[18].as_str()), ("pos.start", "layer.relative", "css.missing_sheets"));
        assert_eq!(&builder.lexical_names()[..4], ["words", "vocabulary", "vocabulary-ratio", "unknown-stem-ratio"]);
        assert_eq!(builder.lexical_names()[4], "pos:CC");
        assert!(builder.token_names().is_empty());
    }

    #[test]
    fn unknown_duplicate_and_empty_groups_are_errors() {
        let idf = || IdfTable::dragnet().unwrap();
        let err =
            ViewBuilder::new(&ViewConfig { stylistic: vec!["font".into()], lexical: vec!["colour".into()] }, idf(), StyleOptions::default()).err().unwrap();
        assert_eq!(err.to_string(), "unknown lexical feature group \"colour\" (known: words, links, pos, tokens, metadata, targets, topic, wire)");
        let err = ViewBuilder::new(&ViewConfig { stylistic: vec![], lexical: vec!["words".into()] }, idf(), StyleOptions::default()).err().unwrap();
        assert!(matches!(err, ViewError::Empty { view: "stylistic" }), "{err}");
        let err = Registry::builtin().with(Box::new(builtin_font())).err().unwrap();
        assert!(matches!(&err, ViewError::DuplicateGroup { view: "stylistic", group } if group == "font"), "{err}");
    }

    /// A second group named `font`.
    fn builtin_font() -> impl FeatureGroup {
        struct Font;
        impl FeatureGroup for Font {
            fn name(&self) -> &str {
                "font"
            }
            fn view(&self) -> ViewKind {
                ViewKind::Stylistic
            }
            fn features(&self) -> Vec<(String, String)> {
                vec![("font.other".into(), "another font group".into())]
            }
            fn compute(&self, _: &PageContext<'_>, _: &mut GroupOutput) -> Result<(), GroupError> {
                Ok(())
            }
        }
        Font
    }

    /// A contributed lexical group with two sparse columns of its own, after `tokens`.
    struct Marks;

    impl FeatureGroup for Marks {
        fn name(&self) -> &str {
            "marks"
        }
        fn view(&self) -> ViewKind {
            ViewKind::Lexical
        }
        fn features(&self) -> Vec<(String, String)> {
            vec![("marks.exclamations".into(), "`!` in the block".into())]
        }
        fn token_names(&self, _: &IdfTable) -> Vec<String> {
            vec!["mark:!".into(), "mark:?".into()]
        }
        fn compute(&self, ctx: &PageContext<'_>, out: &mut GroupOutput) -> Result<(), GroupError> {
            for (b, block) in ctx.division().blocks.iter().enumerate() {
                let count = |c: char| block.text.matches(c).count() as f64;
                out.row_mut(b)[0] = count('!');
                let tokens = [(0, count('!')), (1, count('?'))].into_iter().filter(|(_, n)| *n > 0.0).collect();
                out.set_tokens(b, tokens)?;
            }
            Ok(())
        }
    }

    #[test]
    fn a_contributed_groups_token_columns_follow_the_earlier_ones() {
        let page = Page::from_bytes("m.html", b"<p>Stop! Now!</p><p>Why?</p>", &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let registry = Registry::builtin().with(Box::new(Marks)).unwrap();
        let config = ViewConfig { stylistic: vec!["css".into()], lexical: vec!["marks".into(), "links".into(), "tokens".into()] };
        let builder = ViewBuilder::with_groups(&config, IdfTable::dragnet().unwrap(), StyleOptions::default(), registry).unwrap();
        let idf_columns = builder.idf().len() + 1;
        assert_eq!(builder.token_names().len(), idf_columns + 2);
        assert_eq!(&builder.token_names()[idf_columns..], ["mark:!", "mark:?"]);
        assert_eq!(builder.lexical_names().last().map(String::as_str), Some("marks.exclamations"));
        let v = builder.build(&page, &division).unwrap();
        let (stop, why) =
            (division.blocks.iter().position(|b| b.text == "Stop! Now!").unwrap(), division.blocks.iter().position(|b| b.text == "Why?").unwrap());
        assert_eq!(v.lexical.numeric()[[stop, 5]], 2.0);
        assert_eq!(v.lexical.numeric()[[why, 5]], 0.0);
        let (cols, weights) = v.lexical.tokens().row(stop);
        assert_eq!((cols.last().copied(), weights.last().copied()), (Some(idf_columns), Some(2.0)), "`!` twice, after the stems");
        let (cols, _) = v.lexical.tokens().row(why);
        assert_eq!(cols.last().copied(), Some(idf_columns + 1));
        assert!(cols[..cols.len() - 1].iter().all(|&c| c < idf_columns), "the stems keep the IDF ids");
    }
}
