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
}

fn default_folds() -> usize {
    3
}

/// Offsets of the single neighbours whose probabilities are features.
const NEIGHBOURS: [isize; 4] = [-2, -1, 1, 2];
/// Half-widths of the windows whose mean probabilities are features.
const WINDOWS: [usize; 2] = [5, 20];

/// Names of the context features for `k` classes, in column order.
pub fn feature_names(classes: &[String]) -> Vec<String> {
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
    names
}

/// The context features of blocks given the views' probabilities (rows: blocks; columns:
/// classes) and the page of each block. A page's blocks must be consecutive rows in document
/// order. Neighbours beyond the page's ends are missing (NaN); a window mean covers the blocks
/// that exist.
pub fn features(stylistic: ArrayView2<f64>, lexical: ArrayView2<f64>, page_of: &[usize], classes: &[String]) -> FeatureMatrix {
    let (n, k) = stylistic.dim();
    let both = (&stylistic + &lexical) / 2.0;
    let width = 2 * k + NEIGHBOURS.len() * k + 2 * WINDOWS.len() * k + 1;
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
        start = end;
    }
    let rows = x.nrows();
    FeatureMatrix::new(x, feature_names(classes), crate::matrix::SparseRows::empty(rows, 0), Vec::new()).expect("names match the columns built above")
}

/// The two views' class probabilities for every labelled block, each from learners trained on
/// the other folds (by page) of the data: what the views would say of unseen pages.
pub fn cross_fitted_probabilities(
    params: (&AdaBoostMhValidParams, &AdaBoostMhValidParams),
    views: &TwoViews,
    targets: &[usize],
    page_of: &[usize],
    folds: usize,
    seed: u64,
) -> Result<(Array2<f64>, Array2<f64>), ContextError> {
    let n = targets.len();
    let k = params.0.n_classes().unwrap_or_else(|| targets.iter().max().map_or(1, |m| m + 1));
    let mut out = (Array2::zeros((n, k)), Array2::zeros((n, k)));
    for held_out in boost::folds_by_group(page_of, folds, seed) {
        let train = boost::rows_outside(&held_out, n);
        let y: Vec<usize> = train.iter().map(|&r| targets[r]).collect();
        let fitted = views.select_rows(&train)?;
        let test = views.select_rows(&held_out)?;
        let fit = |p: &AdaBoostMhValidParams, x: &FeatureMatrix, t: &FeatureMatrix| -> Result<Array2<f64>, BoostError> { p.train(x, &y)?.predict_proba(t) };
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
        let x = features(s.view(), l.view(), &[0, 0, 0, 1, 1], &classes);
        let names = feature_names(&classes);
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
}
