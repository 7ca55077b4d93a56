//! Evaluation: error rate, confusion matrix and per-class precision, recall and F1 (the paper's
//! measures, section 7), over class indices.

use serde::{Deserialize, Serialize};

/// Precision, recall, F1 and support of one class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassMetrics {
    pub label: String,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    /// Gold blocks of the class.
    pub support: usize,
}

/// Share of blocks whose prediction differs from the gold label; NaN for no blocks (there is
/// no rate, and a 0 would pull a mean down).
pub fn error_rate(gold: &[usize], predicted: &[usize]) -> f64 {
    if gold.is_empty() {
        return f64::NAN;
    }
    gold.iter().zip(predicted).filter(|(g, p)| g != p).count() as f64 / gold.len() as f64
}

/// Main-text F1 of held-out pages at block granularity, weighted by words, averaged over the
/// pages: on each page, the words of blocks whose gold class is a main-text class (`main[c]`)
/// against the words of blocks predicted so, `F1 = 2·both / (gold + predicted)`. `page` is each
/// block's page and `words` its words. Pages without gold main text are left out (there is no
/// article to extract); `None` when no page has any.
pub fn mean_page_f1(gold: &[usize], predicted: &[usize], words: &[usize], page: &[usize], main: &[bool]) -> Option<f64> {
    let is_main = |c: usize| main.get(c).copied().unwrap_or(false);
    // Per page: gold main words, predicted main words, words in both.
    let mut per_page: std::collections::BTreeMap<usize, [usize; 3]> = std::collections::BTreeMap::new();
    for (((&g, &p), &w), &pg) in gold.iter().zip(predicted).zip(words).zip(page) {
        let e = per_page.entry(pg).or_default();
        let (gm, pm) = (is_main(g), is_main(p));
        e[0] += if gm { w } else { 0 };
        e[1] += if pm { w } else { 0 };
        e[2] += if gm && pm { w } else { 0 };
    }
    let f1s: Vec<f64> = per_page.values().filter(|e| e[0] > 0).map(|e| 2.0 * e[2] as f64 / (e[0] + e[1]) as f64).collect();
    (!f1s.is_empty()).then(|| f1s.iter().sum::<f64>() / f1s.len() as f64)
}

/// `m[g][p]`: blocks of gold class `g` predicted as `p`.
pub fn confusion(gold: &[usize], predicted: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut m = vec![vec![0; k]; k];
    for (&g, &p) in gold.iter().zip(predicted) {
        if g < k && p < k {
            m[g][p] += 1;
        }
    }
    m
}

/// Per-class metrics from a confusion matrix. A class never predicted has precision 0; a class
/// with no gold block has recall 0 (and F1 0), as scikit-learn reports with `zero_division=0`.
pub fn per_class(m: &[Vec<usize>], names: &[String]) -> Vec<ClassMetrics> {
    let k = m.len();
    (0..k)
        .map(|c| {
            let tp = m[c][c] as f64;
            let predicted: usize = (0..k).map(|g| m[g][c]).sum();
            let support: usize = m[c].iter().sum();
            let precision = if predicted == 0 { 0.0 } else { tp / predicted as f64 };
            let recall = if support == 0 { 0.0 } else { tp / support as f64 };
            let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
            ClassMetrics { label: names.get(c).cloned().unwrap_or_default(), precision, recall, f1, support }
        })
        .collect()
}

/// The most frequent class (ties: lowest index).
pub fn majority(labels: &[usize], k: usize) -> usize {
    let mut counts = vec![0usize; k];
    for &l in labels {
        if l < k {
            counts[l] += 1;
        }
    }
    (0..k).max_by(|&a, &b| counts[a].cmp(&counts[b]).then(b.cmp(&a))).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers() {
        let gold = [0, 0, 0, 1, 1, 2];
        let pred = [0, 0, 1, 1, 2, 2];
        assert!((error_rate(&gold, &pred) - 2.0 / 6.0).abs() < 1e-12);
        let m = confusion(&gold, &pred, 3);
        assert_eq!(m, vec![vec![2, 1, 0], vec![0, 1, 1], vec![0, 0, 1]]);
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let pc = per_class(&m, &names);
        // class b: precision 1/2, recall 1/2, F1 1/2; class c: precision 1/2, recall 1, F1 2/3.
        assert_eq!((pc[1].precision, pc[1].recall, pc[1].f1, pc[1].support), (0.5, 0.5, 0.5, 2));
        assert!((pc[2].f1 - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(majority(&gold, 3), 0);
        assert_eq!(majority(&[1, 2, 2, 1], 3), 1, "ties go to the lower index");
    }

    #[test]
    fn no_blocks_have_no_error_rate_rather_than_zero() {
        // Issue 18: empty folds scored 0.000 and pulled every mean down.
        assert!(error_rate(&[], &[]).is_nan());
    }

    #[test]
    fn page_f1_weighs_words_and_averages_pages() {
        // Class 0 is main text. Page 0: gold main words 10 (blocks of 6 and 4), predicted main
        // the 6-word block and a 2-word non-main block: both 6, predicted 8, F1 = 12/18 = 2/3.
        // Page 1: gold main 5 words, predicted exactly: F1 1. Page 2: no gold main text, left out.
        let gold = [0, 0, 1, 0, 1, 1];
        let pred = [0, 1, 0, 0, 0, 1];
        let words = [6, 4, 2, 5, 3, 7];
        let page = [0, 0, 0, 1, 2, 2];
        let main = [true, false];
        let f = mean_page_f1(&gold, &pred, &words, &page, &main).unwrap();
        assert!((f - (2.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12, "{f}");
        assert_eq!(mean_page_f1(&[1], &[0], &[3], &[0], &main), None, "no page with main text");
    }
}
