//! Paired statistics for comparing two learners measured on the same units (the same folds of
//! the same replicates): a bootstrap interval of the mean difference and the Wilcoxon
//! signed-rank test.
//!
//! Input: paired differences (`a − b` per unit). Output: [`Interval`] (mean and a percentile
//! bootstrap interval) and [`SignedRank`] (the statistic and a two-sided p-value).
//!
//! Conventions, so the figures match a statistics package: the signed-rank test drops zero
//! differences (Wilcoxon's own treatment, scipy's `zero_method="wilcox"`), ranks the absolute
//! differences with ties given their mean rank, and is exact (the distribution of the
//! statistic over all 2ⁿ sign patterns) when at most [`EXACT_MAX`] differences remain and none
//! are tied; otherwise it uses the normal approximation with the tie correction of the
//! variance and no continuity correction (scipy's defaults). The bootstrap resamples units with
//! replacement, seeded, and takes the 2.5th and 97.5th percentiles of the resampled means
//! (linear interpolation between order statistics).

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// The largest number of non-zero differences for which the signed-rank test is exact.
pub const EXACT_MAX: usize = 50;

/// A mean and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// Units the mean is over.
    pub n: usize,
}

/// The mean of `values` with a 95% percentile bootstrap interval (`resamples` resamples of the
/// units, drawn with `seed`). Applied to paired differences, it is the paired bootstrap
/// interval of the mean difference. NaN values are left out; no values give NaNs.
pub fn bootstrap_mean(values: &[f64], resamples: usize, seed: u64) -> Interval {
    let v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    let n = v.len();
    if n == 0 {
        return Interval { mean: f64::NAN, low: f64::NAN, high: f64::NAN, n: 0 };
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut means: Vec<f64> = (0..resamples.max(1)).map(|_| (0..n).map(|_| v[rng.gen_range(0..n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    Interval { mean, low: quantile(&means, 0.025), high: quantile(&means, 0.975), n }
}

/// The paired differences `a[i] − b[i]` (pairs with a NaN left out).
pub fn differences(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).filter(|d| !d.is_nan()).collect()
}

/// The `q` quantile of sorted values, interpolating linearly between order statistics.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// How a signed-rank p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Exact,
    Normal,
}

/// The Wilcoxon signed-rank test of paired differences.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SignedRank {
    /// Sums of the ranks of the positive and of the negative differences.
    pub w_plus: f64,
    pub w_minus: f64,
    /// Non-zero differences ranked.
    pub n: usize,
    /// Two-sided p-value of "the differences are symmetric about 0"; 1 with no non-zero
    /// difference.
    pub p: f64,
    pub method: Method,
}

/// The Wilcoxon signed-rank test of paired differences (see the module's conventions).
pub fn wilcoxon(differences: &[f64]) -> SignedRank {
    let d: Vec<f64> = differences.iter().copied().filter(|x| *x != 0.0 && !x.is_nan()).collect();
    let n = d.len();
    if n == 0 {
        return SignedRank { w_plus: 0.0, w_minus: 0.0, n: 0, p: 1.0, method: Method::Exact };
    }
    // Mean ranks of the absolute differences, and the tie groups' sizes.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| d[a].abs().total_cmp(&d[b].abs()));
    let mut ranks = vec![0.0; n];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && d[order[j + 1]].abs() == d[order[i]].abs() {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = rank;
        }
        ties.push(j - i + 1);
        i = j + 1;
    }
    // `+ 0.0`: an empty f64 sum is −0.0, which would print as "-0".
    let w_plus: f64 = (0..n).filter(|&k| d[k] > 0.0).map(|k| ranks[k]).sum::<f64>() + 0.0;
    let w_minus = n as f64 * (n as f64 + 1.0) / 2.0 - w_plus;
    let t = w_plus.min(w_minus);
    let tied = ties.iter().any(|&t| t > 1);
    if n <= EXACT_MAX && !tied {
        // Ranks are 1..n: count the sign patterns whose positive-rank sum is at most t.
        let max = n * (n + 1) / 2;
        let mut ways = vec![0.0f64; max + 1];
        ways[0] = 1.0;
        for r in 1..=n {
            for s in (r..=max).rev() {
                ways[s] += ways[s - r];
            }
        }
        let total = 2f64.powi(n as i32);
        let at_most: f64 = ways[..=(t as usize).min(max)].iter().sum();
        return SignedRank { w_plus, w_minus, n, p: (2.0 * at_most / total).min(1.0), method: Method::Exact };
    }
    let nf = n as f64;
    let mean = nf * (nf + 1.0) / 4.0;
    let tie_term: f64 = ties.iter().map(|&t| (t * t * t - t) as f64).sum::<f64>() / 48.0;
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term;
    let p = if var > 0.0 { erfc(((t - mean) / var.sqrt()).abs() / std::f64::consts::SQRT_2) } else { 1.0 };
    SignedRank { w_plus, w_minus, n, p: p.min(1.0), method: Method::Normal }
}

/// The complementary error function (Numerical Recipes' Chebyshev fit, relative error below
/// 1.2·10⁻⁷ everywhere): `2·Φ(−|z|) = erfc(|z|/√2)` is a normal two-sided p-value.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06 + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_signed_rank_by_hand() {
        // |d| ranks: 0.5→1, 1.0→2, 1.5→3, 2.0→4, 2.5→5, 3.0→6; negatives hold ranks 1 and 2, so
        // W− = 3, W+ = 18. Of the 2⁶ = 64 sign patterns, 5 have a rank sum ≤ 3 ({}, {1}, {2},
        // {3}, {1,2}): p = 2·5/64 = 0.15625 (scipy.stats.wilcoxon gives statistic 3.0,
        // p = 0.15625).
        let r = wilcoxon(&[1.5, -0.5, 2.0, 3.0, -1.0, 2.5]);
        assert_eq!((r.w_plus, r.w_minus, r.n, r.method), (18.0, 3.0, 6, Method::Exact));
        assert!((r.p - 0.15625).abs() < 1e-12, "{}", r.p);
        // All six positive: only the empty pattern has sum 0, p = 2/64.
        assert!((wilcoxon(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).p - 2.0 / 64.0).abs() < 1e-12);
        // Zeros are dropped before ranking.
        assert_eq!(wilcoxon(&[0.0, 1.5, -0.5, 2.0, 3.0, -1.0, 2.5, 0.0]), r);
        assert_eq!(wilcoxon(&[0.0, 0.0]).p, 1.0);
    }

    #[test]
    fn tied_signed_rank_uses_the_corrected_normal_approximation() {
        // |d| = 1,1,1,2,2,2,3,3,4,5: mean ranks 2 (three 1s), 5 (three 2s), 7.5 (two 3s), 9, 10.
        // Negatives: one 1 (rank 2) and one 3 (rank 7.5): W− = 9.5, W+ = 55 − 9.5 = 45.5.
        // Mean n(n+1)/4 = 27.5; variance 10·11·21/24 − (2·(27−3) + (8−2))/48 = 96.25 − 1.125 =
        // 95.125; z = (9.5 − 27.5)/√95.125 = −1.84555; p = erfc(1.84555/√2) = 0.0649580.
        let r = wilcoxon(&[1.0, 1.0, -1.0, 2.0, 2.0, 2.0, 3.0, -3.0, 4.0, 5.0]);
        assert_eq!((r.w_plus, r.w_minus, r.n, r.method), (45.5, 9.5, 10, Method::Normal));
        assert!((r.p - 0.064_958_0).abs() < 1e-6, "{}", r.p);
    }

    #[test]
    fn erfc_matches_known_values() {
        // erfc(0) = 1, erfc(1) = 0.157299207, erfc(1.959964/√2) = 0.05 (the normal 95% point).
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 1e-7);
        assert!((erfc(1.959_964 / std::f64::consts::SQRT_2) - 0.05).abs() < 1e-6);
        assert!((erfc(-1.0) - (2.0 - 0.157_299_207)).abs() < 1e-7);
    }

    #[test]
    fn bootstrap_interval_by_hand() {
        // Two units, differences 0 and 1: a resample's mean is 0, 0.5 or 1 with chances 1/4,
        // 1/2, 1/4, so the 2.5th percentile is 0 and the 97.5th is 1.
        let i = bootstrap_mean(&[0.0, 1.0], 10_000, 1);
        assert_eq!((i.mean, i.low, i.high, i.n), (0.5, 0.0, 1.0, 2));
        // Equal differences: no spread.
        let c = bootstrap_mean(&[0.25; 7], 500, 3);
        assert_eq!((c.low, c.high), (0.25, 0.25));
        // Seeded: the same seed, the same interval; NaNs left out.
        let v = [0.1, -0.3, 0.4, 0.2, 0.0, 0.5, f64::NAN];
        assert_eq!(bootstrap_mean(&v, 2000, 9), bootstrap_mean(&v, 2000, 9));
        let i = bootstrap_mean(&v, 2000, 9);
        assert_eq!(i.n, 6);
        assert!(i.low < i.mean && i.mean < i.high && i.low >= -0.3 && i.high <= 0.5, "{i:?}");
        assert!(bootstrap_mean(&[], 10, 1).mean.is_nan());
        assert_eq!(differences(&[0.3, 0.5, f64::NAN], &[0.1, 0.5, 0.2]).len(), 2);
        assert_eq!(quantile(&[0.0, 10.0], 0.25), 2.5);
    }
}
