//! The context stage: a third boosted learner that relabels each block from the two views' class
//! probabilities for the block and for its neighbours in document order.
//!
//! The paper's learners see one block at a time, so a comment that reads like article prose, or
//! a paragraph of the article set like a teaser, is labelled on its own looks. Where a block sits
//! among its neighbours says much more: article paragraphs come in runs, comments after them.
//! This stage (stacking, in the sense of Wolpert 1992) learns that from the labelled pages: its
//! features are the stylistic and lexical learners' probabilities for the block, the mean of
//! both views' probabilities for the blocks one and two places before and after it, their means
//! over windows of 5 and 20 blocks on each side, and the block's relative position in the page.
//!
//! With `structure = true` it also looks at the element tree: the mean of both views'
//! probabilities over the *other* blocks under the same container, under the container's parent
//! and under its grandparent, and how many blocks that is. Document order cuts a list of links
//! into windows that also hold what stands before and after it; the tree keeps the list's items
//! together, whatever their length, so the items of one menu, one "most read" box or one
//! listing can be told alike.
//!
//! With `page = true` it also sees the whole page: the mean of both views' probabilities over
//! all the page's blocks, and how many blocks the page has. Stumps add their votes, so a
//! page-wide column shifts every block of a page alike: it lets the stage set a threshold per
//! page, lower where the views find little main text on the page (a listing whose items the
//! views half call navigation) and higher where they find much (a product page with its reviews).
//!
//! With `block_columns` it also sees the block's own view columns (the stylistic ones, the
//! lexical ones or both), besides what the views' learners made of them. The views' learners
//! are additive: each stump adds one column's vote, so neither can say "a short link *inside* a
//! list the lexical view calls a menu". The stage can, when it sees a block's columns next to
//! the views' probabilities for it and its neighbours; with both views' columns it is a joint
//! learner that also knows the block's context.
//!
//! Its training features must be what the view learners say of pages they were not trained on,
//! or it would learn to trust them blindly: [`cross_fitted_probabilities`] gets them by training
//! the view learners on the other folds of the training pages (by page). An experiment without
//! a `[context]` section has no context stage, as in the paper.

use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};

use crate::boost::{self, AdaBoostMhValidParams, BoostError};
use crate::cotrain::TwoViews;
use crate::matrix::FeatureMatrix;

/// Why the context stage could not be trained.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    #[error(transparent)]
    Boost(#[from] BoostError),
    #[error(transparent)]
    Matrix(#[from] crate::matrix::MatrixError),
}

/// Settings of the context stage (`[context]` in an experiment config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextConfig {
    /// Boosting rounds of the context learner.
    pub rounds: usize,
    /// Folds (by page) for the cross-fitted view probabilities it is trained on.
    #[serde(default = "default_folds")]
    pub folds: usize,
    /// Levels of the context learner's weak hypotheses (1 stumps, 2 two-level trees, which can
    /// say "this block looks like a date *and* the one before it like a title"); default: the
    /// `[boosting]` depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// Whether the learner also sees the blocks that share the block's container and its two
    /// nearest ancestors ([`TREE_LEVELS`]); default false, as models trained before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub structure: bool,
    /// Whether the learner also sees the whole page: the mean of both views' probabilities
    /// over the page's blocks and the page's number of blocks ([`PAGE_FEATURES`]); default
    /// false, as models trained before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub page: bool,
    /// How the folds of the cross-fitted view probabilities split the training pages: by page
    /// (the default, as models trained before it) or by site. By site, the probabilities the
    /// stage learns from are what the views say of a site they never saw, which is what they
    /// face on a new site; by page, the other pages of the block's site were in the views'
    /// training, and the stage learns to trust them more than a new site warrants. When the
    /// training pages have fewer sites than `folds`, the folds split by page.
    #[serde(default = "default_split", skip_serializing_if = "is_page")]
    pub split: crate::config::Split,
    /// Whether a block both views give the same class keeps it, the stage deciding only where
    /// the views disagree; default false (the stage decides every block, as models trained
    /// before it). The stage sees the views' probabilities and can learn when to overrule an
    /// agreement, but it learns that on the training pages' sites, and on sites it never saw
    /// an agreement of two different ways of seeing a block may be worth more than what the
    /// neighbours suggest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_agreement: bool,
    /// Whether, where the views disagree, the stage only chooses between their two classes (the
    /// one of the two it gives the higher probability) instead of naming any class; default false.
    /// With `keep_agreement` the stage becomes an arbiter between the views: every block gets one
    /// of the views' classes, with that view's confidence and probabilities.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub choose_from_views: bool,
    /// Which of the block's own view columns the stage also sees, after its own (see the module
    /// docs); default none, as models trained before it.
    #[serde(default, skip_serializing_if = "BlockColumns::is_none")]
    pub block_columns: BlockColumns,
    /// Whether the stage also sees the numeric view columns of the block before and the block
    /// after it on the page (see the module docs); default false, as models trained before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub neighbour_columns: bool,
    /// Tests per round of the context learner: 1 (default) adds stumps or the `depth` trees;
    /// more grows a multi-class Hamming tree each round
    /// ([`AdaBoostMhParams::splits`](crate::boost::AdaBoostMhParams::splits)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub splits: Option<usize>,
}

/// Which of a block's own view columns the context stage sees besides the views' probabilities
/// (`[context] block_columns`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlockColumns {
    /// None: the stage sees only the views' probabilities (and the optional groups).
    #[default]
    None,
    /// The stylistic view's columns.
    Stylistic,
    /// The lexical view's columns.
    Lexical,
    /// The stylistic then the lexical view's columns.
    Both,
}

impl BlockColumns {
    fn is_none(&self) -> bool {
        *self == BlockColumns::None
    }

    /// Whether the stylistic view's columns are among them.
    pub fn stylistic(self) -> bool {
        matches!(self, BlockColumns::Stylistic | BlockColumns::Both)
    }

    /// Whether the lexical view's columns are among them.
    pub fn lexical(self) -> bool {
        matches!(self, BlockColumns::Lexical | BlockColumns::Both)
    }
}

/// How the context stage's answer is combined with the views' (`[context] keep_agreement` and
/// `choose_from_views`): decision settings, which change nothing the learners learn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Arbitration {
    /// Blocks both views give the same class keep it.
    pub keep_agreement: bool,
    /// Where the views disagree, the stage picks one of their two classes.
    pub choose_from_views: bool,
}

/// What the context features are built from besides the views' probabilities: the optional
/// groups of columns a stage was trained with (`[context] structure` and `page`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ContextInputs<'a> {
    /// Each block's container path, for the element-tree columns (`structure`); `None` without
    /// them.
    pub containers: Option<&'a [&'a str]>,
    /// Whether the page-wide columns are built (`page`).
    pub page: bool,
    /// Which of the block's own view columns follow them ([`with_view_columns`]).
    pub block_columns: BlockColumns,
    /// Whether the numeric view columns of the blocks before and after follow those
    /// ([`with_view_columns`]).
    pub neighbour_columns: bool,
}

impl ContextConfig {
    /// The decision settings of this stage.
    pub fn arbitration(&self) -> Arbitration {
        Arbitration { keep_agreement: self.keep_agreement, choose_from_views: self.choose_from_views }
    }
}

fn default_split() -> crate::config::Split {
    crate::config::Split::Page
}

fn is_page(split: &crate::config::Split) -> bool {
    *split == crate::config::Split::Page
}

fn default_folds() -> usize {
    3
}

/// Offsets of the single neighbours whose probabilities are features.
const NEIGHBOURS: [isize; 4] = [-2, -1, 1, 2];
/// Half-widths of the windows whose mean probabilities are features.
const WINDOWS: [usize; 2] = [5, 20];

/// How many steps up from a block's container the structural groups reach: 0 is the container
/// itself, 1 its parent, 2 its grandparent.
pub const TREE_LEVELS: usize = 3;

/// The page-wide columns besides one mean per class: the page's number of blocks, as ln(1 + n).
pub const PAGE_FEATURES: &[&str] = &["ctx.page.blocks"];

/// Names of the context features for `k` classes, in column order; `structure`: with the
/// element-tree features; `page`: with the page-wide ones (after them).
pub fn feature_names(classes: &[String], structure: bool, page: bool) -> Vec<String> {
    let mut names = Vec::new();
    for view in ["stylistic", "lexical"] {
        names.extend(classes.iter().map(|c| format!("ctx.{view}.{c}")));
    }
    for d in NEIGHBOURS {
        names.extend(classes.iter().map(|c| format!("ctx.at{d:+}.{c}")));
    }
    for w in WINDOWS {
        names.extend(classes.iter().map(|c| format!("ctx.before{w}.{c}")));
        names.extend(classes.iter().map(|c| format!("ctx.after{w}.{c}")));
    }
    names.push("ctx.position".into());
    if structure {
        for level in 0..TREE_LEVELS {
            names.extend(classes.iter().map(|c| format!("ctx.up{level}.{c}")));
            names.push(format!("ctx.up{level}.others"));
        }
    }
    if page {
        names.extend(classes.iter().map(|c| format!("ctx.page.{c}")));
        names.extend(PAGE_FEATURES.iter().map(|n| n.to_string()));
    }
    names
}

/// The element path `levels` steps above `path` (`/html[1]/body[1]/div[2]` one up is
/// `/html[1]/body[1]`); the root's ancestors are the empty path.
fn ancestor(path: &str, levels: usize) -> &str {
    let mut end = path.len();
    for _ in 0..levels {
        end = path[..end].rfind('/').unwrap_or(0);
    }
    &path[..end]
}

/// The context features of blocks given the views' probabilities (rows: blocks; columns:
/// classes) and the page of each block. A page's blocks must be consecutive rows in document
/// order. Neighbours beyond the page's ends are missing (NaN); a window mean covers the blocks
/// that exist. `inputs.containers`, the element path of each block's container, adds the
/// element-tree features (see the module docs); a group without other blocks has missing means.
/// `inputs.page` adds the page-wide ones.
pub fn features(stylistic: ArrayView2<f64>, lexical: ArrayView2<f64>, page_of: &[usize], inputs: ContextInputs<'_>, classes: &[String]) -> FeatureMatrix {
    let (n, k) = stylistic.dim();
    let both = (&stylistic + &lexical) / 2.0;
    let containers = inputs.containers;
    let base = 2 * k + NEIGHBOURS.len() * k + 2 * WINDOWS.len() * k + 1;
    let tree_end = base + containers.map_or(0, |_| TREE_LEVELS * (k + 1));
    let width = tree_end + if inputs.page { k + PAGE_FEATURES.len() } else { 0 };
    let mut x = Array2::from_elem((n, width), f64::NAN);
    // Prefix sums of `both` per class, to take window means in O(1).
    let mut prefix = Array2::<f64>::zeros((n + 1, k));
    for i in 0..n {
        for c in 0..k {
            prefix[[i + 1, c]] = prefix[[i, c]] + both[[i, c]];
        }
    }
    let mut start = 0;
    while start < n {
        let mut end = start;
        while end < n && page_of[end] == page_of[start] {
            end += 1;
        }
        let len = end - start;
        for i in start..end {
            let mut col = 0;
            for c in 0..k {
                x[[i, col + c]] = stylistic[[i, c]];
                x[[i, col + k + c]] = lexical[[i, c]];
            }
            col += 2 * k;
            for d in NEIGHBOURS {
                let j = i as isize + d;
                if j >= start as isize && j < end as isize {
                    for c in 0..k {
                        x[[i, col + c]] = both[[j as usize, c]];
                    }
                }
                col += k;
            }
            for w in WINDOWS {
                let (lo, hi) = (i.saturating_sub(w).max(start), (i + 1 + w).min(end));
                for (a, b) in [(lo, i), (i + 1, hi)] {
                    if b > a {
                        for c in 0..k {
                            x[[i, col + c]] = (prefix[[b, c]] - prefix[[a, c]]) / (b - a) as f64;
                        }
                    }
                    col += k;
                }
            }
            x[[i, col]] = if len > 1 { (i - start) as f64 / (len - 1) as f64 } else { 0.0 };
        }
        if let Some(containers) = containers {
            tree_features(&mut x, both.view(), start..end, &containers[start..end], base);
        }
        if inputs.page {
            for c in 0..k {
                let mean = (prefix[[end, c]] - prefix[[start, c]]) / len as f64;
                x.slice_mut(ndarray::s![start..end, tree_end + c]).fill(mean);
            }
            x.slice_mut(ndarray::s![start..end, tree_end + k]).fill((len as f64).ln_1p());
        }
        start = end;
    }
    let rows = x.nrows();
    FeatureMatrix::new(x, feature_names(classes, containers.is_some(), inputs.page), crate::matrix::SparseRows::empty(rows, 0), Vec::new())
        .expect("names match the columns built above")
}

/// Fills one page's element-tree columns (from `col`): per level, the mean of `both` over the
/// other blocks in the subtree of the block's container's ancestor at that level, and their
/// number.
fn tree_features(x: &mut Array2<f64>, both: ArrayView2<f64>, rows: std::ops::Range<usize>, containers: &[&str], col: usize) {
    let k = both.ncols();
    // Per element path that holds a container (every container and its ancestors): the sum of
    // its blocks' probabilities and how many blocks.
    let mut subtrees: std::collections::HashMap<&str, (Vec<f64>, usize)> = std::collections::HashMap::new();
    for (i, c) in rows.clone().zip(containers) {
        let ends = c.match_indices('/').map(|(at, _)| at).chain([c.len()]);
        for end in ends {
            let g = subtrees.entry(&c[..end]).or_insert_with(|| (vec![0.0; k], 0));
            for (s, p) in g.0.iter_mut().zip(both.row(i)) {
                *s += p;
            }
            g.1 += 1;
        }
    }
    for (i, c) in rows.zip(containers) {
        for level in 0..TREE_LEVELS {
            let col = col + level * (k + 1);
            let Some((sum, count)) = subtrees.get(ancestor(c, level)) else {
                x[[i, col + k]] = 0.0;
                continue;
            };
            let others = count - 1;
            if others > 0 {
                for (j, s) in sum.iter().enumerate() {
                    x[[i, col + j]] = (s - both[[i, j]]) / others as f64;
                }
            }
            x[[i, col + k]] = others as f64;
        }
    }
}

/// The context features `x` followed by the block's own view columns that `inputs` names,
/// taken from `views` (the same blocks, in the same order, a page's blocks consecutive as
/// `page_of` says): the stylistic ones, then the lexical ones; then, with
/// `inputs.neighbour_columns`, the numeric columns of both views for the block before and for
/// the block after it on its page ([`neighbour_names`]; missing beyond the page's ends).
pub fn with_view_columns(
    mut x: FeatureMatrix,
    inputs: ContextInputs<'_>,
    views: &TwoViews,
    page_of: &[usize],
) -> Result<FeatureMatrix, crate::matrix::MatrixError> {
    if inputs.block_columns.stylistic() {
        x = x.hstack(&views.stylistic)?;
    }
    if inputs.block_columns.lexical() {
        x = x.hstack(&views.lexical)?;
    }
    if inputs.neighbour_columns {
        x = x.hstack(&neighbour_columns(views, page_of)?)?;
    }
    Ok(x)
}

/// Names of the neighbour columns for views whose numeric columns are `stylistic` and
/// `lexical`, in column order: `ctx.prev.` then `ctx.next.` before each of them.
pub fn neighbour_names(stylistic: &[String], lexical: &[String]) -> Vec<String> {
    ["prev", "next"].iter().flat_map(|side| stylistic.iter().chain(lexical).map(move |n| format!("ctx.{side}.{n}"))).collect()
}

/// The numeric columns of both views for the block before and the block after each block on
/// its page.
fn neighbour_columns(views: &TwoViews, page_of: &[usize]) -> Result<FeatureMatrix, crate::matrix::MatrixError> {
    let (s, l) = (views.stylistic.numeric(), views.lexical.numeric());
    let n = s.nrows();
    let width = s.ncols() + l.ncols();
    let mut x = Array2::from_elem((n, 2 * width), f64::NAN);
    for i in 0..n {
        let sides = [i.checked_sub(1), Some(i + 1).filter(|&j| j < n)];
        for (side, j) in sides.into_iter().enumerate() {
            let Some(j) = j.filter(|&j| page_of.get(j) == page_of.get(i)) else { continue };
            let at = side * width;
            x.slice_mut(ndarray::s![i, at..at + s.ncols()]).assign(&s.row(j));
            x.slice_mut(ndarray::s![i, at + s.ncols()..at + width]).assign(&l.row(j));
        }
    }
    let names = neighbour_names(&views.stylistic.schema().numeric_names, &views.lexical.schema().numeric_names);
    FeatureMatrix::new(x, names, crate::matrix::SparseRows::empty(n, 0), Vec::new())
}

/// The two views' class probabilities for every labelled block, each from learners trained on
/// the other folds of the data: what the views would say of unseen pages. `group_of` is the
/// group (page, or site) of each block; a group's blocks are never on both sides of a fold.
/// `weights`: the blocks' initial boosting weights, if not alike.
pub fn cross_fitted_probabilities(
    params: (&AdaBoostMhValidParams, &AdaBoostMhValidParams),
    views: &TwoViews,
    targets: &[usize],
    weights: Option<&[f64]>,
    group_of: &[usize],
    folds: usize,
    seed: u64,
) -> Result<(Array2<f64>, Array2<f64>), ContextError> {
    let n = targets.len();
    let k = params.0.n_classes().unwrap_or_else(|| targets.iter().max().map_or(1, |m| m + 1));
    let mut out = (Array2::zeros((n, k)), Array2::zeros((n, k)));
    for held_out in boost::folds_by_group(group_of, folds, seed) {
        let train = boost::rows_outside(&held_out, n);
        let y: Vec<usize> = train.iter().map(|&r| targets[r]).collect();
        let w: Option<Vec<f64>> = weights.map(|w| train.iter().map(|&r| w[r]).collect());
        let fitted = views.select_rows(&train)?;
        let test = views.select_rows(&held_out)?;
        let fit = |p: &AdaBoostMhValidParams, x: &FeatureMatrix, t: &FeatureMatrix| -> Result<Array2<f64>, BoostError> {
            p.train_weighted(x, &y, w.as_deref())?.predict_proba(t)
        };
        let s = fit(params.0, &fitted.stylistic, &test.stylistic)?;
        let l = fit(params.1, &fitted.lexical, &test.lexical)?;
        for (i, &r) in held_out.iter().enumerate() {
            out.0.row_mut(r).assign(&s.row(i));
            out.1.row_mut(r).assign(&l.row(i));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn features_look_at_neighbours_within_the_page_only() {
        let classes = vec!["a".to_string(), "b".to_string()];
        // Two pages: rows 0–2 and rows 3–4.
        let s = array![[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.0, 1.0]];
        let l = array![[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.0, 1.0]];
        let x = features(s.view(), l.view(), &[0, 0, 0, 1, 1], ContextInputs::default(), &classes);
        let names = feature_names(&classes, false, false);
        assert_eq!(x.n_numeric(), names.len());
        let col = |name: &str| names.iter().position(|n| n == name).unwrap();
        let v = |r: usize, name: &str| x.numeric()[[r, col(name)]];
        assert_eq!(v(1, "ctx.stylistic.b"), 1.0);
        assert_eq!(v(1, "ctx.lexical.b"), 0.0);
        // Row 1's previous block is row 0 (both views say a); its next is row 2 (half and half).
        assert_eq!(v(1, "ctx.at-1.a"), 1.0);
        assert_eq!(v(1, "ctx.at+1.a"), 0.5);
        // Row 2 is last on its page: nothing after it, though row 3 follows in the matrix.
        assert!(v(2, "ctx.at+1.a").is_nan());
        assert!(v(2, "ctx.after5.a").is_nan());
        assert!(v(3, "ctx.at-1.a").is_nan());
        // Window means over what exists: before row 2 are rows 0 and 1 (a: 1.0 and 0.5).
        assert_eq!(v(2, "ctx.before5.a"), 0.75);
        assert_eq!((v(0, "ctx.position"), v(1, "ctx.position"), v(2, "ctx.position")), (0.0, 0.5, 1.0));
        assert_eq!(v(4, "ctx.position"), 1.0);
    }

    #[test]
    fn tree_features_average_the_other_blocks_under_each_ancestor() {
        let classes = vec!["a".to_string(), "b".to_string()];
        // One page: two items of one list, a paragraph beside the list, and a footer elsewhere.
        let s = array![[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.0, 1.0]];
        let containers =
            ["/html[1]/body[1]/div[1]/ul[1]/li[1]", "/html[1]/body[1]/div[1]/ul[1]/li[2]", "/html[1]/body[1]/div[1]", "/html[1]/body[1]/footer[1]"];
        let x = features(s.view(), s.view(), &[0; 4], ContextInputs { containers: Some(&containers), page: false, ..Default::default() }, &classes);
        let names = feature_names(&classes, true, false);
        assert_eq!(x.n_numeric(), names.len());
        assert_eq!(names.len(), feature_names(&classes, false, false).len() + TREE_LEVELS * 3);
        let v = |r: usize, name: &str| x.numeric()[[r, names.iter().position(|n| n == name).unwrap()]];
        // Each item is alone under its own container; one up, the other item is its group.
        assert!(v(0, "ctx.up0.a").is_nan());
        assert_eq!(v(0, "ctx.up0.others"), 0.0);
        assert_eq!((v(0, "ctx.up1.a"), v(1, "ctx.up1.a")), (0.0, 1.0));
        assert_eq!(v(0, "ctx.up1.others"), 1.0);
        // Two up, the items reach the div, which also holds the paragraph.
        assert_eq!(v(0, "ctx.up2.others"), 2.0);
        assert_eq!(v(0, "ctx.up2.a"), 0.25);
        // The paragraph's parent is the body: the two items and the footer are under it.
        assert_eq!(v(2, "ctx.up1.others"), 3.0);
        assert!((v(2, "ctx.up1.b") - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(ancestor("/html[1]/body[1]", 1), "/html[1]");
        assert_eq!(ancestor("/html[1]", 3), "");
    }

    #[test]
    fn page_features_are_the_page_means_and_its_size_alike_on_every_block() {
        let classes = vec!["a".to_string(), "b".to_string()];
        // Two pages: rows 0–2 and rows 3–4; the stylistic view says a on the first page.
        let s = array![[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]];
        let l = array![[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.0, 1.0], [1.0, 0.0]];
        let containers = ["/a[1]", "/a[1]/b[1]", "/c[1]", "/a[1]", "/a[1]"];
        let x = features(s.view(), l.view(), &[0, 0, 0, 1, 1], ContextInputs { containers: Some(&containers), page: true, ..Default::default() }, &classes);
        let names = feature_names(&classes, true, true);
        assert_eq!(x.n_numeric(), names.len());
        // The page columns come after every other, so older columns keep their places.
        assert_eq!(&names[..feature_names(&classes, true, false).len()], feature_names(&classes, true, false).as_slice());
        let v = |r: usize, name: &str| x.numeric()[[r, names.iter().position(|n| n == name).unwrap()]];
        // Page one: both views' mean for a is (1 + 0.5 + 0.75) / 3 = 0.75 on each of its blocks.
        for r in 0..3 {
            assert!((v(r, "ctx.page.a") - 0.75).abs() < 1e-12);
            assert!((v(r, "ctx.page.blocks") - 4f64.ln()).abs() < 1e-12);
        }
        // Page two: a is 0 then 0.5, mean 0.25; it does not see page one.
        assert!((v(3, "ctx.page.a") - 0.25).abs() < 1e-12 && (v(4, "ctx.page.b") - 0.75).abs() < 1e-12);
        assert!((v(4, "ctx.page.blocks") - 3f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn neighbour_columns_are_the_blocks_before_and_after_on_the_same_page() {
        let classes = vec!["a".to_string(), "b".to_string()];
        let numeric = |values: ndarray::Array2<f64>, prefix: &str| {
            let names = (0..values.ncols()).map(|j| format!("{prefix}{j}")).collect();
            FeatureMatrix::new(values.clone(), names, crate::matrix::SparseRows::empty(values.nrows(), 0), Vec::new()).expect("valid")
        };
        // Two pages: rows 0–2 and rows 3–4; the stylistic view has two columns, the lexical one.
        let views = TwoViews {
            stylistic: numeric(array![[0.0, 10.0], [1.0, 11.0], [2.0, 12.0], [3.0, 13.0], [4.0, 14.0]], "s"),
            lexical: numeric(array![[100.0], [101.0], [102.0], [103.0], [104.0]], "l"),
        };
        let p = ndarray::Array2::from_elem((5, 2), 0.5);
        let page_of = [0, 0, 0, 1, 1];
        let inputs = ContextInputs { neighbour_columns: true, ..Default::default() };
        let x = with_view_columns(features(p.view(), p.view(), &page_of, inputs, &classes), inputs, &views, &page_of).expect("columns");
        let names = &x.schema().numeric_names;
        let expected = neighbour_names(&["s0".into(), "s1".into()], &["l0".into()]);
        assert_eq!(expected, ["ctx.prev.s0", "ctx.prev.s1", "ctx.prev.l0", "ctx.next.s0", "ctx.next.s1", "ctx.next.l0"]);
        assert_eq!(&names[names.len() - 6..], expected.as_slice());
        let v = |r: usize, name: &str| x.numeric()[[r, names.iter().position(|n| n == name).expect("column")]];
        assert_eq!((v(1, "ctx.prev.s1"), v(1, "ctx.prev.l0"), v(1, "ctx.next.s0")), (10.0, 100.0, 2.0));
        // Neither neighbour crosses a page's end, though the rows follow one another.
        assert!(v(2, "ctx.next.s0").is_nan() && v(3, "ctx.prev.l0").is_nan());
        assert_eq!(v(3, "ctx.next.l0"), 104.0);
        assert!(v(0, "ctx.prev.s0").is_nan() && v(4, "ctx.next.s1").is_nan());
    }
}
