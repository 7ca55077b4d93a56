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

/// Share of blocks whose prediction differs from the gold label (0 for no blocks).
pub fn error_rate(gold: &[usize], predicted: &[usize]) -> f64 {
    if gold.is_empty() {
        return 0.0;
    }
    gold.iter().zip(predicted).filter(|(g, p)| g != p).count() as f64 / gold.len() as f64
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
}
