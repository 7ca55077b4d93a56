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
//! - Its three protocols (section 1 and chapter 6) are baselines, each trained per held-out
//!   site on the fold's training side: `timbl-within-site` on the training pages of the held-out
//!   page's own site (6.2), `timbl` on all of them (6.3, "merging domains"),
//!   `timbl-across-site` on all but its site's (6.4). The thesis cross-validates by file, so
//!   the three compare on a config with `split = "page"` over a corpus with several pages per
//!   site (L3S-GN1: `configs/seed-baselines-l3s-protocols.toml`). With `split = "site"` the
//!   training side never holds the held-out site, so `timbl` is already across sites and
//!   `timbl-within-site` has nothing to learn from: it is refused with an error naming the
//!   cause, as on PARCELS-17 (one page per site), never scored on an empty memory.
//! - The thesis scores title, heading and body F1; the experiment scores blocks in the
//!   config's scheme.
//!
//! Speed (exact): identical training rows are stored once with all their classes, the distance
//! is summed heaviest feature first and a row is given up once it is farther than the `k`-th
//! nearest distance so far, and held-out rows are classified in parallel. `seed_systems.timbl.
//! max_train` can cap the memory at a seeded sample (0, the default, keeps every block).

use std::collections::BTreeMap;

use rayon::prelude::*;

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

/// Which training blocks classify a held-out page (thesis section 1 and chapter 6): its site's
/// only (6.2, "within a single news domain"), all of them (6.3, "merging domains"), or all but
/// its site's (6.4, "across news domains").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    WithinSite,
    Merged,
    AcrossSite,
}

/// IB1 with `k` nearest distances, a feature weighting and a protocol.
pub struct Timbl {
    pub k: usize,
    pub weighting: Weighting,
    pub protocol: Protocol,
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
        match (self.weighting, self.protocol) {
            (Weighting::GainRatio, Protocol::Merged) => "timbl",
            (Weighting::InformationGain, Protocol::Merged) => "timbl-ig",
            (Weighting::ChiSquare, Protocol::Merged) => "timbl-chi2",
            (Weighting::GainRatio, Protocol::WithinSite) => "timbl-within-site",
            (Weighting::InformationGain, Protocol::WithinSite) => "timbl-ig-within-site",
            (Weighting::ChiSquare, Protocol::WithinSite) => "timbl-chi2-within-site",
            (Weighting::GainRatio, Protocol::AcrossSite) => "timbl-across-site",
            (Weighting::InformationGain, Protocol::AcrossSite) => "timbl-ig-across-site",
            (Weighting::ChiSquare, Protocol::AcrossSite) => "timbl-chi2-across-site",
        }
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let name = self.name();
        if fold.train_blocks.len() != fold.targets.len()
            || fold.test_blocks.len() != fold.test_pages.len()
            || fold.train_sites.len() != fold.targets.len()
            || fold.test_sites.len() != fold.test_pages.len()
        {
            return Err(failure(name, "the fold has no block information for some rows"));
        }
        let mut symbols = BTreeMap::new();
        let train = instances(fold.train_blocks, fold.train_pages, &mut symbols);
        let test = instances(fold.test_blocks, fold.test_pages, &mut symbols);
        let max_train = fold.config.seed_systems.timbl.max_train;
        let mut predicted = vec![0; test.rows.len()];
        // One memory per held-out site (one for the whole fold when merged).
        let mut by_site: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, &s) in fold.test_sites.iter().enumerate() {
            by_site.entry(if self.protocol == Protocol::Merged { 0 } else { s }).or_default().push(i);
        }
        for (&site, held) in &by_site {
            let rows = memory_rows(self.protocol, fold.train_sites, site);
            if rows.is_empty() {
                return Err(failure(
                    name,
                    match self.protocol {
                        Protocol::WithinSite => "a held-out page's site has no page on the training side: the within-site protocol needs a corpus with several pages per site and evaluation.split = \"page\" (PARCELS-17 has one page per site; with split = \"site\" no site is ever on both sides)",
                        _ => "no training block is left for a held-out site",
                    },
                ));
            }
            let rows = sample_rows(rows, max_train, fold.seed ^ site as u64);
            let memory = Instances { rows: rows.iter().map(|&r| train.rows[r].clone()).collect(), kinds: train.kinds.clone() };
            let targets: Vec<usize> = rows.iter().map(|&r| fold.targets[r]).collect();
            let model = Ib1::fit(memory, &targets, fold.n_classes, self.weighting, self.k);
            let classes: Vec<usize> = held.par_iter().map(|&i| model.classify(&test.rows[i])).collect();
            for (&i, c) in held.iter().zip(classes) {
                predicted[i] = c;
            }
        }
        Ok(vec![predicted])
    }
}

/// The training rows (by their sites) that classify a held-out site's pages under a protocol.
pub fn memory_rows(protocol: Protocol, train_sites: &[usize], site: usize) -> Vec<usize> {
    (0..train_sites.len())
        .filter(|&r| match protocol {
            Protocol::Merged => true,
            Protocol::WithinSite => train_sites[r] == site,
            Protocol::AcrossSite => train_sites[r] != site,
        })
        .collect()
}

/// At most `max` of `rows` (all when `max` is 0 or there are no more), drawn with `seed`, in
/// their order.
pub fn sample_rows(rows: Vec<usize>, max: usize, seed: u64) -> Vec<usize> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    if max == 0 || rows.len() <= max {
        return rows;
    }
    let mut drawn = rows;
    drawn.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    drawn.truncate(max);
    drawn.sort_unstable();
    drawn
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

/// A fitted IB1: the training instances (identical ones stored once with their classes), the
/// feature weights and ranges.
pub struct Ib1 {
    kinds: Vec<Kind>,
    /// Distinct training rows and the classes of the instances behind each (one entry per
    /// instance, so each still votes).
    memory: Vec<(Vec<f64>, Vec<usize>)>,
    weights: Vec<f64>,
    ranges: Vec<f64>,
    /// Features with a positive weight, heaviest first (lowest index on ties): the order the
    /// distance is summed in, so that a row can be given up as soon as it is farther than the
    /// `k`-th nearest distance so far.
    order: Vec<usize>,
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
        let mut order: Vec<usize> = (0..n_features).filter(|&f| weights[f] > 0.0).collect();
        order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]).then(a.cmp(&b)));
        // Identical rows are one memory entry with all their classes: the same votes at the
        // same distance, computed once.
        let mut index: std::collections::HashMap<Vec<u64>, usize> = std::collections::HashMap::new();
        let mut memory: Vec<(Vec<f64>, Vec<usize>)> = Vec::new();
        for (row, &t) in train.rows.into_iter().zip(targets) {
            let key: Vec<u64> = row.iter().map(|v| v.to_bits()).collect();
            match index.get(&key) {
                Some(&m) => memory[m].1.push(t),
                None => {
                    index.insert(key, memory.len());
                    memory.push((row, vec![t]));
                }
            }
        }
        Ib1 { kinds: train.kinds, memory, weights, ranges, order, prior_rank, k: k.max(1) }
    }

    /// The feature weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Distinct training rows in memory.
    pub fn distinct_rows(&self) -> usize {
        self.memory.len()
    }

    fn delta(&self, f: usize, x: f64, y: f64) -> f64 {
        match self.kinds[f] {
            Kind::Symbolic => f64::from(u8::from(x != y)),
            Kind::Numeric if self.ranges[f] > 0.0 => ((x - y).abs() / self.ranges[f]).min(1.0),
            Kind::Numeric => f64::from(u8::from(x != y)),
        }
    }

    /// Weighted overlap distance between two instances (equation 3.6), summed heaviest feature
    /// first; `None` as soon as it exceeds `bound`.
    fn bounded_distance(&self, x: &[f64], y: &[f64], bound: f64) -> Option<f64> {
        let mut d = 0.0;
        for &f in &self.order {
            d += self.weights[f] * self.delta(f, x[f], y[f]);
            if d > bound {
                return None;
            }
        }
        Some(d)
    }

    /// Weighted overlap distance between two instances (equation 3.6).
    pub fn distance(&self, x: &[f64], y: &[f64]) -> f64 {
        self.bounded_distance(x, y, f64::INFINITY).unwrap_or(f64::INFINITY)
    }

    /// The majority class of the training instances at the `k` nearest distances. Exact: a row
    /// is given up only once its partial distance exceeds the `k`-th nearest distance found.
    pub fn classify(&self, x: &[f64]) -> usize {
        let mut nearest: Vec<(f64, Vec<usize>)> = Vec::with_capacity(self.k + 1); // distance → classes
        for (row, classes) in &self.memory {
            let bound = if nearest.len() == self.k { nearest[self.k - 1].0 } else { f64::INFINITY };
            let Some(d) = self.bounded_distance(x, row, bound) else { continue };
            match nearest.iter().position(|(e, _)| d <= *e) {
                Some(i) if nearest[i].0 == d => nearest[i].1.extend_from_slice(classes),
                Some(i) => {
                    nearest.insert(i, (d, classes.clone()));
                    nearest.truncate(self.k);
                }
                None if nearest.len() < self.k => nearest.push((d, classes.clone())),
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
        let m1 = Ib1::fit(
            Instances { rows: vec![vec![0.0], vec![0.0], vec![1.0], vec![1.0], vec![1.0]], kinds: vec![Kind::Symbolic] },
            &[1, 1, 0, 0, 0],
            2,
            Weighting::InformationGain,
            1,
        );
        assert_eq!(m1.classify(&[0.0]), 1);
    }

    /// The pruned, deduplicated IB1 against a brute-force reference on 200 seeded rows:
    /// the same class for every query.
    #[test]
    fn pruned_ib1_equals_brute_force() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(20);
        let kinds = vec![Kind::Symbolic, Kind::Symbolic, Kind::Numeric];
        let row = |rng: &mut rand::rngs::StdRng| vec![rng.gen_range(0..3) as f64, rng.gen_range(0..2) as f64, rng.gen_range(0..5) as f64];
        let rows: Vec<Vec<f64>> = (0..200).map(|_| row(&mut rng)).collect();
        let targets: Vec<usize> = rows.iter().map(|r| usize::from(r[0] == 1.0 || r[2] > 3.0) + usize::from(r[1] == 1.0 && r[0] == 2.0)).collect();
        for k in [1, 3] {
            let m = Ib1::fit(Instances { rows: rows.clone(), kinds: kinds.clone() }, &targets, 3, Weighting::GainRatio, k);
            assert!(m.distinct_rows() <= 30, "3 × 2 × 5 distinct rows at most");
            for _ in 0..50 {
                let q = row(&mut rng);
                // Brute force: every row's distance, the k smallest distinct distances vote.
                let d: Vec<f64> = rows.iter().map(|r| m.distance(&q, r)).collect();
                let mut ds = d.clone();
                ds.sort_by(f64::total_cmp);
                ds.dedup();
                let cut = ds[(k - 1).min(ds.len() - 1)];
                let mut votes = [0usize; 3];
                for (i, &x) in d.iter().enumerate() {
                    if x <= cut {
                        votes[targets[i]] += 1;
                    }
                }
                let best = *votes.iter().max().unwrap();
                let expected = (0..3).filter(|&c| votes[c] == best).min_by_key(|&c| m.prior_rank[c]).unwrap();
                assert_eq!(m.classify(&q), expected, "query {q:?}, k = {k}");
            }
        }
    }

    #[test]
    fn protocols_pick_the_training_sites() {
        // Training rows of sites 0, 0, 1, 2, 1; a held-out page of site 1.
        let sites = [0, 0, 1, 2, 1];
        assert_eq!(memory_rows(Protocol::WithinSite, &sites, 1), [2, 4]);
        assert_eq!(memory_rows(Protocol::AcrossSite, &sites, 1), [0, 1, 3]);
        assert_eq!(memory_rows(Protocol::Merged, &sites, 1), [0, 1, 2, 3, 4]);
        // A site absent from training (folds by site, or PARCELS-17's one page per site):
        // within-site has nothing, which predict refuses.
        assert!(memory_rows(Protocol::WithinSite, &sites, 7).is_empty());
    }

    #[test]
    fn sampling_keeps_order_and_is_seeded() {
        let rows: Vec<usize> = (0..10).collect();
        assert_eq!(sample_rows(rows.clone(), 0, 1), rows);
        assert_eq!(sample_rows(rows.clone(), 20, 1), rows);
        let s = sample_rows(rows.clone(), 4, 7);
        assert_eq!(s.len(), 4);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sample_rows(rows, 4, 7), s);
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
