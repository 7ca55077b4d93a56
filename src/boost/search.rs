//! The weak learner: finds, for the current distribution D over (block, class) pairs, the stump
//! minimising Z = 2·Σ_j Σ_l sqrt(W₊ʲˡ·W₋ʲˡ) (Schapire & Singer 1999, section 4.1;
//! BoosTexter "real AdaBoost.MH"), and applies the reweighting step.
//!
//! Layout of D: for block i with true class yᵢ, `pos[i] = D(i, yᵢ)` (the only pair with
//! Y = +1) and `neg[i·s + l] = D(i, l)` for l ≠ yᵢ, with `neg[i·s + yᵢ] = 0` and zeros in the
//! padding up to the row stride s (k rounded up to 4 lanes). Adding a block to a part of a
//! partition is then whole-vector adds for W₋ and one scalar add for W₊, with no branch on the
//! class, and W₋ of a part never comes from a subtraction.
//!
//! Speed: numeric columns are sorted once per training set into at most `max_bins` bins
//! ([`TrainIndex::new`]). Each round has two stages ([`TrainIndex::best_split`]):
//! - screening: for a numeric feature, one pass over its blocks in sorted order with the
//!   per-class left sums in registers, evaluating Z at every bin end with f32 square roots;
//!   for a token feature, a pass over its non-zeros only (the absent side is the totals minus
//!   the present side). Weights are read from an f32 copy, half the memory traffic;
//! - exact: the few cuts that may be the minimum are evaluated in f64.
//!
//! Features are screened in parallel with rayon; each feature's work is sequential and the
//! reduction is a total order (Z by `total_cmp`, then feature index, then bin), so the chosen
//! stump does not depend on the number of threads. The kernels are compiled twice, portable and
//! AVX2 (chosen at run time); both do the same IEEE operations in the same order.

use super::bins::{NumericColumn, Sorted, MISSING};
use super::distribution::Distribution;
use super::kernels::*;
use super::partition::{split_column, split_rows, split_tokens, NodeColumn, NodeIndex};
use super::stump::{Branch, StumpTest};
use crate::matrix::FeatureMatrix;
use rayon::prelude::*;

/// A training set's feature columns in the form the search scans.
#[derive(Debug, Clone)]
pub(crate) struct TrainIndex {
    numeric: Vec<NumericColumn>,
    /// Per token column, the blocks where it is present (increasing).
    tokens: Vec<Vec<u32>>,
    /// The features a round searches: every numeric column, and each token column whose blocks
    /// differ from those of every lower token column. Token columns with the same blocks have
    /// bit-identical Z in every round (the same sums in the same order), so only the lowest of
    /// them can win the tie-break, and the others need no search: the chosen stump is the one
    /// an exhaustive search picks. A vocabulary of tens of thousands of stems has most of them
    /// absent from a training set, or present in the same single block.
    searched: Vec<usize>,
    /// Per token column, whether `searched` holds it.
    token_searched: Vec<bool>,
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

impl TrainIndex {
    /// Sorts every numeric column once (into bins) and lists every token column's blocks.
    pub fn new(x: &FeatureMatrix, max_bins: Option<usize>) -> Self {
        let numeric: Vec<NumericColumn> =
            x.numeric().columns().into_iter().collect::<Vec<_>>().into_par_iter().map(|col| NumericColumn::new(col, max_bins)).collect();
        let tokens = x.tokens().column_rows();
        let searched = searched_features(numeric.len(), &tokens);
        let mut token_searched = vec![false; tokens.len()];
        for &f in &searched[searched.partition_point(|&f| f < numeric.len())..] {
            token_searched[f - numeric.len()] = true;
        }
        Self { numeric, tokens, searched, token_searched, n_rows: x.n_rows() }
    }

    /// Number of features searched each round (see `searched`).
    #[cfg(test)]
    pub fn n_searched(&self) -> usize {
        self.searched.len()
    }

    /// Weak learner step of each round: the candidate with the smallest Z over all features.
    ///
    /// Two stages keep it fast and exact. Screening evaluates every cut of every feature from
    /// the weights rounded to f32, with f32 square roots; its value S is within
    /// [`SCREEN_RELATIVE`]·Z + [`SCREEN_ABSOLUTE`] of the f64 Z. Only the cuts whose S could
    /// belong to the minimum are then evaluated in f64, and the smallest f64 Z wins (ties:
    /// lowest feature, then lowest bin), which is the choice an all-f64 search makes.
    pub fn best_split(&self, d: &Distribution) -> Option<Candidate> {
        let ((tot_pos, tot_neg), (tot_pos32, tot_neg32)) = (d.totals(false), d.totals(true));
        self.search(d, [tot_pos, tot_neg, tot_pos32, tot_neg32], None)
    }

    /// The candidate with the smallest Z over the blocks of one node of a tree alone, whose
    /// per-class totals are `totals` (W₊, W₋ from the f64 weights, then from the f32 copy; see
    /// [`Distribution::node_totals`]). The same choice as [`best_split`](Self::best_split)
    /// under D restricted to the node (zero elsewhere), reading the node's blocks alone: a
    /// tree's nodes below the root cost what their blocks cost.
    pub fn best_split_in(&self, d: &Distribution, totals: &[Vec<f64>; 4], node: &NodeIndex) -> Option<Candidate> {
        self.search(d, totals.each_ref().map(Vec::as_slice), Some(node))
    }

    /// The blocks of `parent` (all training blocks when `None`) split into `n_parts` tree nodes
    /// by `part_of[block]` (below `n_parts`; only the parent's blocks are read), each in every
    /// searched column's order. Costs one walk of the parent's blocks per column.
    pub fn split(&self, parent: Option<&NodeIndex>, part_of: &[u8], n_parts: usize) -> Vec<NodeIndex> {
        let every: Vec<u32>;
        let rows = match parent {
            Some(p) => &p.rows[..],
            None => {
                every = (0..self.n_rows).map(|i| u32::try_from(i).unwrap_or(u32::MAX)).collect();
                &every[..]
            }
        };
        let rows = split_rows(rows, part_of, n_parts);
        let sizes: Vec<usize> = rows.iter().map(Vec::len).collect();
        let numeric = || -> Vec<Vec<NodeColumn>> {
            (0..self.numeric.len())
                .into_par_iter()
                .map(|c| {
                    let sorted = match parent {
                        Some(p) => p.numeric[c].sorted(),
                        None => self.numeric[c].sorted(),
                    };
                    split_column(sorted, part_of, &sizes)
                })
                .collect()
        };
        let tokens = || {
            let parent_rows = |t: usize| match parent {
                Some(p) => p.token(t),
                None => &self.tokens[t][..],
            };
            split_tokens(&self.token_searched, parent_rows, part_of, n_parts)
        };
        let (mut numeric, tokens) = rayon::join(numeric, tokens);
        rows.into_iter()
            .zip(tokens)
            .enumerate()
            .map(|(p, (rows, (token_rows, token_ends)))| {
                let numeric = numeric.iter_mut().map(|parts| std::mem::take(&mut parts[p])).collect();
                NodeIndex { rows, numeric, token_rows, token_ends }
            })
            .collect()
    }

    fn search(&self, d: &Distribution, [tot_pos, tot_neg, tot_pos32, tot_neg32]: [&[f64]; 4], node: Option<&NodeIndex>) -> Option<Candidate> {
        let avx2 = has_avx2();
        let search = FeatureSearch { index: self, d, tot_pos, tot_neg, tot_pos32, tot_neg32, avx2, node };
        let screen = |features: &[usize]| -> Vec<Screened> {
            features
                .par_iter()
                .map_init(Scratch::default, |scratch, &f| search.dispatch(Stage::Screen, f, scratch))
                .flat_map_iter(|found| found.screened)
                .collect()
        };
        // Numeric features first; their best cut bounds the round's minimum Z from above, and a
        // token column whose lower bound is above that cannot hold the minimum: it is not
        // screened (`TokenBound`). Most of a vocabulary is rare words of little weight.
        let n_numeric = self.numeric.len();
        let (numeric, tokens) = self.searched.split_at(self.searched.partition_point(|&f| f < n_numeric));
        let mut screened = screen(numeric);
        let ceiling = screen_bound(screened.iter().map(|c| c.s).fold(f64::INFINITY, f64::min)) + TokenBound::SLACK;
        let bound = TokenBound::new(tot_pos, tot_neg, d, node.map(|n| &n.rows[..]));
        let kept: Vec<usize> = tokens
            .iter()
            .copied()
            .filter(|&f| {
                let lower = bound.lower(search.token_rows(f));
                lower.is_nan() || lower <= ceiling
            })
            .collect();
        screened.extend(screen(&kept));
        let lowest = screened.iter().map(|c| c.s).fold(f64::INFINITY, f64::min);
        let bound = screen_bound(lowest);
        screened.retain(|c| survives(c.s, bound));
        screened.sort_by(|a, b| a.feature.cmp(&b.feature).then(a.bin.cmp(&b.bin)));
        // Features with at least one surviving cut, each with its cuts.
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for c in &screened {
            match groups.last_mut() {
                Some((f, bins)) if *f == c.feature => bins.push(c.bin),
                _ => groups.push((c.feature, vec![c.bin])),
            }
        }
        groups
            .into_par_iter()
            .map_init(Scratch::default, |scratch, (f, bins)| search.dispatch(Stage::Exact(&bins), f, scratch).exact)
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
            Some(col) => StumpTest::AtMost { column: c.feature, threshold: col.thresholds[c.bin] },
            None => StumpTest::Present { column: c.feature - self.numeric.len() },
        }
    }
}

/// The numeric features `0..n_numeric`, then the lowest token feature of each distinct set of
/// blocks (token column `t` is feature `n_numeric + t`), increasing.
fn searched_features(n_numeric: usize, tokens: &[Vec<u32>]) -> Vec<usize> {
    let mut seen: std::collections::HashSet<&[u32]> = std::collections::HashSet::with_capacity(tokens.len());
    let mut searched: Vec<usize> = (0..n_numeric).collect();
    searched.extend(tokens.iter().enumerate().filter(|(_, rows)| seen.insert(rows.as_slice())).map(|(t, _)| n_numeric + t));
    searched
}

/// A lower bound on the Z of a token column's split from one sum over its blocks, instead of
/// per-class sums and square roots. Per class l, with the present part (a, b) and the totals
/// (A, B): √((A−a)(B−b)) = √(AB)·√(1−a/A)·√(1−b/B) ≥ √(AB)·(1 − a/A − b/B), so
/// √(ab) + √((A−a)(B−b)) ≥ √(AB) − a·√(B/A) − b·√(A/B), which is linear in the part's
/// weights. Summed over classes: Z ≥ 2·(Σ_l √(A_l B_l) − Σ_{i in the part} c_i), with block i's
/// c_i = D(i, yᵢ)·√(B_y/A_y) + Σ_{l≠yᵢ} D(i, l)·√(A_l/B_l) (a class with no weight on a side has
/// none in any part, and its term is 0). A word in a few blocks of ordinary weight cannot move
/// Z by more than their weight, so after the first rounds most of a vocabulary is left out.
struct TokenBound {
    /// Σ_l √(A_l B_l) over the round's f64 totals.
    unsplit: f64,
    /// c_i per block.
    block: Vec<f64>,
}

impl TokenBound {
    /// Rounding allowance between the bound and the f64 Z the exact stage computes: the
    /// screening stage's absolute margin, times 4 (the factor 2 of Z, and room).
    const SLACK: f64 = 4.0 * SCREEN_ABSOLUTE;

    /// Over the blocks `rows` (increasing), or all blocks without them.
    fn new(tot_pos: &[f64], tot_neg: &[f64], d: &Distribution, rows: Option<&[u32]>) -> Self {
        let unsplit = tot_pos.iter().zip(tot_neg).map(|(a, b)| (a * b).sqrt()).sum();
        let ratio = |num: f64, den: f64| if num > 0.0 && den > 0.0 { (num / den).sqrt() } else { 0.0 };
        let pos_factor: Vec<f64> = tot_pos.iter().zip(tot_neg).map(|(&a, &b)| ratio(b, a)).collect();
        let neg_factor: Vec<f64> = tot_pos.iter().zip(tot_neg).map(|(&a, &b)| ratio(a, b)).collect();
        let s = d.stride;
        let c = |i: usize| d.pos[i] * pos_factor[d.labels[i]] + d.neg[i * s..(i + 1) * s].iter().zip(&neg_factor).map(|(w, f)| w * f).sum::<f64>();
        let block = match rows {
            None => (0..d.labels.len()).map(c).collect(),
            Some(rows) => {
                let mut block = vec![0.0; d.labels.len()];
                for &r in rows {
                    block[r as usize] = c(r as usize);
                }
                block
            }
        };
        Self { unsplit, block }
    }

    /// The bound for the split on the blocks `rows` (blocks outside the node have c_i = 0).
    fn lower(&self, rows: &[u32]) -> f64 {
        let moved: f64 = rows.iter().map(|&r| self.block[r as usize]).sum();
        2.0 * (self.unsplit - moved)
    }
}

/// Total order used to pick the round's stump: smallest Z, then lowest feature, then lowest bin.
pub(crate) fn candidate_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    a.z.total_cmp(&b.z).then(a.feature.cmp(&b.feature)).then(a.bin.cmp(&b.bin))
}

/// A cut that survived a feature's screening, with its screened value S.
#[derive(Debug, Clone, Copy)]
struct Screened {
    feature: usize,
    bin: usize,
    s: f64,
}

/// Which stage of [`TrainIndex::best_split`] to run on a feature.
#[derive(Clone, Copy)]
enum Stage<'b> {
    /// All cuts from the f32 weights; keep those that may be the feature's minimum.
    Screen,
    /// The listed cuts in f64; keep the best.
    Exact(&'b [usize]),
}

/// What a stage found for one feature.
#[derive(Default)]
struct Found {
    screened: Vec<Screened>,
    exact: Option<Candidate>,
}

/// Upper bound on the screened value of any cut that can have the minimum f64 Z, given the
/// lowest screened value.
fn screen_bound(lowest: f64) -> f64 {
    (lowest + SCREEN_ABSOLUTE) * (1.0 + SCREEN_RELATIVE) / (1.0 - SCREEN_RELATIVE) + SCREEN_ABSOLUTE
}

/// Whether a screened value may belong to the minimum; NaN is kept so that it gets checked.
fn survives(screened: f64, bound: f64) -> bool {
    screened <= bound || screened.is_nan()
}

/// One round's search context.
struct FeatureSearch<'a> {
    index: &'a TrainIndex,
    d: &'a Distribution,
    /// Per-class W₊/W₋ over all blocks from the f64 weights and from the f32 copy.
    tot_pos: &'a [f64],
    tot_neg: &'a [f64],
    tot_pos32: &'a [f64],
    tot_neg32: &'a [f64],
    avx2: bool,
    /// The tree node searched, if not all blocks.
    node: Option<&'a NodeIndex>,
}

impl<'a> FeatureSearch<'a> {
    /// Numeric feature `f`'s blocks (the node's, or all) in sorted order; `None` for a token.
    fn sorted(&self, f: usize) -> Option<Sorted<'a>> {
        match self.node {
            Some(node) => node.numeric.get(f).map(NodeColumn::sorted),
            None => self.index.numeric.get(f).map(NumericColumn::sorted),
        }
    }

    /// Token feature `f`'s blocks (the node's, or all).
    fn token_rows(&self, f: usize) -> &'a [u32] {
        let t = f - self.index.numeric.len();
        match self.node {
            Some(node) => node.token(t),
            None => &self.index.tokens[t],
        }
    }
}

/// Where per-class W₋ (and W₊) are read from: the f64 weights or their f32 copy.
trait Weight: Copy {
    fn widen(self) -> f64;
    /// (W₊, class) of block `i`.
    fn positive(d: &Distribution, i: usize) -> (f64, usize);
}

impl Weight for f64 {
    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }

    #[inline(always)]
    fn positive(d: &Distribution, i: usize) -> (f64, usize) {
        (d.pos[i], d.labels[i])
    }
}

impl Weight for f32 {
    #[inline(always)]
    fn widen(self) -> f64 {
        f64::from(self)
    }

    #[inline(always)]
    fn positive(d: &Distribution, i: usize) -> (f64, usize) {
        let (w, y) = d.pos32[i];
        (f64::from(w), y as usize)
    }
}

impl FeatureSearch<'_> {
    /// Runs a stage compiled for the class stride (so per-class sums live in registers) and,
    /// when the CPU has it, for AVX2.
    fn dispatch(&self, stage: Stage, f: usize, scratch: &mut Scratch) -> Found {
        match self.d.stride / LANES {
            1 => self.run::<1>(stage, f, scratch),
            2 => self.run::<2>(stage, f, scratch),
            3 => self.run::<3>(stage, f, scratch),
            4 => self.run::<4>(stage, f, scratch),
            5 => self.run::<5>(stage, f, scratch),
            6 => self.run::<6>(stage, f, scratch),
            7 => self.run::<7>(stage, f, scratch),
            8 => self.run::<8>(stage, f, scratch),
            _ => self.run::<0>(stage, f, scratch),
        }
    }

    fn run<const C: usize>(&self, stage: Stage, f: usize, scratch: &mut Scratch) -> Found {
        if self.avx2 {
            // SAFETY: `has_avx2` checked at run time that the CPU supports AVX2.
            unsafe { self.stage_avx2::<C>(stage, f, scratch) }
        } else {
            self.stage::<C>(stage, f, scratch)
        }
    }

    /// The same code as [`stage`](Self::stage) compiled for AVX2; IEEE operations and their
    /// order are unchanged (no FMA), so results are bit-identical.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn stage_avx2<const C: usize>(&self, stage: Stage, f: usize, scratch: &mut Scratch) -> Found {
        self.stage::<C>(stage, f, scratch)
    }

    #[cfg(not(target_arch = "x86_64"))]
    unsafe fn stage_avx2<const C: usize>(&self, stage: Stage, f: usize, scratch: &mut Scratch) -> Found {
        self.stage::<C>(stage, f, scratch)
    }

    #[inline(always)]
    fn stage<const C: usize>(&self, stage: Stage, f: usize, scratch: &mut Scratch) -> Found {
        let numeric = self.sorted(f);
        let tokens = || self.token_rows(f);
        match (stage, numeric) {
            (Stage::Screen, Some(col)) => Found { screened: self.numeric_screen::<C>(col, f, scratch), exact: None },
            (Stage::Screen, None) => {
                let (pos, neg) = self.token_sums::<C, f32>(tokens(), &self.d.neg32, scratch);
                let s = 2.0 * f64::from(split_z_screen(pos, neg, self.tot_pos32, self.tot_neg32));
                Found { screened: vec![Screened { feature: f, bin: 0, s }], exact: None }
            }
            (Stage::Exact(bins), Some(col)) => Found { screened: Vec::new(), exact: self.numeric_exact::<C>(col, f, bins, scratch) },
            (Stage::Exact(_), None) => {
                let (pos, neg) = self.token_sums::<C, f64>(tokens(), &self.d.neg, scratch);
                let z = 2.0 * split_z(pos, neg, self.tot_pos, self.tot_neg);
                Found { screened: Vec::new(), exact: Some(Candidate { z, feature: f, bin: 0 }) }
            }
        }
    }

    /// Sets `pos`/`neg` (one stride each) to the W₊ and W₋ of blocks `rows`, reading W₋ from
    /// `weights` (f64 or its f32 copy) and summing in f64. With C > 0 the C·LANES class sums
    /// stay in registers across blocks; C = 0 is the general fallback.
    #[inline(always)]
    fn accumulate<const C: usize, W: Weight>(&self, rows: &[u32], weights: &[W], pos: &mut [f64], neg: &mut [f64]) {
        let d = self.d;
        let s = d.stride;
        pos.fill(0.0);
        neg.fill(0.0);
        if C == 0 {
            for &r in rows {
                let i = r as usize;
                let (w, y) = W::positive(d, i);
                pos[y] += w;
                for (a, w) in neg.iter_mut().zip(&weights[i * s..(i + 1) * s]) {
                    *a += w.widen();
                }
            }
            return;
        }
        let mut acc = [[0.0f64; LANES]; C];
        for &r in rows {
            let i = r as usize;
            let (w, y) = W::positive(d, i);
            pos[y] += w;
            let row = &weights[i * s..i * s + C * LANES];
            for (a, x) in acc.iter_mut().zip(row.chunks_exact(LANES)) {
                for j in 0..LANES {
                    a[j] += x[j].widen();
                }
            }
        }
        for (out, a) in neg.chunks_exact_mut(LANES).zip(&acc) {
            out.copy_from_slice(a);
        }
    }

    /// W₊/W₋ of the blocks holding a token.
    #[inline(always)]
    fn token_sums<'s, const C: usize, W: Weight>(&self, rows: &[u32], weights: &[W], scratch: &'s mut Scratch) -> (&'s [f64], &'s [f64]) {
        let s = self.d.stride;
        let buf = &mut scratch.wide;
        buf.resize(2 * s, 0.0);
        let (pos, neg) = buf.split_at_mut(s);
        self.accumulate::<C, W>(rows, weights, pos, neg);
        (pos, neg)
    }

    /// Per cut of a numeric column, the W₊/W₋ left of it (prefix sums over bins, walking the
    /// blocks in the column's sorted order), plus the missing part; returns
    /// `(prefix rows, missing row)` of width 2·stride. The last prefix row is the non-missing
    /// total.
    #[inline(always)]
    fn numeric_prefix<'s, const C: usize, W: Weight>(&self, col: Sorted, weights: &[W], scratch: &'s mut Scratch) -> (&'s [f64], &'s [f64]) {
        let s = self.d.stride;
        let n_bins = col.n_bins();
        let width = 2 * s;
        let hist = &mut scratch.wide;
        // Every row is overwritten below, so no clearing is needed.
        hist.resize((n_bins + 1) * width, 0.0);
        let mut start = 0;
        for (b, &end) in col.bin_ends.iter().enumerate() {
            let (pos, neg) = hist[b * width..(b + 1) * width].split_at_mut(s);
            self.accumulate::<C, W>(&col.order[start..end], weights, pos, neg);
            start = end;
        }
        let (pos, neg) = hist[n_bins * width..(n_bins + 1) * width].split_at_mut(s);
        self.accumulate::<C, W>(&col.order[start..], weights, pos, neg);
        let (prefix, missing) = hist.split_at_mut(n_bins * width);
        for b in 1..n_bins {
            let (before, row) = prefix.split_at_mut(b * width);
            add_assign(&mut row[..width], &before[(b - 1) * width..]);
        }
        (prefix, missing)
    }

    /// Screening of every cut of a numeric column; keeps the cuts that may be its minimum.
    ///
    /// The part of the column with the most blocks ([`NumericColumn::largest`]: a bin, or the
    /// missing blocks) is never summed: most stylistic columns are one value on most blocks
    /// (no table, no layer, the page's normal font), so a column costs its other blocks only.
    /// When it is a bin, the cuts below it are read from the blocks below it (walking up) and
    /// the cuts above it from the blocks above it (walking down, Z being symmetric in the two
    /// sides); when it is the missing part, its weights are the round's totals minus the bins.
    /// Either way the other side of a cut is a difference from a total of the same f32
    /// weights, whose rounding the screening margin covers. The exact stage sums directly.
    #[inline(always)]
    fn numeric_screen<const C: usize>(&self, col: Sorted, feature: usize, scratch: &mut Scratch) -> Vec<Screened> {
        let n_bins = col.n_bins();
        if n_bins == 0 {
            return Vec::new();
        }
        let mut narrow = std::mem::take(&mut scratch.narrow);
        if C == 0 || col.largest >= n_bins {
            self.screen_from_parts::<C>(col, &mut narrow, scratch);
        } else {
            self.screen_around_largest_bin::<C>(col, &mut narrow, scratch);
        }
        let lowest = narrow.iter().copied().fold(f32::INFINITY, f32::min);
        let bound = screen_bound(2.0 * f64::from(lowest));
        let kept = narrow.iter().enumerate().map(|(bin, &z)| Screened { feature, bin, s: 2.0 * f64::from(z) }).filter(|c| survives(c.s, bound)).collect();
        scratch.narrow = narrow;
        kept
    }

    /// Screened Z/2 of every cut (into `narrow`) when the largest part is a bin, with C > 0:
    /// two passes with the running side's per-class sums in registers.
    #[inline(always)]
    fn screen_around_largest_bin<const C: usize>(&self, col: Sorted, narrow: &mut Vec<f32>, scratch: &mut Scratch) {
        let d = self.d;
        let s = d.stride;
        let n_bins = col.n_bins();
        let skip = col.largest;
        let last_end = col.bin_ends[n_bins - 1];
        let buf = &mut scratch.wide;
        buf.resize(4 * s, 0.0);
        let (missing, rest) = buf.split_at_mut(2 * s);
        let (tot, side_pos) = rest.split_at_mut(s);
        {
            let (mpos, mneg) = missing.split_at_mut(s);
            self.accumulate::<C, f32>(&col.order[last_end..], &d.neg32, mpos, mneg);
        }
        let z_missing = part_z_screen(&missing[..s], &missing[s..]);
        // Non-missing totals: the round's totals minus the missing part.
        let mut tot_neg = [[0.0f64; LANES]; C];
        for (l, t) in tot.iter_mut().enumerate() {
            *t = self.tot_pos32[l] - missing[l];
        }
        for (c, chunk) in tot_neg.iter_mut().enumerate() {
            for j in 0..LANES {
                chunk[j] = self.tot_neg32[c * LANES + j] - missing[s + c * LANES + j];
            }
        }
        // Adds blocks to a side: W₊ in `side_pos`, W₋ in registers.
        let add_rows = |rows: &[u32], side_pos: &mut [f64], side_neg: &mut [[f64; LANES]; C]| {
            for &r in rows {
                let i = r as usize;
                let (w, y) = d.pos32[i];
                side_pos[y as usize] += f64::from(w);
                let row = &d.neg32[i * s..i * s + C * LANES];
                for (a, x) in side_neg.iter_mut().zip(row.chunks_exact(LANES)) {
                    for j in 0..LANES {
                        a[j] += f64::from(x[j]);
                    }
                }
            }
        };
        narrow.clear();
        narrow.resize(n_bins, 0.0);
        // Walking up: the cuts after bins below the largest, from their left sides.
        side_pos.fill(0.0);
        let mut side_neg = [[0.0f64; LANES]; C];
        let mut start = 0;
        for (b, &end) in col.bin_ends[..skip].iter().enumerate() {
            add_rows(&col.order[start..end], side_pos, &mut side_neg);
            start = end;
            narrow[b] = screen_cut::<C>(side_pos, &side_neg, tot, &tot_neg) + z_missing;
        }
        // Walking down: the cuts after the largest bin and above, from their right sides.
        side_pos.fill(0.0);
        let mut side_neg = [[0.0f64; LANES]; C];
        narrow[n_bins - 1] = screen_cut::<C>(side_pos, &side_neg, tot, &tot_neg) + z_missing;
        for b in (skip..n_bins - 1).rev() {
            add_rows(&col.order[col.bin_ends[b]..col.bin_ends[b + 1]], side_pos, &mut side_neg);
            narrow[b] = screen_cut::<C>(side_pos, &side_neg, tot, &tot_neg) + z_missing;
        }
    }

    /// Screened Z/2 of every cut (into `narrow`) from per-part sums: every bin and the missing
    /// part summed, except the largest part, which is the totals minus the others.
    fn screen_from_parts<const C: usize>(&self, col: Sorted, narrow: &mut Vec<f32>, scratch: &mut Scratch) {
        let (s, width) = (self.d.stride, 2 * self.d.stride);
        let n_bins = col.n_bins();
        let parts = &mut scratch.wide;
        // Rows 0..n_bins: the bins; row n_bins: the missing blocks; then the running left part
        // and the non-missing totals.
        parts.resize((n_bins + 3) * width, 0.0);
        let (parts, rest) = parts.split_at_mut((n_bins + 1) * width);
        let skip = col.largest;
        let mut start = 0;
        for b in 0..=n_bins {
            let end = col.bin_ends.get(b).copied().unwrap_or(col.order.len());
            let (pos, neg) = parts[b * width..(b + 1) * width].split_at_mut(s);
            if b == skip {
                pos.fill(0.0);
                neg.fill(0.0);
            } else {
                self.accumulate::<C, f32>(&col.order[start..end], &self.d.neg32, pos, neg);
            }
            start = end;
        }
        // The largest part: the round's totals minus every other part.
        let (left, tot) = rest.split_at_mut(width);
        tot[..s].copy_from_slice(self.tot_pos32);
        tot[s..].copy_from_slice(self.tot_neg32);
        for (b, row) in parts.chunks_exact(width).enumerate() {
            if b != skip {
                for (t, x) in tot.iter_mut().zip(row) {
                    *t -= x;
                }
            }
        }
        // Rounding can leave a class that has no weight in the largest part a hair below 0.
        for (p, &t) in parts[skip * width..(skip + 1) * width].iter_mut().zip(tot.iter()) {
            *p = t.max(0.0);
        }
        let missing = &parts[n_bins * width..];
        let z_missing = part_z_screen(&missing[..s], &missing[s..]);
        // Non-missing totals, then the left part of each cut in turn.
        for (t, (&a, m)) in tot.iter_mut().zip(self.tot_pos32.iter().chain(self.tot_neg32.iter()).zip(missing)) {
            *t = a - m;
        }
        left.fill(0.0);
        narrow.clear();
        for row in parts[..n_bins * width].chunks_exact(width) {
            add_assign(left, row);
            narrow.push(split_z_screen(&left[..s], &left[s..], &tot[..s], &tot[s..]) + z_missing);
        }
    }

    /// f64 Z of the listed cuts of a numeric column; the lowest (lowest bin on ties).
    #[inline(always)]
    fn numeric_exact<const C: usize>(&self, col: Sorted, feature: usize, bins: &[usize], scratch: &mut Scratch) -> Option<Candidate> {
        let (s, width) = (self.d.stride, 2 * self.d.stride);
        let n_bins = col.n_bins();
        if n_bins == 0 {
            return None;
        }
        let (prefix, missing) = self.numeric_prefix::<C, f64>(col, &self.d.neg, scratch);
        let z_missing = part_z(&missing[..s], &missing[s..]);
        let total = &prefix[(n_bins - 1) * width..];
        let (tot_pos, tot_neg) = total.split_at(s);
        let mut best: Option<Candidate> = None;
        for &b in bins {
            let row = prefix.get(b * width..(b + 1) * width)?;
            let z = 2.0 * (split_z(&row[..s], &row[s..], tot_pos, tot_neg) + z_missing);
            // Strict `<` over increasing bins: among equal Z the lowest bin wins.
            if best.is_none_or(|c| z < c.z) {
                best = Some(Candidate { z, feature, bin: b });
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The bound that leaves token columns out is below the f64 Z of every token column's
    /// split, under uneven distributions (blocks' and classes' weights spread over 6 orders of
    /// magnitude, some classes without weight on one side).
    #[test]
    fn token_bound_is_below_every_token_split() {
        for seed in 0..20u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let (m, k) = (60, 5);
            let labels: Vec<usize> = (0..m).map(|_| rng.gen_range(0..k - 1)).collect();
            let weights: Vec<f64> = (0..m).map(|_| 10f64.powf(rng.gen_range(-6.0..0.0))).collect();
            let total: f64 = weights.iter().sum::<f64>() * k as f64;
            let mut d = Distribution::new(&labels, k, &weights.iter().map(|w| w / total).collect::<Vec<_>>());
            for w in d.neg.iter_mut() {
                *w *= 10f64.powf(rng.gen_range(-3.0..3.0));
            }
            // The totals of the scaled weights (the distribution's own were summed before).
            let s = d.stride;
            let (mut tot_pos, mut tot_neg) = (vec![0.0; s], vec![0.0; s]);
            for i in 0..m {
                tot_pos[d.labels[i]] += d.pos[i];
                add_assign(&mut tot_neg, &d.neg[i * s..(i + 1) * s]);
            }
            let bound = TokenBound::new(&tot_pos, &tot_neg, &d, None);
            for _ in 0..40 {
                let rows: Vec<u32> = (0..m as u32).filter(|_| rng.gen_bool(0.1)).collect();
                let (mut pos, mut neg) = (vec![0.0; s], vec![0.0; s]);
                for &r in &rows {
                    let i = r as usize;
                    pos[d.labels[i]] += d.pos[i];
                    add_assign(&mut neg, &d.neg[i * s..(i + 1) * s]);
                }
                let z = 2.0 * split_z(&pos, &neg, &tot_pos, &tot_neg);
                let lower = bound.lower(&rows);
                assert!(lower <= z + 1e-12, "seed {seed}: bound {lower} above Z {z} for {rows:?}");
            }
        }
    }
}
