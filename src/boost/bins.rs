//! Numeric columns prepared for threshold search: sorted once per training set into at most
//! `max_bins` bins of increasing values (one bin per distinct value when they fit). The cut
//! after bin b is the candidate threshold "x ≤ midpoint(bin b's largest, bin b+1's smallest)";
//! `NaN` is missing and forms its own part.

/// Bin code of a missing (`NaN`) value.
pub(super) const MISSING: u32 = u32::MAX;

/// One numeric column prepared for threshold search.
#[derive(Debug, Clone)]
pub(super) struct NumericColumn {
    /// Per block: its bin (bins are increasing value ranges), or [`MISSING`].
    pub(super) codes: Vec<u32>,
    /// `thresholds[b]` separates bins `..=b` from bins `b+1..`: the midpoint between the largest
    /// value of bin b and the smallest of bin b+1; for the last bin, its largest value.
    pub(super) thresholds: Vec<f64>,
    /// Blocks sorted by bin (stable), missing ones last: bin b is
    /// `order[bin_ends[b-1]..bin_ends[b]]` and the missing blocks follow `bin_ends[last]`.
    pub(super) order: Vec<u32>,
    pub(super) bin_ends: Vec<usize>,
    /// The part with the most blocks: a bin, or `n_bins()` for the missing blocks (the lowest
    /// on ties). The screening stage derives its weights from the totals instead of summing
    /// them.
    pub(super) largest: usize,
}

/// Midpoint of two consecutive distinct values `a < b` that still separates them in floating
/// point (falls back to `a`, e.g. for adjacent floats or infinite `b`).
pub(super) fn separating_midpoint(a: f64, b: f64) -> f64 {
    let m = (a + b) / 2.0;
    if m >= a && m < b {
        m
    } else {
        a
    }
}

impl NumericColumn {
    pub(super) fn new(values: ndarray::ArrayView1<f64>, max_bins: Option<usize>) -> Self {
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
        let thresholds: Vec<f64> = (0..bins.len())
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
            .collect::<Vec<u32>>();
        // Counting sort of the blocks by bin, missing last.
        let n_bins = thresholds.len();
        let slot = |code: u32| {
            if code == MISSING {
                n_bins
            } else {
                code as usize
            }
        };
        let mut counts = vec![0usize; n_bins + 1];
        codes.iter().for_each(|&c| counts[slot(c)] += 1);
        let mut bin_ends = Vec::with_capacity(n_bins);
        let mut next = vec![0usize; n_bins + 1];
        let mut end = 0;
        for (b, &count) in counts.iter().enumerate() {
            next[b] = end;
            end += count;
            if b < n_bins {
                bin_ends.push(end);
            }
        }
        let mut order = vec![0u32; codes.len()];
        for (i, &c) in codes.iter().enumerate() {
            let at = &mut next[slot(c)];
            order[*at] = u32::try_from(i).unwrap_or(u32::MAX);
            *at += 1;
        }
        let largest = largest_part(&bin_ends, order.len());
        Self { codes, thresholds, order, bin_ends, largest }
    }

    /// The column's blocks in sorted order, as the search walks them.
    pub(super) fn sorted(&self) -> Sorted<'_> {
        Sorted { order: &self.order, bin_ends: &self.bin_ends, largest: self.largest }
    }
}

/// Some blocks of a numeric column in its sorted order: all training blocks
/// ([`NumericColumn::sorted`]) or those of one tree node (`partition` module). Bin b is
/// `order[bin_ends[b-1]..bin_ends[b]]` (possibly empty in a node) and the missing blocks follow
/// the last bin end.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sorted<'a> {
    pub(super) order: &'a [u32],
    pub(super) bin_ends: &'a [usize],
    /// The part with the most of these blocks: a bin, or `n_bins()` for the missing ones (the
    /// lowest on ties).
    pub(super) largest: usize,
}

impl Sorted<'_> {
    pub(super) fn n_bins(&self) -> usize {
        self.bin_ends.len()
    }
}

/// The part with the most blocks, given the bin ends of blocks sorted by bin with the missing
/// ones last (`len` in all): a bin, or `bin_ends.len()` for the missing part; the lowest on ties.
pub(super) fn largest_part(bin_ends: &[usize], len: usize) -> usize {
    let size = |b: usize| bin_ends.get(b).copied().unwrap_or(len) - if b == 0 { 0 } else { bin_ends[b - 1] };
    (0..=bin_ends.len()).max_by(|&a, &b| size(a).cmp(&size(b)).then(b.cmp(&a))).unwrap_or(0)
}

/// Groups distinct values into at most `max_bins` consecutive ranges of roughly equal counts
/// (each range is `start..end` over `distinct`); one range per value when they fit.
pub(super) fn bin_ranges(distinct: &[(f64, usize)], n_values: usize, max_bins: Option<usize>) -> Vec<std::ops::Range<usize>> {
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
        // Bin 0 (-0.0 and 0.0) and bin 1 (3.0) have two blocks each: the lower bin is largest.
        assert_eq!(c.largest, 0);
        let mostly_missing = NumericColumn::new(ndarray::array![f64::NAN, 1.0, f64::NAN, 2.0, f64::NAN].view(), None);
        assert_eq!(mostly_missing.largest, mostly_missing.sorted().n_bins());
    }
}
