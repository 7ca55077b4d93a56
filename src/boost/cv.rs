//! Choosing the number of rounds by cross-validation on the training data, as the PARCELS
//! experiments did (paper section 7: "we determined an optimal number of rounds of boosting
//! ... through cross-validation").

use super::model::argmax;
use super::{AdaBoostMhValidParams, BoostError};
use crate::matrix::FeatureMatrix;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;

/// The round count chosen by cross-validation and the curve it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundsChoice {
    /// The fewest rounds reaching the lowest cross-validated error.
    pub n_rounds: usize,
    /// `cv_error[t]` is the held-out error rate (over all folds' blocks) after `t + 1` rounds.
    pub cv_error: Vec<f64>,
}

/// Trains one model per fold with up to `max_rounds` rounds on the blocks outside the fold,
/// scores the fold's blocks after every round, and returns the round count with the lowest
/// pooled error (ties: fewer rounds). `folds` are disjoint groups of row indices (build them
/// by page with [`folds_by_group`] so blocks of one page never straddle train and test).
/// Rows in no fold are always used for training. A fold whose model stopped early keeps its
/// last error for the later rounds, since its model would not change.
pub fn choose_rounds_by_cv(
    params: &AdaBoostMhValidParams,
    records: &FeatureMatrix,
    targets: &[usize],
    folds: &[Vec<usize>],
    max_rounds: usize,
) -> Result<RoundsChoice, BoostError> {
    let n = records.n_rows();
    if targets.len() != n {
        return Err(BoostError::TargetsMismatch { records: n, targets: targets.len() });
    }
    let in_fold = validate_folds(folds, n)?;
    let inferred = targets.iter().max().map_or(2, |m| (m + 1).max(2));
    let params = params.with_n_rounds(max_rounds)?.with_n_classes(params.n_classes().unwrap_or(inferred))?;
    // The folds' models are independent: trained in parallel; errors are counts, so their
    // sum does not depend on the order.
    let per_fold: Vec<Result<Vec<usize>, BoostError>> = folds
        .par_iter()
        .enumerate()
        .map(|(f, fold)| {
            let train_rows: Vec<usize> = (0..n).filter(|&r| in_fold[r] != Some(f)).collect();
            let train_y: Vec<usize> = train_rows.iter().map(|&r| targets[r]).collect();
            let model = params.train(&records.select_rows(&train_rows)?, &train_y)?;
            let test = records.select_rows(fold)?;
            let truth: Vec<usize> = fold.iter().map(|&r| targets[r]).collect();
            // Before any round every score is 0 and the argmax is class 0.
            let mut last = truth.iter().filter(|&&y| y != 0).count();
            let mut staged = model.staged_decision_function(&test)?;
            let mut wrong = vec![0usize; max_rounds];
            for slot in wrong.iter_mut() {
                if let Some(scores) = staged.next() {
                    last = scores.rows().into_iter().zip(&truth).filter(|(row, &y)| argmax(row.view()) != y).count();
                }
                *slot = last;
            }
            Ok(wrong)
        })
        .collect();
    let mut wrong = vec![0usize; max_rounds];
    for fold_wrong in per_fold {
        for (w, x) in wrong.iter_mut().zip(fold_wrong?) {
            *w += x;
        }
    }
    let held_out: usize = folds.iter().map(Vec::len).sum();
    let cv_error: Vec<f64> = wrong.iter().map(|&w| w as f64 / held_out as f64).collect();
    let best = wrong.iter().enumerate().min_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(&b.0))).map_or(1, |(t, _)| t + 1);
    Ok(RoundsChoice { n_rounds: best, cv_error })
}

/// For each row, the fold holding it; checks folds are non-empty, disjoint, in range, and
/// leave training data.
fn validate_folds(folds: &[Vec<usize>], n: usize) -> Result<Vec<Option<usize>>, BoostError> {
    let err = |reason: String| Err(BoostError::Folds { reason });
    if folds.len() < 2 {
        return err(format!("need at least 2 folds, got {}", folds.len()));
    }
    let mut in_fold = vec![None; n];
    for (f, fold) in folds.iter().enumerate() {
        if fold.is_empty() {
            return err(format!("fold {f} is empty"));
        }
        if fold.len() >= n {
            return err(format!("fold {f} leaves no training blocks"));
        }
        for &r in fold {
            match in_fold.get_mut(r) {
                None => return err(format!("fold {f}: row {r} out of range (n_rows = {n})")),
                Some(Some(g)) => return err(format!("row {r} is in folds {g} and {f}")),
                Some(slot) => *slot = Some(f),
            }
        }
    }
    Ok(in_fold)
}

/// The rows of `0..n` outside a fold: the training rows when `held_out` is tested.
pub fn rows_outside(held_out: &[usize], n: usize) -> Vec<usize> {
    let mut out = vec![true; n];
    for &r in held_out {
        if let Some(slot) = out.get_mut(r) {
            *slot = false;
        }
    }
    (0..n).filter(|&r| out[r]).collect()
}

/// Splits rows into `k` folds keeping each group (e.g. each page) whole: the distinct groups
/// are shuffled with `seed` and dealt round-robin. Rows of a fold are in increasing order.
pub fn folds_by_group(group_of_row: &[usize], k: usize, seed: u64) -> Vec<Vec<usize>> {
    folds_by_group_pinned(group_of_row, k, seed, &std::collections::BTreeMap::new())
}

/// [`folds_by_group`] with some groups' folds fixed (`pinned`: group → fold below `k`): the
/// other groups are shuffled with `seed` and dealt round-robin, as `folds_by_group` deals all
/// of them when none is pinned.
pub fn folds_by_group_pinned(group_of_row: &[usize], k: usize, seed: u64, pinned: &std::collections::BTreeMap<usize, usize>) -> Vec<Vec<usize>> {
    let mut groups: Vec<usize> = group_of_row.iter().copied().filter(|g| !pinned.contains_key(g)).collect();
    groups.sort_unstable();
    groups.dedup();
    // StdRng from rand 0.8.5 (pinned), so the shuffle is reproducible for a given seed.
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    groups.shuffle(&mut rng);
    let k = k.max(1);
    let mut fold_of: std::collections::BTreeMap<usize, usize> = groups.iter().enumerate().map(|(i, &g)| (g, i % k)).collect();
    fold_of.extend(pinned.iter().map(|(&g, &f)| (g, f.min(k - 1))));
    let mut folds = vec![Vec::new(); k];
    for (row, g) in group_of_row.iter().enumerate() {
        if let Some(&f) = fold_of.get(g) {
            folds[f].push(row);
        }
    }
    folds
}
