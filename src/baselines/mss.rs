//! Maximum subsequence segmentation (seed `001`: Pasternack & Roth, *Extracting Article Text
//! from the Web with Maximum Subsequence Segmentation*, WWW 2009): the supervised algorithm of
//! its section 6.2.3 (`max-subsequence`) and the semi-supervised bootstrap of 6.2.4
//! (`max-subsequence-semi`).
//!
//! Each page is a sequence of tokens. A local Naïve Bayes classifier gives each token the
//! probability `p` that it is "in" the article text from two features (section 6.2): its
//! trigram ⟨uᵢ, uᵢ₊₁, uᵢ₊₂⟩ and its most recent unclosed tag; a trigram never seen in training
//! counts as equally likely for both labels (`P(t|in) = P(t|out)`). The token's score is
//! `p − 0.5`, and the article is the maximum subsequence of the scores (section 6.1, Figure 1:
//! the contiguous run with the largest sum, found in one pass, [`maximum_subsequence`]).
//!
//! Where we differ, and why:
//! - The paper's tokens are the page's words, symbols and tags; ours are, for each of our blocks
//!   in document order, one token standing for its opening tag (`<p>`) and then its
//!   whitespace-separated words, lower-cased (33 training pages give far fewer trigrams than
//!   24,000). The most recent unclosed tag of every token of a block is the block's innermost
//!   element, read from the DOM rather than from a tag stack.
//! - Feature likelihoods of seen values are add-one smoothed (the paper does not say how).
//! - The paper labels a page's tokens and scores words (precision and recall of the extracted
//!   words); the experiment scores blocks: a block is content when more than half of its tokens
//!   lie in the maximum subsequence. A content block gets the most frequent content class of
//!   the training side, any other block the most frequent not-content class (content is the
//!   training scheme's mapping to `binary`); scored in a binary report scheme
//!   (`configs/seed-baselines-binary.toml`) this is exactly the extractor's decision.
//! - Not implemented: the `<HR>` constraint (section 7.4).
//!
//! `max-subsequence-semi` adds the semi-supervised bootstrap of section 6.2.4 ([`bootstrap`])
//! on unlabelled pages U: the fold's pool (the config's `[pool]` pages) and its held-out pages
//! without their labels, as in the paper, whose U was its 250 evaluation pages and 250 more
//! from the same five sources (section 7) — transductive, the held-out labels never read.
//! Section 7.5's settings are the defaults (`[seed_systems.max_subsequence]`: 10 iterations,
//! the 60% most confident extractions as L, window w = 10, cutoff d = 64, constant c = 24).
//! Where it differs:
//! - L is the most confident share of the whole of U, not of each source: the paper had 100
//!   unlabelled pages per source, our pools have one or two pages per site (PARCELS-17's:
//!   150 pages from 124 sites), where a per-source share would keep or drop whole sources by
//!   rounding.
//! - The importance weight of a trigram is the mean of its tokens' weights (the paper's
//!   formula is written as a sum, but says the weights range from 0 to 1), and the score is
//!   `(p − 0.5)(m·c + 1)` (the paper prints `p · 0.5`, which is never negative and would make
//!   the maximum subsequence the whole page).
//! - The bootstrapped classifier uses trigrams only (step 3c says so), and no prior: our
//!   tokens are a block's words and one token for its tag, not every word, tag and script
//!   token of the page, so 55-60% of the tokens of L are "in"; with that prior every trigram
//!   the classifier never saw scores above 0, the extractions grow, and L follows them. On the
//!   117-page L3S-GN1 set of `seed-baselines-l3s-protocols` (fold 0) the mean extracted share
//!   of a page went from 0.49 to 1.00 in eight iterations; without the prior it settles at
//!   0.44 by the fifth. An unseen trigram now scores 0, as the paper means it to ("equally
//!   likely").
//! - The confidence `v` is the windowed one the paper uses, as a mean of logarithms (its n-th
//!   root of a product).

use std::collections::HashMap;

use super::blocks::{content_classes, failure, page_runs, representatives};
use super::settings::MssSettings;
use super::{Baseline, Fold};
use crate::dataset::BlockInfo;
use crate::train::TrainError;

/// Maximum subsequence segmentation with a token Naïve Bayes: supervised (section 6.2.3), or
/// with the semi-supervised bootstrap on the pool's pages (section 6.2.4) when `semi` is set.
pub struct MaxSubsequence {
    pub semi: bool,
}

/// A token's features: its trigram and its most recent unclosed tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFeatures {
    pub trigram: String,
    pub tag: String,
}

impl Baseline for MaxSubsequence {
    fn name(&self) -> &str {
        if self.semi {
            "max-subsequence-semi"
        } else {
            "max-subsequence"
        }
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let name = self.name();
        if fold.train_blocks.len() != fold.targets.len() || fold.test_blocks.len() != fold.test_pages.len() {
            return Err(failure(name, "the fold has no block information for some rows"));
        }
        let content = content_classes(fold.config, name)?;
        let is_content = |c: usize| content.get(c).copied().unwrap_or(false);
        let mut examples = Vec::new();
        for run in page_runs(fold.train_pages) {
            let (tokens, owner) = page_tokens(&fold.train_blocks[run.clone()]);
            examples.extend(tokens.into_iter().zip(owner).map(|(t, b)| (t, is_content(fold.targets[run.start + b]))));
        }
        let supervised = Scorer { nb: NaiveBayes::fit(&examples), importance: HashMap::new(), boost: 0.0 };
        let scorer = if self.semi {
            if fold.pool_blocks.len() != fold.pool_pages.len() || fold.pool_blocks.len() != fold.pool.n_rows() {
                return Err(failure(name, "the fold has no block information for the pool's rows"));
            }
            // U: the pool's pages and the held-out pages, unlabelled (section 7: the paper's U
            // held its 250 evaluation pages and 250 more of the same five sources).
            let unlabelled: Vec<Vec<TokenFeatures>> = page_runs(fold.pool_pages)
                .into_iter()
                .map(|run| page_tokens(&fold.pool_blocks[run]).0)
                .chain(page_runs(fold.test_pages).into_iter().map(|run| page_tokens(&fold.test_blocks[run]).0))
                .collect();
            bootstrap(supervised, &unlabelled, &fold.config.seed_systems.max_subsequence)
        } else {
            supervised
        };
        let [other, article] = representatives(fold.targets, &content);
        let mut predicted = vec![other; fold.test_blocks.len()];
        for run in page_runs(fold.test_pages) {
            let blocks = &fold.test_blocks[run.clone()];
            let (tokens, owner) = page_tokens(blocks);
            let scores: Vec<f64> = tokens.iter().map(|t| scorer.score(t)).collect();
            let inside = maximum_subsequence(&scores);
            for (b, c) in in_segment(blocks.len(), &owner, inside).into_iter().enumerate() {
                if c {
                    predicted[run.start + b] = article;
                }
            }
        }
        Ok(vec![predicted])
    }
}

/// The tokens of a page's blocks (in document order) with their features, and the block each
/// token belongs to.
pub fn page_tokens(blocks: &[BlockInfo]) -> (Vec<TokenFeatures>, Vec<usize>) {
    let mut words = Vec::new();
    let mut owner = Vec::new();
    let mut tags = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        let tag = if block.tag.is_empty() { "#document".to_string() } else { block.tag.clone() };
        words.push(format!("<{tag}>"));
        owner.push(b);
        tags.push(tag.clone());
        for w in block.text.split_whitespace() {
            words.push(w.to_lowercase());
            owner.push(b);
            tags.push(tag.clone());
        }
    }
    let at = |i: usize| words.get(i).map_or("</>", String::as_str);
    let tokens = (0..words.len()).map(|i| TokenFeatures { trigram: format!("{} {} {}", at(i), at(i + 1), at(i + 2)), tag: tags[i].clone() }).collect();
    (tokens, owner)
}

/// The blocks with more than half of their tokens inside the segment `inside` (a range of token
/// indices).
pub fn in_segment(n_blocks: usize, owner: &[usize], inside: Option<(usize, usize)>) -> Vec<bool> {
    let mut total = vec![0usize; n_blocks];
    let mut kept = vec![0usize; n_blocks];
    for (i, &b) in owner.iter().enumerate() {
        if b < n_blocks {
            total[b] += 1;
            if inside.is_some_and(|(a, z)| a <= i && i <= z) {
                kept[b] += 1;
            }
        }
    }
    (0..n_blocks).map(|b| 2 * kept[b] > total[b]).collect()
}

/// The maximum subsequence of `scores` (section 6.1, Figure 1): the first and last index of the
/// contiguous run with the largest sum (the earliest such run; a single element when every
/// score is negative); `None` for an empty sequence.
pub fn maximum_subsequence(scores: &[f64]) -> Option<(usize, usize)> {
    let mut best: Option<(f64, usize, usize)> = None;
    let (mut sum, mut start) = (0.0, 0);
    for (i, &s) in scores.iter().enumerate() {
        if sum <= 0.0 {
            sum = s;
            start = i;
        } else {
            sum += s;
        }
        if best.is_none_or(|(b, _, _)| sum > b) {
            best = Some((sum, start, i));
        }
    }
    best.map(|(_, a, z)| (a, z))
}

/// A token's score for the maximum subsequence: `p − 0.5` from a Naïve Bayes, multiplied by
/// `m_h · c + 1` with the importance weight `m_h` of the token's trigram (section 6.2.4; no
/// weights, or `c = 0`, is the supervised score).
#[derive(Debug, Clone)]
pub struct Scorer {
    pub nb: NaiveBayes,
    pub importance: HashMap<String, f64>,
    pub boost: f64,
}

impl Scorer {
    pub fn score(&self, t: &TokenFeatures) -> f64 {
        let m = self.importance.get(&t.trigram).copied().unwrap_or(0.0);
        (self.nb.probability_in(t) - 0.5) * (m * self.boost + 1.0)
    }
}

/// The semi-supervised bootstrap (section 6.2.4): the supervised scorer's extractions of the
/// unlabelled pages `pages` (each a page's tokens), then `iterations` times: keep the share
/// `select` of the pages whose extractions look most likely right ([`confidence`]), compute the
/// importance weights of their trigrams ([`importance_weights`]), train a trigram-only Naïve
/// Bayes on them (tokens inside their extraction are "in"), and extract every page again with
/// the new scorer. Returns the last scorer. Pages are ranked by confidence, ties by their order.
pub fn bootstrap(supervised: Scorer, pages: &[Vec<TokenFeatures>], settings: &MssSettings) -> Scorer {
    let mut scorer = supervised;
    let pages: Vec<&Vec<TokenFeatures>> = pages.iter().filter(|p| !p.is_empty()).collect();
    if pages.is_empty() {
        return scorer;
    }
    let keep = ((settings.select * pages.len() as f64).round() as usize).clamp(1, pages.len());
    for _ in 0..settings.iterations {
        // Step 2 / 3d: extract every unlabelled page with the current scorer.
        let extracted: Vec<(Vec<f64>, (usize, usize))> = pages
            .iter()
            .filter_map(|tokens| {
                let p: Vec<f64> = tokens.iter().map(|t| scorer.nb.probability_in(t)).collect();
                let scores: Vec<f64> = tokens.iter().map(|t| scorer.score(t)).collect();
                maximum_subsequence(&scores).map(|segment| (p, segment))
            })
            .collect();
        // Step 3a: the pages with the most confident extractions are L.
        let mut ranked: Vec<(usize, f64)> = extracted.iter().enumerate().map(|(i, (p, (j, k)))| (i, confidence(p, *j, *k, settings.window))).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let chosen: Vec<usize> = ranked.iter().take(keep).map(|&(i, _)| i).collect();
        // Steps 3b and 3c: importance weights and a trigram Naïve Bayes over L.
        let mut examples = Vec::new();
        let mut segments = Vec::new();
        for &i in &chosen {
            let (j, k) = extracted[i].1;
            let tokens = pages[i];
            examples.extend(tokens.iter().enumerate().map(|(t, f)| (TokenFeatures { trigram: f.trigram.clone(), tag: String::new() }, j <= t && t <= k)));
            segments.push((tokens.as_slice(), j, k));
        }
        scorer = Scorer { nb: NaiveBayes::fit_trigrams(&examples), importance: importance_weights(&segments, settings.cutoff), boost: settings.boost };
    }
    scorer
}

/// The windowed confidence of an extraction (section 6.2.4, the third score `v`): the
/// geometric mean of the probabilities Naïve Bayes gave the labels the extraction assigns, over
/// `w` tokens on each side of each border (`1 − p` outside, `p` inside; clipped at the page's
/// ends), as the mean of their logarithms. `p` is clamped to [10⁻¹², 1 − 10⁻¹²].
pub fn confidence(p: &[f64], j: usize, k: usize, w: usize) -> f64 {
    let clamp = |x: f64| x.clamp(1e-12, 1.0 - 1e-12);
    let mut sum = 0.0;
    let mut n = 0usize;
    let mut add = |i: usize, inside: bool| {
        if let Some(&x) = p.get(i) {
            sum += if inside { clamp(x).ln() } else { (1.0 - clamp(x)).ln() };
            n += 1;
        }
    };
    for i in j.saturating_sub(w)..j {
        add(i, false);
    }
    for i in j..(j + w).min(k + 1) {
        add(i, true);
    }
    for i in (k + 1).saturating_sub(w).max(j)..=k {
        add(i, true);
    }
    for i in k + 1..k + 1 + w {
        add(i, false);
    }
    if n == 0 {
        f64::NEG_INFINITY
    } else {
        sum / n as f64
    }
}

/// The importance weight of each trigram over extracted pages (`tokens`, first and last index
/// of the extraction): a token `t` at distance `δ = min(|t − (j − ½)|, |t − (k + ½)|) − ½` from
/// the nearer border weighs `(d − min(d, δ)) / d` (1 next to a border, 0 at `d` tokens or
/// more), and a trigram's weight is the mean over its tokens. The paper's formula sums over the
/// tokens yet says the weights range from 0 to 1: the mean is what keeps them there.
pub fn importance_weights(pages: &[(&[TokenFeatures], usize, usize)], cutoff: usize) -> HashMap<String, f64> {
    let d = cutoff as f64;
    let mut sums: HashMap<String, (f64, usize)> = HashMap::new();
    for &(tokens, j, k) in pages {
        for (t, f) in tokens.iter().enumerate() {
            let i = t as f64;
            let delta = ((i - (j as f64 - 0.5)).abs()).min((i - (k as f64 + 0.5)).abs()) - 0.5;
            let e = sums.entry(f.trigram.clone()).or_default();
            e.0 += (d - delta.min(d)) / d;
            e.1 += 1;
        }
    }
    sums.into_iter().map(|(h, (s, n))| (h, s / n as f64)).collect()
}

/// Naïve Bayes over a token's trigram and most recent unclosed tag, "in" against "out".
#[derive(Debug, Clone, Default)]
pub struct NaiveBayes {
    /// Tokens per label (out, in).
    tokens: [usize; 2],
    trigrams: HashMap<String, [usize; 2]>,
    tags: HashMap<String, [usize; 2]>,
    /// Leave the prior out (P(in) = P(out)): the bootstrap's classifier.
    uniform_prior: bool,
}

impl NaiveBayes {
    /// Counts the features of labelled tokens (`true`: in the article).
    pub fn fit(examples: &[(TokenFeatures, bool)]) -> NaiveBayes {
        let mut nb = NaiveBayes::default();
        for (t, label) in examples {
            let y = usize::from(*label);
            nb.tokens[y] += 1;
            nb.trigrams.entry(t.trigram.clone()).or_default()[y] += 1;
            nb.tags.entry(t.tag.clone()).or_default()[y] += 1;
        }
        nb
    }

    /// Counts only the trigrams of labelled tokens (the bootstrap's classifier, section 6.2.4
    /// step 3c): tags are never seen, so they count for neither label; and without a prior, so
    /// that a trigram never seen scores 0 (see the module docs).
    pub fn fit_trigrams(examples: &[(TokenFeatures, bool)]) -> NaiveBayes {
        let mut nb = NaiveBayes { uniform_prior: true, ..NaiveBayes::default() };
        for (t, label) in examples {
            let y = usize::from(*label);
            nb.tokens[y] += 1;
            nb.trigrams.entry(t.trigram.clone()).or_default()[y] += 1;
        }
        nb
    }

    /// P(in | trigram, tag): prior times add-one smoothed likelihoods of seen values; an unseen
    /// value is equally likely under both labels (left out).
    pub fn probability_in(&self, t: &TokenFeatures) -> f64 {
        let n = (self.tokens[0] + self.tokens[1]) as f64;
        if n == 0.0 {
            return 0.5;
        }
        let mut log = [0.0f64; 2];
        for y in 0..2 {
            log[y] = if self.uniform_prior { 0.0 } else { ((self.tokens[y] as f64 + 1.0) / (n + 2.0)).ln() };
            for (table, value) in [(&self.trigrams, &t.trigram), (&self.tags, &t.tag)] {
                if let Some(c) = table.get(value) {
                    log[y] += ((c[y] as f64 + 1.0) / (self.tokens[y] as f64 + table.len() as f64)).ln();
                }
            }
        }
        1.0 / (1.0 + (log[0] - log[1]).exp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tf(trigram: &str, tag: &str) -> TokenFeatures {
        TokenFeatures { trigram: trigram.into(), tag: tag.into() }
    }

    #[test]
    fn maximum_subsequence_of_six_scores() {
        // −1, 2, −1, 3, −5, 1: the best run is 2 − 1 + 3 = 4, tokens 1 to 3.
        assert_eq!(maximum_subsequence(&[-1.0, 2.0, -1.0, 3.0, -5.0, 1.0]), Some((1, 3)));
        // All negative: the largest single score.
        assert_eq!(maximum_subsequence(&[-3.0, -0.5, -2.0]), Some((1, 1)));
        // A later run only wins when strictly larger: 2 | −9 | 2 keeps the first.
        assert_eq!(maximum_subsequence(&[2.0, -9.0, 2.0]), Some((0, 0)));
        assert_eq!(maximum_subsequence(&[]), None);
    }

    #[test]
    fn naive_bayes_posteriors_by_hand() {
        // Tokens: (t1, p, in), (t1, p, in), (t2, a, out), (t3, p, out).
        let nb = NaiveBayes::fit(&[(tf("t1", "p"), true), (tf("t1", "p"), true), (tf("t2", "a"), false), (tf("t3", "p"), false)]);
        // Priors (2+1)/(4+2) each; 3 trigrams, 2 tags.
        // in: P(t1|in) = (2+1)/(2+3) = 3/5, P(p|in) = (2+1)/(2+2) = 3/4 → 9/20;
        // out: P(t1|out) = 1/5, P(p|out) = (1+1)/4 = 1/2 → 2/20; P(in) = 9/11.
        assert!((nb.probability_in(&tf("t1", "p")) - 9.0 / 11.0).abs() < 1e-12);
        // An unseen trigram counts for neither: P(a|in) = 1/4, P(a|out) = 2/4 → 1/3.
        assert!((nb.probability_in(&tf("never", "a")) - 1.0 / 3.0).abs() < 1e-12);
        // Nothing seen: the prior, 1/2.
        assert!((nb.probability_in(&tf("never", "div")) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn windowed_confidence_by_hand() {
        // Five tokens, extraction 2..=3, window 1: token 1 outside (1 − 0.2), token 2 inside
        // (0.9), token 3 inside (0.6), token 4 outside (1 − 0.5): mean of the logs.
        let p = [0.1, 0.2, 0.9, 0.6, 0.5];
        let expected = (0.8f64.ln() + 0.9f64.ln() + 0.6f64.ln() + 0.5f64.ln()) / 4.0;
        assert!((confidence(&p, 2, 3, 1) - expected).abs() < 1e-12);
        // At the page's start the window is clipped: extraction 0..=0, window 2: tokens 0
        // (inside, counted from each border) and 1, 2 outside.
        let expected = (2.0 * 0.1f64.ln() + 0.8f64.ln() + 0.1f64.ln()) / 4.0;
        assert!((confidence(&p, 0, 0, 2) - expected).abs() < 1e-12);
    }

    #[test]
    fn importance_weights_by_hand() {
        // Six tokens, extraction 2..=3, cutoff d = 2. Distances to the nearer border (at 1.5
        // and 3.5) minus ½: token 0: 1, token 1: 0, 2: 0, 3: 0, 4: 0, 5: 1. Weights (2 − δ)/2:
        // ½, 1, 1, 1, 1, ½. Trigrams a a b b c a: a = (½ + 1 + ½)/3 = 2/3, b = 1, c = 1.
        let tokens: Vec<TokenFeatures> = ["a", "a", "b", "b", "c", "a"].iter().map(|h| tf(h, "p")).collect();
        let m = importance_weights(&[(&tokens, 2, 3)], 2);
        assert!((m["a"] - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!((m["b"], m["c"]), (1.0, 1.0));
        // d tokens or more from a border weigh 0: token 0 with d = 1 (δ = 1).
        let m = importance_weights(&[(&tokens[..1], 2, 3)], 1);
        assert_eq!(m["a"], 0.0);
        // The score multiplies p − 0.5 by m·c + 1: a seen-in-training "b" token with m = 1, c = 2.
        let nb = NaiveBayes::fit_trigrams(&[(tf("b", ""), true), (tf("x", ""), false)]);
        // P(in | b): priors ½ each; P(b|in) = 2/3, P(b|out) = 1/3 → 2/3.
        assert!((nb.probability_in(&tf("b", "p")) - 2.0 / 3.0).abs() < 1e-12, "tags are not features");
        let scorer = Scorer { nb, importance: [("b".to_string(), 1.0)].into_iter().collect(), boost: 2.0 };
        assert!((scorer.score(&tf("b", "p")) - (2.0 / 3.0 - 0.5) * 3.0).abs() < 1e-12);
    }

    /// The bootstrap learns a trigram the labelled pages never showed: the supervised scorer
    /// finds the article on unlabelled pages by their tag, the bootstrapped one by its words.
    #[test]
    fn bootstrap_learns_from_the_unlabelled_pages() {
        // Labelled: "p" tokens in, "a" tokens out (unseen trigrams count for neither).
        let labelled: Vec<(TokenFeatures, bool)> = (0..4).flat_map(|i| [(tf(&format!("l{i}"), "p"), true), (tf(&format!("m{i}"), "a"), false)]).collect();
        let supervised = Scorer { nb: NaiveBayes::fit(&labelled), importance: HashMap::new(), boost: 0.0 };
        // Unlabelled pages: menu (a) then story (p), with trigrams "menu" and "story".
        let page: Vec<TokenFeatures> = (0..3).map(|_| tf("menu", "a")).chain((0..3).map(|_| tf("story", "p"))).collect();
        let settings = MssSettings { iterations: 2, select: 0.5, window: 2, cutoff: 4, boost: 1.0 };
        let boot = bootstrap(supervised.clone(), &[page.clone(), page.clone()], &settings);
        // Supervised: "story" unknown, only the tag speaks; bootstrapped: the trigram alone.
        assert!(boot.nb.probability_in(&tf("story", "div")) > 0.7);
        assert!(boot.nb.probability_in(&tf("menu", "div")) < 0.3);
        assert!((supervised.nb.probability_in(&tf("story", "div")) - 0.5).abs() < 1e-12);
        assert_eq!(boot.nb.probability_in(&tf("never", "p")), 0.5);
        // Without a prior: three "in" tokens and one "out" leave an unseen trigram at ½, where
        // the supervised classifier's prior says (3 + 1)/(4 + 2) = 2/3.
        let ex = [(tf("x", "p"), true), (tf("y", "p"), true), (tf("z", "p"), true), (tf("w", "p"), false)];
        assert_eq!(NaiveBayes::fit_trigrams(&ex).probability_in(&tf("never", "q")), 0.5);
        assert!((NaiveBayes::fit(&ex).probability_in(&tf("never", "q")) - 2.0 / 3.0).abs() < 1e-12);
        // No unlabelled page: the supervised scorer comes back.
        assert_eq!(bootstrap(supervised.clone(), &[], &settings).boost, 0.0);
    }

    #[test]
    fn tokens_and_blocks_of_a_page() {
        let b = |text: &str, tag: &str| BlockInfo { text: text.into(), tag: tag.into(), ..BlockInfo::default() };
        let (tokens, owner) = page_tokens(&[b("Home", "a"), b("The Cat sat", "p")]);
        assert_eq!(owner, vec![0, 0, 1, 1, 1, 1]);
        assert_eq!(tokens[0], tf("<a> home <p>", "a"));
        assert_eq!(tokens[3], tf("the cat sat", "p"));
        assert_eq!(tokens[5], tf("sat </> </>", "p"));
        // Segment over tokens 1..=3: block 0 has 1 of 2 inside (not more than half), block 1
        // has 2 of 4 (not more than half either); tokens 2..=5 take block 1 whole.
        assert_eq!(in_segment(2, &owner, Some((1, 3))), vec![false, false]);
        assert_eq!(in_segment(2, &owner, Some((2, 5))), vec![false, true]);
        assert_eq!(in_segment(2, &owner, None), vec![false, false]);
    }
}
