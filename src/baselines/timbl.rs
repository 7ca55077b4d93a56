//! Memory-based learning as in the TiMBL thesis (seed `000`: separating content from noise on
//! news websites with the Tilburg Memory-Based Learner): IB1, the k-nearest-neighbour
//! classifier over a weighted overlap metric, with gain-ratio feature weights (the thesis's
//! default TiMBL setting, section 6.1), or information gain or χ² (section 3, equations 3.1–3.7).
//!
//! Features (thesis chapter 5), for each block from a window over its page's blocks in
//! document order (`_` past the page's ends):
//! - HTML structure: the tags of the 5 blocks before, the block and the 5 after (11 symbolic);
//! - length: the text lengths of the 3 before, the block and the 3 after (7 numeric);
//! - dots: whether each of those 7 texts ends a sentence (`.`, `?`, `!`, a closing quote) (7
//!   symbolic);
//! - upper case: whether more than 70% of the block's letters are capitals (1 symbolic).
//!
//! Distance (equations 3.1, 3.2, 3.6): Σ wᵢ δ(xᵢ, yᵢ), δ = 0/1 on symbolic features and
//! |x − y| / (max − min) on numeric ones. Weights (3.3–3.5, and χ²): computed on the training
//! blocks, numeric features discretised into [`NUMERIC_BINS`] equal-width bins first (TiMBL's
//! default). IB1's `k` counts nearest *distances*, as TiMBL does: every training block at one
//! of the `k` smallest distances votes; ties go to the class most frequent in training, then the
//! lowest index.
//!
//! Where we differ, and why:
//! - The thesis labels lxml elements and keeps an element's *text* and its *tail* apart (14
//!   length and 14 dot features); a block of ours is one text, so we have 7 of each and one
//!   upper-case feature: 26 features, not 41.
//! - A block's tag is the innermost element holding all its text, not the element the thesis's
//!   instance stands for.
//! - Lengths are ln(1 + characters): the thesis does not say how TiMBL read them; raw lengths
//!   would put nearly every block into the lowest of 20 equal-width bins.
//! - Its protocols: *across sites* is `split = "site"`, *merged* is `split = "page"` over a
//!   corpus with several pages per site; *within one site* (train and test on one site's pages)
//!   is not an experiment option yet. The thesis scores title, heading and body F1; the
//!   experiment scores blocks in the config's scheme.

use std::collections::BTreeMap;

use super::blocks::{failure, page_runs};
use super::{Baseline, Fold};
use crate::dataset::BlockInfo;
use crate::train::TrainError;

/// How features are weighted (thesis section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighting {
    /// Information gain divided by split info (TiMBL's default).
    GainRatio,
    InformationGain,
    /// The χ² statistic of the feature's values against the classes.
    ChiSquare,
}

/// IB1 with `k` nearest distances and a feature weighting.
pub struct Timbl {
    pub k: usize,
    pub weighting: Weighting,
}

/// TiMBL's default number of bins for weighting numeric features.
pub const NUMERIC_BINS: usize = 20;

/// Tags before and after the block (thesis: 5), and lengths and dots (3).
pub const TAG_WINDOW: usize = 5;
pub const TEXT_WINDOW: usize = 3;

/// Share of capitals above which a text is "in upper letters" (thesis chapter 5: 70%).
pub const UPPER_SHARE: f64 = 0.7;

/// A feature's kind: symbolic values are compared for equality, numeric ones by distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Symbolic,
    Numeric,
}

/// Instances: one row of values per block (symbolic values as ids), and each feature's kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Instances {
    pub rows: Vec<Vec<f64>>,
    pub kinds: Vec<Kind>,
}

impl Baseline for Timbl {
    fn name(&self) -> &str {
        match self.weighting {
            Weighting::GainRatio => "timbl",
            Weighting::InformationGain => "timbl-ig",
            Weighting::ChiSquare => "timbl-chi2",
        }
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        if fold.train_blocks.len() != fold.targets.len() || fold.test_blocks.len() != fold.test_pages.len() {
            return Err(failure(self.name(), "the fold has no block information for some rows"));
        }
        let mut symbols = BTreeMap::new();
        let train = instances(fold.train_blocks, fold.train_pages, &mut symbols);
        let test = instances(fold.test_blocks, fold.test_pages, &mut symbols);
        let model = Ib1::fit(train, fold.targets, fold.n_classes, self.weighting, self.k);
        Ok(vec![test.rows.iter().map(|r| model.classify(r)).collect()])
    }
}

/// The thesis's window features of each block (see the module docs); `symbols` numbers the
/// symbolic values (shared between training and held-out blocks).
pub fn instances(blocks: &[BlockInfo], pages: &[usize], symbols: &mut BTreeMap<String, usize>) -> Instances {
    let mut id = |s: &str| -> f64 {
        let n = symbols.len();
        *symbols.entry(s.to_string()).or_insert(n) as f64
    };
    let mut rows = vec![Vec::new(); blocks.len()];
    for run in page_runs(pages) {
        let at = |k: usize, d: isize| -> Option<&BlockInfo> {
            let j = k as isize + d;
            (j >= 0 && (j as usize) < run.len()).then(|| &blocks[run.start + j as usize])
        };
        for k in 0..run.len() {
            let row = &mut rows[run.start + k];
            let (tw, xw) = (TAG_WINDOW as isize, TEXT_WINDOW as isize);
            for d in -tw..=tw {
                row.push(id(&at(k, d).map_or("_".to_string(), |b| format!("tag={}", b.tag))));
            }
            for d in -xw..=xw {
                row.push(at(k, d).map_or(0.0, |b| (1.0 + b.text.chars().count() as f64).ln()));
            }
            for d in -xw..=xw {
                row.push(id(at(k, d).map_or("_", |b| if ends_sentence(&b.text) { "dot" } else { "no-dot" })));
            }
            let b = &blocks[run.start + k];
            row.push(id(if upper_case(&b.text) { "upper" } else { "lower" }));
        }
    }
    let window = 2 * TAG_WINDOW + 1;
    let text = 2 * TEXT_WINDOW + 1;
    let kinds = std::iter::repeat_n(Kind::Symbolic, window)
        .chain(std::iter::repeat_n(Kind::Numeric, text))
        .chain(std::iter::repeat_n(Kind::Symbolic, text + 1))
        .collect();
    Instances { rows, kinds }
}

/// Whether a text ends a sentence: its last character is `.`, `?`, `!` or a closing quote.
fn ends_sentence(text: &str) -> bool {
    text.trim_end().chars().last().is_some_and(|c| matches!(c, '.' | '?' | '!' | '"' | '\'' | '”' | '’' | '»'))
}

/// Whether more than [`UPPER_SHARE`] of a text's letters are capitals.
fn upper_case(text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let upper = text.chars().filter(|c| c.is_uppercase()).count();
    letters > 0 && upper as f64 > UPPER_SHARE * letters as f64
}

/// A fitted IB1: the training instances, their classes, the feature weights and ranges.
pub struct Ib1 {
    train: Instances,
    targets: Vec<usize>,
    weights: Vec<f64>,
    ranges: Vec<f64>,
    /// Classes by training frequency (most frequent first, lowest index on ties), for ties.
    prior_rank: Vec<usize>,
    k: usize,
}

impl Ib1 {
    /// Stores the instances and computes the feature weights.
    pub fn fit(train: Instances, targets: &[usize], n_classes: usize, weighting: Weighting, k: usize) -> Ib1 {
        let n_features = train.kinds.len();
        let mut weights = Vec::with_capacity(n_features);
        let mut ranges = Vec::with_capacity(n_features);
        for f in 0..n_features {
            let column: Vec<f64> = train.rows.iter().map(|r| r[f]).collect();
            let (lo, hi) = column.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            let range = if hi > lo { hi - lo } else { 0.0 };
            let values: Vec<i64> = match train.kinds[f] {
                Kind::Symbolic => column.iter().map(|&v| v as i64).collect(),
                Kind::Numeric if range > 0.0 => {
                    column.iter().map(|&v| (((v - lo) / range * NUMERIC_BINS as f64) as i64).min(NUMERIC_BINS as i64 - 1)).collect()
                }
                Kind::Numeric => vec![0; column.len()],
            };
            weights.push(weight(&values, targets, n_classes, weighting));
            ranges.push(range);
        }
        let mut counts = vec![0usize; n_classes];
        for &t in targets {
            if let Some(c) = counts.get_mut(t) {
                *c += 1;
            }
        }
        let mut prior: Vec<usize> = (0..n_classes).collect();
        prior.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
        let mut prior_rank = vec![0; n_classes];
        for (r, &c) in prior.iter().enumerate() {
            prior_rank[c] = r;
        }
        Ib1 { train, targets: targets.to_vec(), weights, ranges, prior_rank, k: k.max(1) }
    }

    /// The feature weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Weighted overlap distance between two instances (equation 3.6).
    pub fn distance(&self, x: &[f64], y: &[f64]) -> f64 {
        let mut d = 0.0;
        for f in 0..self.weights.len() {
            let delta = match self.train.kinds[f] {
                Kind::Symbolic => f64::from(u8::from(x[f] != y[f])),
                Kind::Numeric if self.ranges[f] > 0.0 => ((x[f] - y[f]).abs() / self.ranges[f]).min(1.0),
                Kind::Numeric => f64::from(u8::from(x[f] != y[f])),
            };
            d += self.weights[f] * delta;
        }
        d
    }

    /// The majority class of the training instances at the `k` nearest distances.
    pub fn classify(&self, x: &[f64]) -> usize {
        let mut nearest: Vec<(f64, Vec<usize>)> = Vec::with_capacity(self.k + 1); // distance → classes
        for (r, row) in self.train.rows.iter().enumerate() {
            let d = self.distance(x, row);
            match nearest.iter().position(|(e, _)| d <= *e) {
                Some(i) if nearest[i].0 == d => nearest[i].1.push(self.targets[r]),
                Some(i) => {
                    nearest.insert(i, (d, vec![self.targets[r]]));
                    nearest.truncate(self.k);
                }
                None if nearest.len() < self.k => nearest.push((d, vec![self.targets[r]])),
                None => {}
            }
        }
        let mut votes: BTreeMap<usize, usize> = BTreeMap::new();
        for &c in nearest.iter().flat_map(|(_, cs)| cs) {
            *votes.entry(c).or_default() += 1;
        }
        let rank = |c: usize| self.prior_rank.get(c).copied().unwrap_or(usize::MAX);
        votes
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(rank(b.0).cmp(&rank(a.0))))
            .map_or(self.prior_rank.iter().position(|&r| r == 0).unwrap_or(0), |(c, _)| c)
    }
}

/// Entropy (bits) of counts.
fn entropy(counts: impl Iterator<Item = usize> + Clone) -> f64 {
    let n: usize = counts.clone().sum();
    if n == 0 {
        return 0.0;
    }
    counts.filter(|&c| c > 0).map(|c| c as f64 / n as f64).map(|p| -p * p.log2()).sum()
}

/// A feature's weight from its (discrete) values and the classes (thesis equations 3.3–3.5).
pub fn weight(values: &[i64], targets: &[usize], n_classes: usize, weighting: Weighting) -> f64 {
    let n = values.len();
    if n == 0 {
        return 0.0;
    }
    let mut table: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    let mut class_counts = vec![0usize; n_classes];
    for (&v, &c) in values.iter().zip(targets) {
        let row = table.entry(v).or_insert_with(|| vec![0; n_classes]);
        if c < n_classes {
            row[c] += 1;
            class_counts[c] += 1;
        }
    }
    match weighting {
        Weighting::InformationGain | Weighting::GainRatio => {
            let h_c = entropy(class_counts.iter().copied());
            let conditional: f64 = table.values().map(|row| row.iter().sum::<usize>() as f64 / n as f64 * entropy(row.iter().copied())).sum();
            let ig = h_c - conditional;
            if weighting == Weighting::InformationGain {
                return ig.max(0.0);
            }
            let split_info = entropy(table.values().map(|row| row.iter().sum::<usize>()));
            if split_info > 0.0 {
                (ig / split_info).max(0.0)
            } else {
                0.0
            }
        }
        Weighting::ChiSquare => {
            let mut chi = 0.0;
            for row in table.values() {
                let row_total = row.iter().sum::<usize>() as f64;
                for (c, &observed) in row.iter().enumerate() {
                    let expected = row_total * class_counts[c] as f64 / n as f64;
                    if expected > 0.0 {
                        chi += (observed as f64 - expected).powi(2) / expected;
                    }
                }
            }
            chi
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The 4-row table: feature A separates the classes, feature B is noise.
    //   A  B  class
    //   x  p  0
    //   x  q  0
    //   y  p  1
    //   y  q  1
    #[test]
    fn weights_on_a_four_row_table() {
        let classes = [0, 0, 1, 1];
        let a = [0, 0, 1, 1];
        let b = [0, 1, 0, 1];
        // H(C) = 1 bit; A leaves no uncertainty: IG = 1, split info = 1, GR = 1.
        assert!((weight(&a, &classes, 2, Weighting::InformationGain) - 1.0).abs() < 1e-12);
        assert!((weight(&a, &classes, 2, Weighting::GainRatio) - 1.0).abs() < 1e-12);
        // B: each value holds one of each class: IG = 0.
        assert!(weight(&b, &classes, 2, Weighting::GainRatio).abs() < 1e-12);
        // χ² of A: expected 1 in each of the 4 cells, observed 2, 0, 0, 2: 4 × 1 = 4.
        assert!((weight(&a, &classes, 2, Weighting::ChiSquare) - 4.0).abs() < 1e-12);
        // A three-valued feature x, x, y, z: every value is pure, so IG = 1; split info =
        // H(2/4, 1/4, 1/4) = 1.5 bits: GR = 1 / 1.5 (gain ratio penalises the extra value).
        let c = [0, 0, 1, 2];
        assert!((weight(&c, &classes, 2, Weighting::GainRatio) - 1.0 / 1.5).abs() < 1e-12);
        // x, y, x, y against 0, 0, 1, 1: IG = 0 (each value half and half).
        assert!(weight(&[0, 1, 0, 1], &classes, 2, Weighting::InformationGain).abs() < 1e-12);
    }

    #[test]
    fn ib1_follows_the_weighted_feature() {
        let rows = vec![vec![0.0, 0.0], vec![0.0, 1.0], vec![1.0, 0.0], vec![1.0, 1.0]];
        let train = Instances { rows, kinds: vec![Kind::Symbolic, Kind::Symbolic] };
        let m = Ib1::fit(train, &[0, 0, 1, 1], 2, Weighting::GainRatio, 1);
        assert_eq!(m.weights(), &[1.0, 0.0]);
        // A new instance with A = y and B = p: distance 0 to rows 2 and 3 (class 1), 1 to the others.
        assert_eq!(m.distance(&[1.0, 0.0], &[0.0, 0.0]), 1.0);
        assert_eq!(m.classify(&[1.0, 0.0]), 1);
        assert_eq!(m.classify(&[0.0, 7.0]), 0);
    }

    #[test]
    fn numeric_distance_is_scaled_by_the_range() {
        // One numeric feature 0, 1, 3, 4 → classes 0, 0, 1, 1; range 4.
        let rows = vec![vec![0.0], vec![1.0], vec![3.0], vec![4.0]];
        let m = Ib1::fit(Instances { rows, kinds: vec![Kind::Numeric] }, &[0, 0, 1, 1], 2, Weighting::GainRatio, 1);
        // Bins of width 0.2: 0, 5, 15, 19 (4 → clamped to 19): 4 values, IG = 1, split info = 2:
        // GR = 0.5.
        assert!((m.weights()[0] - 0.5).abs() < 1e-12);
        assert!((m.distance(&[2.0], &[0.0]) - 0.5 * 0.5).abs() < 1e-12);
        assert_eq!(m.classify(&[2.6]), 1);
        // 2.0 is equally far from 1 and 3: one vote each, the tie goes to the more frequent
        // class in training (both 2: lowest index).
        assert_eq!(m.classify(&[2.0]), 0);
    }

    #[test]
    fn k_counts_distances_not_neighbours() {
        // Distances from the query: rows 0 and 1 at 0 (class 1), row 2 at 1 (class 0) x3.
        let rows = vec![vec![0.0], vec![0.0], vec![1.0], vec![1.0], vec![1.0]];
        let m = Ib1::fit(Instances { rows, kinds: vec![Kind::Symbolic] }, &[1, 1, 0, 0, 0], 2, Weighting::InformationGain, 2);
        // k = 2: both distances vote: 2 × class 1, 3 × class 0.
        assert_eq!(m.classify(&[0.0]), 0);
        let m1 = Ib1::fit(Instances { rows: m.train.rows.clone(), kinds: vec![Kind::Symbolic] }, &[1, 1, 0, 0, 0], 2, Weighting::InformationGain, 1);
        assert_eq!(m1.classify(&[0.0]), 1);
    }

    #[test]
    fn window_features_stop_at_the_page_end() {
        let b = |text: &str, tag: &str| BlockInfo { text: text.into(), tag: tag.into(), ..BlockInfo::default() };
        let blocks = [b("HEADLINE", "h1"), b("Some text.", "p"), b("menu", "a")];
        let mut symbols = BTreeMap::new();
        let x = instances(&blocks, &[0, 0, 1], &mut symbols);
        assert_eq!(x.rows[0].len(), 26);
        let name = |v: f64| symbols.iter().find(|(_, &i)| i as f64 == v).map(|(s, _)| s.clone()).unwrap_or_default();
        // Block 1: tags … _, h1, p, _ …; its own length ln(11); dot; not upper case.
        assert_eq!(name(x.rows[1][4]), "tag=h1");
        assert_eq!(name(x.rows[1][5]), "tag=p");
        assert_eq!(name(x.rows[1][6]), "_");
        assert!((x.rows[1][11 + 3] - 11f64.ln()).abs() < 1e-12);
        assert_eq!(name(x.rows[1][18 + 3]), "dot");
        assert_eq!(name(x.rows[1][25]), "lower");
        assert_eq!(name(x.rows[0][25]), "upper");
        // Block 2 is alone on page 1: everything around it is "_" or 0.
        assert_eq!(name(x.rows[2][4]), "_");
        assert_eq!(x.rows[2][11 + 2], 0.0);
    }
}
