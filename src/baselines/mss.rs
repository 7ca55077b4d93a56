//! Maximum subsequence segmentation (seed `001`: Pasternack & Roth, *Extracting Article Text
//! from the Web with Maximum Subsequence Segmentation*, WWW 2009), the supervised algorithm of
//! its section 6.2.3.
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
//! - Not implemented: the `<HR>` constraint (section 7.4) and the semi-supervised bootstrap on
//!   unlabelled pages (section 6.2.4), which needs the pool's block texts in the fold.

use std::collections::HashMap;

use super::blocks::{content_classes, failure, page_runs, representatives};
use super::{Baseline, Fold};
use crate::dataset::BlockInfo;
use crate::train::TrainError;

/// Supervised maximum subsequence segmentation with a token Naïve Bayes.
pub struct MaxSubsequence;

/// A token's features: its trigram and its most recent unclosed tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFeatures {
    pub trigram: String,
    pub tag: String,
}

impl Baseline for MaxSubsequence {
    fn name(&self) -> &str {
        "max-subsequence"
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
        let nb = NaiveBayes::fit(&examples);
        let [other, article] = representatives(fold.targets, &content);
        let mut predicted = vec![other; fold.test_blocks.len()];
        for run in page_runs(fold.test_pages) {
            let blocks = &fold.test_blocks[run.clone()];
            let (tokens, owner) = page_tokens(blocks);
            let scores: Vec<f64> = tokens.iter().map(|t| nb.probability_in(t) - 0.5).collect();
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

/// Naïve Bayes over a token's trigram and most recent unclosed tag, "in" against "out".
#[derive(Debug, Clone, Default)]
pub struct NaiveBayes {
    /// Tokens per label (out, in).
    tokens: [usize; 2],
    trigrams: HashMap<String, [usize; 2]>,
    tags: HashMap<String, [usize; 2]>,
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

    /// P(in | trigram, tag): prior times add-one smoothed likelihoods of seen values; an unseen
    /// value is equally likely under both labels (left out).
    pub fn probability_in(&self, t: &TokenFeatures) -> f64 {
        let n = (self.tokens[0] + self.tokens[1]) as f64;
        if n == 0.0 {
            return 0.5;
        }
        let mut log = [0.0f64; 2];
        for y in 0..2 {
            log[y] = ((self.tokens[y] as f64 + 1.0) / (n + 2.0)).ln();
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
