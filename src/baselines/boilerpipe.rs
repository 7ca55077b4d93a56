//! Boilerpipe's shallow text features with a decision tree, and Viveros-Jiménez et al.'s
//! ancestor-group filter (seed paper `002`: *Improving the Boilerpipe Algorithm for Boilerplate
//! Removal in News Articles Using HTML Tree Structure*, Computación y Sistemas 22(2), 2018).
//!
//! Section 3 of the paper describes Boilerpipe (Kohlschütter et al. 2010): every text block is
//! classified on its own from structural features (headline, `p`, `div` and `a` tags), shallow
//! text features (average word and sentence length, number of words, absolute and relative
//! position), link density and text density, of the block and of its neighbours. We compute,
//! for the block before, the block itself and the block after (zeros past the page's ends):
//! - words; link density (words inside links ÷ words);
//! - text density: Boilerpipe's words per wrapped line, the text wrapped at 80 columns and the
//!   last (partial) line left out unless it is the only one ([`text_density`]);
//!
//! and for the block itself: average word length, average sentence length, absolute and
//! relative position on its page, and whether its innermost element is a heading, `p`, `div`,
//! `a`, `li` or `td`. A decision tree ([`linfa_trees`], entropy splits, at least two training
//! blocks per leaf, no depth limit: C4.5's defaults, as Kohlschütter et al. used Weka's J48)
//! learns the training scheme's classes.
//!
//! Section 4 is the paper's own step, `boilerpipe-filter`: of the blocks the tree keeps as
//! article content, group those that share the same `n`-th ancestor and keep only the group
//! with the most text ([`keep_largest_group`]); `n` = 2 (grandparents), the best depth of its
//! Table 2.
//!
//! Where we differ, and why:
//! - Boilerpipe classifies text nodes as content or not; we classify our divider's blocks into
//!   the config's training scheme (17 classes for PARCELS-17). Content for the filter is the
//!   scheme's mapping to `binary` (`configs/mappings/`); a block the filter drops gets the most
//!   frequent not-content class of the training side. Scored in a binary report scheme
//!   (`configs/seed-baselines-binary.toml`) this is exactly the paper's decision.
//! - The paper's "paragraph" (step 1: the closest `div`, `table`, `ul`, `ol`, `p`, `section`,
//!   `article`, `h1`–`h6`, `header` or `body`) is our block's container (its closest structural
//!   ancestor in the divider's inventory), and ancestors are steps up its element path.
//! - The paper scores characters (precision/recall/F1 over gold characters); the experiment
//!   scores blocks.
//! - Boilerpipe's capitalisation, date and "special character" features and its corpus-level
//!   text-fragment frequencies are left out.
//! - linfa-trees 0.8 breaks ties between equally frequent classes in a leaf in `HashMap` order
//!   (seeded per process), so a block or two can move between runs.

use std::collections::BTreeMap;

use linfa::dataset::DatasetBase;
use linfa::traits::{Fit, Predict};
use linfa_trees::{DecisionTree, SplitQuality};
use ndarray::{Array1, Array2};

use super::blocks::{content_classes, failure, page_runs, representatives};
use super::{Baseline, Fold};
use crate::dataset::BlockInfo;
use crate::train::TrainError;

/// Boilerpipe's tree, with the paper's ancestor filter when `filter_depth` is set.
pub struct Boilerpipe {
    /// The ancestor level the filter groups by (1 = parent, 2 = grandparent); `None`: no filter.
    pub filter_depth: Option<usize>,
}

/// The paper's best ancestor level (Table 2: grandparents).
pub const FILTER_DEPTH: usize = 2;

/// Boilerpipe's line width for text density.
pub const WRAP_COLUMNS: usize = 80;

/// Number of features per block ([`features`]).
pub const N_FEATURES: usize = 3 * 3 + 4 + 6;

impl Baseline for Boilerpipe {
    fn name(&self) -> &str {
        if self.filter_depth.is_some() {
            "boilerpipe-filter"
        } else {
            "boilerpipe"
        }
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let name = self.name();
        if fold.train_blocks.len() != fold.targets.len() || fold.test_blocks.len() != fold.test_pages.len() {
            return Err(failure(name, "the fold has no block information for some rows"));
        }
        let xtr = features(fold.train_blocks, fold.train_pages);
        let xte = features(fold.test_blocks, fold.test_pages);
        let data = DatasetBase::new(xtr, Array1::from(fold.targets.to_vec()));
        let tree = DecisionTree::params().split_quality(SplitQuality::Entropy).min_weight_leaf(2.0).max_depth(None).fit(&data).map_err(|e| failure(name, e))?;
        let mut predicted = tree.predict(&xte).to_vec();
        if let Some(depth) = self.filter_depth {
            let content = content_classes(fold.config, name)?;
            let [other, _] = representatives(fold.targets, &content);
            for run in page_runs(fold.test_pages) {
                let kept: Vec<bool> = run.clone().map(|i| content.get(predicted[i]).copied().unwrap_or(false)).collect();
                let keep = keep_largest_group(&fold.test_blocks[run.clone()], &kept, depth);
                for (j, i) in run.enumerate() {
                    if kept[j] && !keep[j] {
                        predicted[i] = other;
                    }
                }
            }
        }
        Ok(vec![predicted])
    }
}

/// Boilerpipe's text density: the text wrapped at [`WRAP_COLUMNS`], words in all lines but the
/// last divided by their number; a text on one line: its words.
pub fn text_density(text: &str) -> f64 {
    let mut lines: Vec<usize> = Vec::new(); // words per line
    let mut width = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if lines.is_empty() || (width > 0 && width + 1 + len > WRAP_COLUMNS) {
            lines.push(0);
            width = 0;
        }
        width += if width == 0 { len } else { len + 1 };
        if let Some(l) = lines.last_mut() {
            *l += 1;
        }
    }
    match lines.len() {
        0 => 0.0,
        1 => lines[0] as f64,
        n => lines[..n - 1].iter().sum::<usize>() as f64 / (n - 1) as f64,
    }
}

/// Words inside links ÷ words (0 for a block without words).
fn link_density(b: &BlockInfo) -> f64 {
    if b.words == 0 {
        0.0
    } else {
        (b.link_words as f64 / b.words as f64).min(1.0)
    }
}

/// The shallow features of each block ([`N_FEATURES`] columns; see the module docs), with
/// neighbours taken on the same page.
pub fn features(blocks: &[BlockInfo], pages: &[usize]) -> Array2<f64> {
    let mut x = Array2::zeros((blocks.len(), N_FEATURES));
    for run in page_runs(pages) {
        let n = run.len();
        for (k, i) in run.clone().enumerate() {
            let mut row = Vec::with_capacity(N_FEATURES);
            for j in [i.checked_sub(1).filter(|_| k > 0), Some(i), Some(i + 1).filter(|_| k + 1 < n)] {
                match j.map(|j| &blocks[j]) {
                    Some(b) => row.extend([b.words as f64, link_density(b), text_density(&b.text)]),
                    None => row.extend([0.0, 0.0, 0.0]),
                }
            }
            let b = &blocks[i];
            let words: Vec<&str> = b.text.split_whitespace().collect();
            let letters: usize = words.iter().map(|w| w.chars().count()).sum();
            let sentences = b.text.matches(['.', '!', '?']).count().max(1);
            row.push(if words.is_empty() { 0.0 } else { letters as f64 / words.len() as f64 });
            row.push(words.len() as f64 / sentences as f64);
            row.push(k as f64);
            row.push(if n > 1 { k as f64 / (n - 1) as f64 } else { 0.0 });
            let tag = b.tag.as_str();
            let heading = tag.len() == 2 && tag.starts_with('h') && tag[1..].chars().all(|c| ('1'..='6').contains(&c));
            for on in [heading, tag == "p", tag == "div", tag == "a", tag == "li", tag == "td"] {
                row.push(f64::from(u8::from(on)));
            }
            for (c, v) in row.into_iter().enumerate() {
                x[[i, c]] = v;
            }
        }
    }
    x
}

/// The ancestor `depth` steps above an element path (`/html[1]/body[1]/div[2]` → `/html[1]` for
/// depth 2); the root when the path is shorter.
pub fn ancestor(path: &str, depth: usize) -> &str {
    let mut end = path.len();
    for _ in 0..depth {
        match path[..end].rfind('/') {
            Some(i) => end = i,
            None => return "",
        }
    }
    &path[..end]
}

/// Section 4's filter on one page: of the blocks marked `kept`, group those whose containers
/// share the ancestor `depth` steps up, and keep only the group with the most text (characters;
/// the earliest group on ties). Blocks not kept stay out.
pub fn keep_largest_group(blocks: &[BlockInfo], kept: &[bool], depth: usize) -> Vec<bool> {
    let mut text: BTreeMap<&str, (usize, usize)> = BTreeMap::new(); // ancestor → (chars, first block)
    for (i, b) in blocks.iter().enumerate().filter(|(i, _)| kept.get(*i).copied().unwrap_or(false)) {
        let e = text.entry(ancestor(&b.container, depth)).or_insert((0, i));
        e.0 += b.text.chars().count();
    }
    let best = text.iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1))).map(|(k, _)| *k);
    blocks.iter().enumerate().map(|(i, b)| kept.get(i).copied().unwrap_or(false) && Some(ancestor(&b.container, depth)) == best).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str, container: &str, words: usize, link_words: usize, tag: &str) -> BlockInfo {
        BlockInfo { text: text.into(), container: container.into(), words, link_words, tag: tag.into(), ..BlockInfo::default() }
    }

    #[test]
    fn text_density_leaves_out_the_last_wrapped_line() {
        assert_eq!(text_density(""), 0.0);
        assert_eq!(text_density("three short words"), 3.0);
        // 30 words of 4 letters: 16 fit in 80 columns (16×4 + 15 spaces = 79), then 14 on the
        // last line, which is left out: 16 words / 1 line.
        let long = vec!["word"; 30].join(" ");
        assert_eq!(text_density(&long), 16.0);
        // 40 words: lines of 16, 16, 8 → (16 + 16) / 2.
        let longer = vec!["word"; 40].join(" ");
        assert_eq!(text_density(&longer), 16.0);
    }

    #[test]
    fn features_take_neighbours_on_the_same_page_only() {
        let blocks = [block("a b", "/x", 2, 2, "a"), block("c d e f", "/y", 4, 1, "p"), block("g", "/z", 1, 0, "h2")];
        let x = features(&blocks, &[0, 0, 1]);
        // Block 1: previous = block 0 (2 words, link density 1, density 2), itself (4, 0.25, 4),
        // no next (page 1 starts at block 2).
        assert_eq!(x.row(1).to_vec()[..9], [2.0, 1.0, 2.0, 4.0, 0.25, 4.0, 0.0, 0.0, 0.0]);
        // Average word length 1, 4 words in 1 "sentence", position 1 of 2 (relative 1), tag p.
        assert_eq!(x.row(1).to_vec()[9..], [1.0, 4.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
        // Block 2 alone on its page: no neighbours, heading.
        assert_eq!(x[[2, 0]], 0.0);
        assert_eq!(x[[2, 13]], 1.0);
    }

    #[test]
    fn ancestor_steps_up_the_element_path() {
        assert_eq!(ancestor("/html[1]/body[1]/div[2]/p[3]", 2), "/html[1]/body[1]");
        assert_eq!(ancestor("/html[1]/body[1]/div[2]/p[3]", 1), "/html[1]/body[1]/div[2]");
        assert_eq!(ancestor("/html[1]", 3), "");
    }

    #[test]
    fn the_filter_keeps_the_group_with_most_text() {
        // Two paragraphs under article/div (40 chars together), one long teaser under aside/ul
        // (30 chars), one block not kept by the tree.
        let blocks = [
            block(&"x".repeat(30), "/html[1]/body[1]/aside[1]/ul[1]/li[1]", 0, 0, "li"),
            block(&"y".repeat(20), "/html[1]/body[1]/article[1]/div[1]/p[1]", 0, 0, "p"),
            block(&"z".repeat(20), "/html[1]/body[1]/article[1]/div[1]/p[2]", 0, 0, "p"),
            block(&"w".repeat(99), "/html[1]/body[1]/article[1]/div[1]/p[3]", 0, 0, "p"),
        ];
        let kept = [true, true, true, false];
        // Grandparents: /html/body/aside (30) against /html/body/article (40).
        assert_eq!(keep_largest_group(&blocks, &kept, 2), vec![false, true, true, false]);
        // Depth 4 (body for all): one group; the unkept block stays out.
        assert_eq!(keep_largest_group(&blocks, &kept, 4), vec![true, true, true, false]);
    }
}
