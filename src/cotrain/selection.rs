//! Selection rules: which self-labelled blocks of a round's fresh pool join the training set.
//!
//! The teaching loop ([`super::teach`]) asks its rule once per round with every view's
//! predictions on the fresh pool (views in the loop's order: stylistic, then lexical, for
//! co-training). A rule returns [`Pick`]s (pool position, class, the view that chose it); a
//! position appears at most once.
//!
//! The paper's rule ([`ClassProportional`]) is the default. A variant is one type implementing
//! [`Selection`] and one line in [`SELECTIONS`]; a config names it as `cotraining.selection`.

use crate::boost::BoostPredictions;

use super::most_confident;

/// What a rule may use besides the predictions.
pub struct SelectionContext<'a> {
    /// Blocks per class and view: `⌈k·p_c⌉` for the classes of the initial labelled data.
    pub quotas: &'a [usize],
    /// The config's `k`: self-labelled blocks each view adds per round.
    pub k: usize,
}

/// A self-labelled block a rule chose: its position in the round's fresh pool, the class it is
/// added with, and the view (index in the loop's order) that chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    pub position: usize,
    pub class: usize,
    pub view: usize,
}

/// A rule that picks the self-labelled blocks of a round.
pub trait Selection: Send + Sync {
    /// Its name in configs and reports.
    fn name(&self) -> &'static str;
    /// The chosen blocks, given each view's predictions on the round's fresh pool.
    fn select(&self, predictions: &[BoostPredictions], context: &SelectionContext) -> Vec<Pick>;
}

/// The paper's rule (section 6): each view in turn adds, for every class, its `⌈k·p_c⌉` most
/// confident blocks labelled with that class; a block one view took is not offered to the next.
pub struct ClassProportional;

impl Selection for ClassProportional {
    fn name(&self) -> &'static str {
        "class-proportional"
    }

    fn select(&self, predictions: &[BoostPredictions], context: &SelectionContext) -> Vec<Pick> {
        let n = predictions.first().map_or(0, |p| p.classes.len());
        let mut taken = vec![false; n];
        by_view(predictions, |p| most_confident(p, context.quotas, &mut taken))
    }
}

/// Each view in turn adds its `k` most confident blocks whatever their class (no per-class
/// quota, so no forced picks of rare classes; ties by pool position).
pub struct TopK;

impl Selection for TopK {
    fn name(&self) -> &'static str {
        "top-k"
    }

    fn select(&self, predictions: &[BoostPredictions], context: &SelectionContext) -> Vec<Pick> {
        let n = predictions.first().map_or(0, |p| p.classes.len());
        let mut taken = vec![false; n];
        by_view(predictions, |p| {
            let mut order: Vec<usize> = (0..n).filter(|&i| !taken[i]).collect();
            order.sort_by(|&a, &b| p.confidences[b].total_cmp(&p.confidences[a]).then(a.cmp(&b)));
            let chosen: Vec<(usize, usize)> = order.iter().take(context.k).map(|&i| (i, p.classes[i])).collect();
            for &(i, _) in &chosen {
                taken[i] = true;
            }
            chosen
        })
    }
}

/// The paper's rule restricted to blocks all views label alike: each view in turn adds, per
/// class, its `⌈k·p_c⌉` most confident blocks among those every other view gave the same class.
/// (With one view, as in self-training, it is the paper's rule.)
pub struct Agreement;

impl Selection for Agreement {
    fn name(&self) -> &'static str {
        "agreement"
    }

    fn select(&self, predictions: &[BoostPredictions], context: &SelectionContext) -> Vec<Pick> {
        let n = predictions.first().map_or(0, |p| p.classes.len());
        // Blocks on which the views disagree are taken from the start: no view may pick them.
        let mut taken: Vec<bool> = (0..n).map(|i| predictions.iter().any(|p| p.classes[i] != predictions[0].classes[i])).collect();
        by_view(predictions, |p| most_confident(p, context.quotas, &mut taken))
    }
}

/// Each view's `(position, class)` choices, view by view in order, as [`Pick`]s.
fn by_view(predictions: &[BoostPredictions], mut choose: impl FnMut(&BoostPredictions) -> Vec<(usize, usize)>) -> Vec<Pick> {
    let mut picks = Vec::new();
    for (view, p) in predictions.iter().enumerate() {
        picks.extend(choose(p).into_iter().map(|(position, class)| Pick { position, class, view }));
    }
    picks
}

/// The selection rules a config can name.
pub const SELECTIONS: &[&dyn Selection] = &[&ClassProportional, &TopK, &Agreement];

/// The rule called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn Selection> {
    SELECTIONS.iter().copied().find(|s| s.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{arr1, Array2};

    fn pred(classes: &[usize], confidences: &[f64]) -> BoostPredictions {
        BoostPredictions { classes: arr1(classes), confidences: arr1(confidences), scores: Array2::zeros((classes.len(), 2)) }
    }

    fn triples(picks: &[Pick]) -> Vec<(usize, usize, usize)> {
        picks.iter().map(|p| (p.position, p.class, p.view)).collect()
    }

    #[test]
    fn class_proportional_fills_quotas_view_by_view() {
        // Quotas 1 of class 0, 1 of class 1. The stylistic view takes 3 (class 0, 0.9) and 1
        // (class 1, 0.8); the lexical view's best class-0 block is 3, taken, so it gets 0.
        let s = pred(&[0, 1, 1, 0], &[0.5, 0.8, 0.6, 0.9]);
        let l = pred(&[0, 1, 1, 0], &[0.7, 0.2, 0.95, 0.99]);
        let chosen = ClassProportional.select(&[s, l], &SelectionContext { quotas: &[1, 1], k: 2 });
        assert_eq!(triples(&chosen), [(3, 0, 0), (1, 1, 0), (0, 0, 1), (2, 1, 1)]);
    }

    #[test]
    fn agreement_picks_only_blocks_the_views_label_alike() {
        // Views agree on blocks 0 (class 0) and 2 (class 1); block 3 is the stylistic view's most
        // confident class-0 block but the lexical view says 1.
        let s = pred(&[0, 1, 1, 0], &[0.5, 0.8, 0.6, 0.9]);
        let l = pred(&[0, 0, 1, 1], &[0.7, 0.2, 0.95, 0.99]);
        let chosen = Agreement.select(&[s, l], &SelectionContext { quotas: &[1, 1], k: 2 });
        assert_eq!(triples(&chosen), [(0, 0, 0), (2, 1, 0)]);
    }

    #[test]
    fn top_k_ignores_classes() {
        let s = pred(&[0, 0, 0, 1], &[0.9, 0.8, 0.7, 0.1]);
        let chosen = TopK.select(&[s], &SelectionContext { quotas: &[1, 1], k: 2 });
        assert_eq!(triples(&chosen), [(0, 0, 0), (1, 0, 0)], "the rare class's weak block is not forced in");
        assert_eq!(by_name("top-k").map(|s| s.name()), Some("top-k"));
        assert!(by_name("tri-training").is_none());
        assert_eq!(SELECTIONS.iter().map(|s| s.name()).collect::<Vec<_>>(), ["class-proportional", "top-k", "agreement"]);
    }
}
