//! The weak learner: finds, for the current distribution D over (block, class) pairs, the stump
//! minimising Z = 2·Σ_j Σ_l sqrt(W₊ʲˡ·W₋ʲˡ) (Schapire & Singer 1999, section 4.1, eq. 11 /
//! BoosTexter "real AdaBoost.MH"), and applies the reweighting step.
//!
//! Layout of D: for block i with true class yᵢ, `pos[i] = D(i, yᵢ)` (the only pair with
//! Y = +1) and `neg[i·k + l] = D(i, l)` for l ≠ yᵢ, with `neg[i·k + yᵢ] = 0`. Adding a block
//! to a part of a partition is then one k-vector add for W₋ and one scalar add for W₊, with no
//! branch on the class, and W₋ never comes from a subtraction that could round below zero.
//!
//! Speed: numeric columns are sorted once per training set into at most `max_bins` bins
//! ([`TrainIndex::new`]); each round a feature costs one pass over the blocks (a histogram of
//! W₊/W₋ per bin and class) plus one scan over its bins evaluating all classes at once. A token
//! column costs only its non-zeros: the absent side is the totals minus the present side.
//! Features are searched in parallel with rayon; each feature's search is sequential and the
//! reduction is a total order (Z by `total_cmp`, then feature index, then bin), so the chosen
//! stump does not depend on the number of threads.

use super::stump::{Branch, Stump, StumpTest};
use crate::matrix::FeatureMatrix;
use rayon::prelude::*;

/// Bin code of a missing (`NaN`) value.
const MISSING: u32 = u32::MAX;

/// One numeric column prepared for threshold search.
#[derive(Debug, Clone)]
struct NumericColumn {
    /// Per block: its bin (bins are increasing value ranges), or [`MISSING`].
    codes: Vec<u32>,
    /// `thresholds[b]` separates bins `..=b` from bins `b+1..`: the midpoint between the largest
    /// value of bin b and the smallest of bin b+1; for the last bin, its largest value.
    thresholds: Vec<f64>,
}

/// A training set's feature columns in the form the search scans.
#[derive(Debug, Clone)]
pub(crate) struct TrainIndex {
    numeric: Vec<NumericColumn>,
    /// Per token column, the blocks where it is present (increasing).
    tokens: Vec<Vec<u32>>,
    n_rows: usize,
}

/// The best split of one feature under the current distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Candidate {
    /// The criterion Z = 2·Σ_j Σ_l sqrt(W₊ʲˡ·W₋ʲˡ) of this partition.
    pub z: f64,
    /// Numeric columns first, then token columns.
    pub feature: usize,
    /// The bin after which a numeric split cuts (0 for tokens).
    pub bin: usize,
}

/// Current distribution D over (block, class) pairs, in the layout of the module docs.
#[derive(Debug, Clone)]
pub(crate) struct Distribution {
    pub k: usize,
    pub labels: Vec<usize>,
    pub pos: Vec<f64>,
    pub neg: Vec<f64>,
}

/// Midpoint of two consecutive distinct values `a < b` that still separates them in floating
/// point (falls back to `a`, e.g. for adjacent floats or infinite `b`).
fn separating_midpoint(a: f64, b: f64) -> f64 {
    let m = (a + b) / 2.0;
    if m >= a && m < b {
        m
    } else {
        a
    }
}

impl NumericColumn {
    fn new(values: ndarray::ArrayView1<f64>, max_bins: Option<usize>) -> Self {
        // -0.0 and 0.0 compare equal and must share a bin.
        let norm = |v: f64| if v == 0.0 { 0.0 } else { v };
        let mut sorted: Vec<f64> = values.iter().filter(|v| !v.is_nan()).map(|&v| norm(v)).collect();
        sorted.sort_by(f64::total_cmp);
        // Distinct values with their counts.
        let mut distinct: Vec<(f64, usize)> = Vec::new();
        for v in sorted.iter().copied() {
            match distinct.last_mut() {
                Some((last, count)) if *last == v => *count += 1,
                _ => distinct.push((v, 1)),
            }
        }
        let bins = bin_ranges(&distinct, sorted.len(), max_bins);
        let uppers: Vec<f64> = bins.iter().map(|r| distinct[r.end - 1].0).collect();
        let thresholds = (0..bins.len())
            .map(|b| match bins.get(b + 1) {
                Some(next) => separating_midpoint(uppers[b], distinct[next.start].0),
                None => uppers[b],
            })
            .collect();
        let codes = values
            .iter()
            .map(|&v| {
                if v.is_nan() {
                    MISSING
                } else {
                    // First bin whose largest value is ≥ v; v is a training value so it exists.
                    let b = uppers.partition_point(|&u| u < norm(v));
                    u32::try_from(b).unwrap_or(MISSING)
                }
            })
            .collect();
        Self { codes, thresholds }
    }

    fn n_bins(&self) -> usize {
        self.thresholds.len()
    }
}

/// Groups distinct values into at most `max_bins` consecutive ranges of roughly equal counts
/// (each range is `start..end` over `distinct`); one range per value when they fit.
fn bin_ranges(
    distinct: &[(f64, usize)],
    n_values: usize,
    max_bins: Option<usize>,
) -> Vec<std::ops::Range<usize>> {
    let max_bins = max_bins.unwrap_or(usize::MAX).max(1);
    if distinct.len() <= max_bins {
        return (0..distinct.len()).map(|i| i..i + 1).collect();
    }
    let mut out = Vec::with_capacity(max_bins);
    let (mut start, mut seen) = (0, 0usize);
    for (i, &(_, count)) in distinct.iter().enumerate() {
        seen += count;
        // Close the bin once it reaches the next quantile of the value count.
        let target = (out.len() + 1) as f64 * n_values as f64 / max_bins as f64;
        if seen as f64 >= target && out.len() + 1 < max_bins {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < distinct.len() {
        out.push(start..distinct.len());
    }
    out
}

impl TrainIndex {
    /// Sorts every numeric column once (into bins) and lists every token column's blocks.
    pub fn new(x: &FeatureMatrix, max_bins: Option<usize>) -> Self {
        let numeric = x
            .numeric()
            .columns()
            .into_iter()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|col| NumericColumn::new(col, max_bins))
            .collect();
        Self {
            numeric,
            tokens: x.tokens().column_rows(),
            n_rows: x.n_rows(),
        }
    }

    fn n_features(&self) -> usize {
        self.numeric.len() + self.tokens.len()
    }

    /// Weak learner step of each round: the candidate with the smallest Z over all features.
    pub fn best_split(&self, d: &Distribution) -> Option<Candidate> {
        let (tot_pos, tot_neg) = d.totals(0..self.n_rows);
        (0..self.n_features())
            .into_par_iter()
            .map_init(Vec::new, |scratch, f| {
                if let Some(col) = self.numeric.get(f) {
                    numeric_best(col, d, f, scratch)
                } else {
                    let rows = &self.tokens[f - self.numeric.len()];
                    token_z(rows, d, f, &tot_pos, &tot_neg)
                }
            })
            .flatten()
            .min_by(candidate_order)
    }

    /// Which branch each training block takes under the stump built from `c`.
    pub fn branches(&self, c: &Candidate) -> Vec<Branch> {
        if let Some(col) = self.numeric.get(c.feature) {
            col.codes
                .iter()
                .map(|&code| match code {
                    MISSING => Branch::Missing,
                    b if (b as usize) <= c.bin => Branch::True,
                    _ => Branch::False,
                })
                .collect()
        } else {
            let mut out = vec![Branch::False; self.n_rows];
            for &r in &self.tokens[c.feature - self.numeric.len()] {
                out[r as usize] = Branch::True;
            }
            out
        }
    }

    /// The test of the stump built from `c`, in the matrix's column numbering.
    pub fn test(&self, c: &Candidate) -> StumpTest {
        match self.numeric.get(c.feature) {
            Some(col) => StumpTest::AtMost {
                column: c.feature,
                threshold: col.thresholds[c.bin],
            },
            None => StumpTest::Present {
                column: c.feature - self.numeric.len(),
            },
        }
    }
}

/// Total order used to pick the round's stump: smallest Z, then lowest feature, then lowest bin.
pub(crate) fn candidate_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    a.z.total_cmp(&b.z)
        .then(a.feature.cmp(&b.feature))
        .then(a.bin.cmp(&b.bin))
}

/// Σ_l sqrt(W₊ˡ·W₋ˡ) for one part of a partition (negative inputs from rounding are clamped).
#[inline]
fn part_z(pos: &[f64], neg: &[f64]) -> f64 {
    pos.iter()
        .zip(neg)
        .map(|(&p, &n)| (p.max(0.0) * n.max(0.0)).sqrt())
        .sum()
}

/// Best threshold of one numeric column: histogram of W₊/W₋ per bin and class, then one scan.
fn numeric_best(
    col: &NumericColumn,
    d: &Distribution,
    feature: usize,
    scratch: &mut Vec<f64>,
) -> Option<Candidate> {
    let (k, n_bins) = (d.k, col.n_bins());
    // Rows 0..n_bins are bins, row n_bins is "missing"; each row holds k W₊ then k W₋.
    scratch.clear();
    scratch.resize((n_bins + 1) * 2 * k, 0.0);
    for (i, &code) in col.codes.iter().enumerate() {
        let b = if code == MISSING { n_bins } else { code as usize };
        let row = &mut scratch[b * 2 * k..(b + 1) * 2 * k];
        row[d.labels[i]] += d.pos[i];
        for (acc, &w) in row[k..].iter_mut().zip(&d.neg[i * k..(i + 1) * k]) {
            *acc += w;
        }
    }
    let (hist, missing) = scratch.split_at(n_bins * 2 * k);
    let z_missing = part_z(&missing[..k], &missing[k..]);
    let mut total = vec![0.0; 2 * k];
    for row in hist.chunks_exact(2 * k) {
        total.iter_mut().zip(row).for_each(|(t, &v)| *t += v);
    }
    let mut left = vec![0.0; 2 * k];
    let mut right = vec![0.0; 2 * k];
    let mut best: Option<Candidate> = None;
    for (b, row) in hist.chunks_exact(2 * k).enumerate() {
        left.iter_mut().zip(row).for_each(|(l, &v)| *l += v);
        right
            .iter_mut()
            .zip(total.iter().zip(&left))
            .for_each(|(r, (&t, &l))| *r = t - l);
        let z = 2.0 * (part_z(&left[..k], &left[k..]) + part_z(&right[..k], &right[k..]) + z_missing);
        // Strict `<`: among equal Z the lowest bin wins.
        if best.is_none_or(|c| z < c.z) {
            best = Some(Candidate { z, feature, bin: b });
        }
    }
    best
}

/// Z of a token column's present/absent split, scanning only the blocks holding the token.
fn token_z(
    rows: &[u32],
    d: &Distribution,
    feature: usize,
    tot_pos: &[f64],
    tot_neg: &[f64],
) -> Option<Candidate> {
    let k = d.k;
    let mut pos = vec![0.0; k];
    let mut neg = vec![0.0; k];
    for &r in rows {
        let i = r as usize;
        pos[d.labels[i]] += d.pos[i];
        for (acc, &w) in neg.iter_mut().zip(&d.neg[i * k..(i + 1) * k]) {
            *acc += w;
        }
    }
    let absent_pos: Vec<f64> = tot_pos.iter().zip(&pos).map(|(t, p)| t - p).collect();
    let absent_neg: Vec<f64> = tot_neg.iter().zip(&neg).map(|(t, n)| t - n).collect();
    let z = 2.0 * (part_z(&pos, &neg) + part_z(&absent_pos, &absent_neg));
    Some(Candidate { z, feature, bin: 0 })
}

impl Distribution {
    /// Per-class W₊ and W₋ summed over `rows`.
    fn totals(&self, rows: std::ops::Range<usize>) -> (Vec<f64>, Vec<f64>) {
        let k = self.k;
        let mut pos = vec![0.0; k];
        let mut neg = vec![0.0; k];
        for i in rows {
            pos[self.labels[i]] += self.pos[i];
            neg.iter_mut()
                .zip(&self.neg[i * k..(i + 1) * k])
                .for_each(|(a, &w)| *a += w);
        }
        (pos, neg)
    }

    /// W₊ʲˡ and W₋ʲˡ for each branch j of a partition given per block.
    pub fn branch_weights(&self, branches: &[Branch]) -> [(Vec<f64>, Vec<f64>); 3] {
        let k = self.k;
        let mut w: [(Vec<f64>, Vec<f64>); 3] = std::array::from_fn(|_| (vec![0.0; k], vec![0.0; k]));
        for (i, &b) in branches.iter().enumerate() {
            let (pos, neg) = &mut w[b as usize];
            pos[self.labels[i]] += self.pos[i];
            neg.iter_mut()
                .zip(&self.neg[i * k..(i + 1) * k])
                .for_each(|(a, &x)| *a += x);
        }
        w
    }

    /// Reweighting step (S&S 1999, Figure 1, AdaBoost.MH update with α absorbed in h):
    /// D(i,l) ← D(i,l)·exp(−Y_il·h(xᵢ,l)) / Z_t. Returns the normaliser Z_t, or `None` when
    /// it is not a positive finite number (weights overflowed or vanished).
    pub fn reweight(&mut self, stump: &Stump, branches: &[Branch]) -> Option<f64> {
        let k = self.k;
        // exp(±c) once per branch and class rather than once per (block, class) pair.
        let up: [Vec<f64>; 3] = std::array::from_fn(|j| stump.outputs[j].iter().map(|c| c.exp()).collect());
        let down: [Vec<f64>; 3] =
            std::array::from_fn(|j| stump.outputs[j].iter().map(|c| (-c).exp()).collect());
        let mut z = 0.0;
        for (i, &b) in branches.iter().enumerate() {
            let j = b as usize;
            // Y = +1 for the true class: weight shrinks when the stump votes for it.
            self.pos[i] *= down[j][self.labels[i]];
            z += self.pos[i];
            // Y = −1 for the other classes: weight grows when the stump votes for them.
            for (w, &f) in self.neg[i * k..(i + 1) * k].iter_mut().zip(&up[j]) {
                *w *= f;
                z += *w;
            }
        }
        if !(z.is_finite() && z > 0.0) {
            return None;
        }
        self.pos.iter_mut().for_each(|w| *w /= z);
        self.neg.iter_mut().for_each(|w| *w /= z);
        Some(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_quantiles_and_keep_exact_values_when_few() {
        let d: Vec<(f64, usize)> = (0..10).map(|v| (v as f64, 1)).collect();
        assert_eq!(bin_ranges(&d, 10, None).len(), 10);
        let r = bin_ranges(&d, 10, Some(5));
        assert_eq!(r, vec![0..2, 2..4, 4..6, 6..8, 8..10]);
        let r = bin_ranges(&d, 10, Some(3));
        assert_eq!(r.len(), 3);
        assert_eq!(r.last().map(|x| x.end), Some(10));
    }

    #[test]
    fn midpoint_separates_even_adjacent_and_infinite_values() {
        assert_eq!(separating_midpoint(1.0, 2.0), 1.5);
        let next = f64::from_bits(1.0f64.to_bits() + 1);
        assert_eq!(separating_midpoint(1.0, next), 1.0);
        assert_eq!(separating_midpoint(1.0, f64::INFINITY), 1.0);
    }

    #[test]
    fn codes_and_thresholds_agree_with_values() {
        let v = ndarray::array![3.0, f64::NAN, -0.0, 0.0, 7.0, 3.0];
        let c = NumericColumn::new(v.view(), None);
        assert_eq!(c.codes, vec![1, MISSING, 0, 0, 2, 1]);
        assert_eq!(c.thresholds, vec![1.5, 5.0, 7.0]);
    }
}
