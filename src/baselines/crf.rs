//! A linear-chain conditional random field over blocks (seed `003`: Gibson, Wellner & Lubar,
//! *Adaptive Web-page Content Identification*, WIDM 2007), trained with [`crfs`] (a pure-Rust
//! port of CRFsuite, MIT): each page's blocks in document order are one sequence (section 5),
//! the model has state features (block predicate × label) and label-to-label transitions
//! (section 4.1), and it is trained by L-BFGS on the log-likelihood with a Gaussian prior of
//! σ = 100 (CRFsuite's `c2` = 1 / (2σ²)), the setting of the paper's best system on its
//! strictest split (Table 1, "No Duplicates, Separate Sources"). Decoding is Viterbi.
//!
//! Block predicates, after section 6.1's feature types:
//! - words: a case-insensitive bag of words (counts);
//! - title casing: every word starts with a capital, or some word starts in lower case;
//! - anchor percentage: the share of the block's words inside links;
//! - ancestor tags: the parent and grandparent tags of the block's container;
//! - descendant tags: the block's innermost element, and whether it holds a link;
//! - sibling tags: the innermost elements of the previous and next blocks;
//! - word count: ln(1 + words);
//! - after image: the previous block is an image (or another object without words);
//! - with `history` (the paper's H option, section 7): every predicate of the previous block
//!   again, prefixed `PREV-`.
//!
//! Where we differ, and why:
//! - Named entities (no tagger here) and title matching (the fold has no page `<title>`) are
//!   left out, as is the edge-feature option E (CRFsuite has no predicate × label-pair
//!   features).
//! - The paper labels Content / NotContent; we label the config's training scheme (17 classes
//!   for PARCELS-17). Its blocks are runs of words between non-inline tags, close to ours.
//! - Its protocol, "No Duplicates, Separate Sources" (section 7): sources are kept apart by
//!   the experiment's folds (`split = "site"`; PARCELS-17 has one page per site, so its folds by
//!   page are folds by source). Duplicates: the paper annotated pairs of duplicate articles by
//!   hand and, where a pair crossed the split, removed half from training and half from test.
//!   We find them by text shingles ([`near_duplicates`]: `seed_systems.crf.shingle` words per
//!   shingle, a training page whose article content has `near_duplicate` or more of its
//!   shingles inside one held-out page is a near duplicate) and remove them from the CRF's
//!   training side only, so that every learner is scored on the same held-out blocks. On by
//!   default (`seed_systems.crf.dedup`); the training article is the page's blocks of content
//!   classes (the scheme's mapping to `binary`), read from training labels only.
//! - Its document-level measures (a page counts when every block is right) are not in the
//!   experiment's reports; they score blocks.
//! - Training stops after [`MAX_ITERATIONS`] L-BFGS iterations at the latest (CRFsuite's
//!   default is unbounded), to bound a fold's time.

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};

use crfs::{Attribute, Model, Trainer};

use super::blocks::{content_classes, failure, page_runs};
use super::settings::CrfSettings;
use super::{Baseline, Fold};
use crate::dataset::BlockInfo;
use crate::train::TrainError;

/// The linear-chain CRF, with the paper's history predicates when `history` is set.
pub struct Crf {
    pub history: bool,
}

/// The Gaussian prior's σ of the paper's best system on separate sources (Table 1).
pub const SIGMA: f64 = 100.0;

/// The most L-BFGS iterations a fold's training runs.
pub const MAX_ITERATIONS: usize = 300;

/// Numbers the model files of concurrent folds.
static MODEL_FILES: AtomicUsize = AtomicUsize::new(0);

impl Baseline for Crf {
    fn name(&self) -> &str {
        if self.history {
            "crf-history"
        } else {
            "crf"
        }
    }

    fn predict(&self, fold: &Fold) -> Result<Vec<Vec<usize>>, TrainError> {
        let name = self.name();
        if fold.train_blocks.len() != fold.targets.len() || fold.test_blocks.len() != fold.test_pages.len() {
            return Err(failure(name, "the fold has no block information for some rows"));
        }
        let c2 = 1.0 / (2.0 * SIGMA * SIGMA);
        let mut trainer = Trainer::lbfgs().with_c2(c2).and_then(|t| t.with_max_iterations(MAX_ITERATIONS)).map_err(|e| failure(name, e))?;
        let runs = page_runs(fold.train_pages);
        let kept = training_pages(fold, &runs, name)?;
        for run in runs.into_iter().zip(kept).filter_map(|(run, keep)| keep.then_some(run)) {
            let xseq = sequence(&fold.train_blocks[run.clone()], self.history);
            let yseq: Vec<String> = fold.targets[run].iter().map(usize::to_string).collect();
            trainer.append(&xseq, &yseq).map_err(|e| failure(name, e))?;
        }
        // crfs writes its model to a file; a private temporary one, read back and removed.
        let path = std::env::temp_dir().join(format!("parcels-{name}-{}-{}.crfsuite", std::process::id(), MODEL_FILES.fetch_add(1, Ordering::Relaxed)));
        let trained = trainer.train(&path).and_then(|()| std::fs::read(&path));
        let _ = std::fs::remove_file(&path);
        let bytes = trained.map_err(|e| failure(name, format!("{}: {e}", path.display())))?;
        let model = Model::new(&bytes).map_err(|e| failure(name, e))?;
        let tagger = model.tagger().map_err(|e| failure(name, e))?;
        let fallback = crate::eval::majority(fold.targets, fold.n_classes);
        let mut predicted = vec![fallback; fold.test_blocks.len()];
        for run in page_runs(fold.test_pages) {
            let xseq = sequence(&fold.test_blocks[run.clone()], self.history);
            let labels = tagger.tag(&xseq).map_err(|e| failure(name, e))?;
            for (i, l) in run.zip(labels) {
                predicted[i] = l.parse().unwrap_or(fallback);
            }
        }
        Ok(vec![predicted])
    }
}

/// Which training pages (`runs` of the fold's training rows) the CRF trains on: all of them,
/// or, with `seed_systems.crf.dedup`, those that near-duplicate no held-out page. Refuses a fold
/// whose every training page would go.
fn training_pages(fold: &Fold, runs: &[std::ops::Range<usize>], name: &str) -> Result<Vec<bool>, TrainError> {
    let settings = &fold.config.seed_systems.crf;
    if !settings.dedup {
        return Ok(vec![true; runs.len()]);
    }
    let content = content_classes(fold.config, name)?;
    let dropped = duplicate_training_pages(fold.train_blocks, fold.targets, runs, fold.test_blocks, fold.test_pages, &content, settings);
    if dropped.iter().all(|&d| d) {
        return Err(failure(name, "every training page near-duplicates a held-out page (seed_systems.crf.near_duplicate)"));
    }
    Ok(dropped.into_iter().map(|d| !d).collect())
}

/// Which training pages (`runs` of the training rows) near-duplicate a held-out page
/// ([`near_duplicates`] on each training page's article, its blocks of a `content` class, and
/// each held-out page's whole text).
pub fn duplicate_training_pages(
    train_blocks: &[BlockInfo],
    targets: &[usize],
    runs: &[std::ops::Range<usize>],
    test_blocks: &[BlockInfo],
    test_pages: &[usize],
    content: &[bool],
    settings: &CrfSettings,
) -> Vec<bool> {
    let train: Vec<Vec<&str>> = runs
        .iter()
        .map(|run| run.clone().filter(|&r| content.get(targets[r]).copied().unwrap_or(false)).flat_map(|r| train_blocks[r].text.split_whitespace()).collect())
        .collect();
    let test: Vec<Vec<&str>> = page_runs(test_pages).into_iter().map(|run| test_blocks[run].iter().flat_map(|b| b.text.split_whitespace()).collect()).collect();
    near_duplicates(&train, &test, settings.shingle, settings.near_duplicate)
}

/// The shingles of a text: every run of `w` consecutive words, lower-cased and stripped of
/// punctuation at their ends (words left empty are dropped), hashed. A text of fewer than `w`
/// words has none.
pub fn shingles(words: &[&str], w: usize) -> HashSet<u64> {
    let words: Vec<String> = words.iter().map(|x| x.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).filter(|x| !x.is_empty()).collect();
    if w == 0 {
        return HashSet::new();
    }
    words
        .windows(w)
        .map(|s| {
            let mut h = std::hash::DefaultHasher::new();
            s.hash(&mut h);
            h.finish()
        })
        .collect()
}

/// Which training texts near-duplicate some held-out text (Gibson et al. section 7, "No
/// Duplicates": no article on both sides): the share of a training text's `w`-word shingles
/// found among one held-out text's shingles (containment) reaches `threshold`. Containment
/// rather than resemblance because the training side is a page's article and the held-out
/// side a whole page, boilerplate included. A training text without shingles is never one.
pub fn near_duplicates(train: &[Vec<&str>], test: &[Vec<&str>], w: usize, threshold: f64) -> Vec<bool> {
    let held: Vec<HashSet<u64>> = test.iter().map(|t| shingles(t, w)).collect();
    train
        .iter()
        .map(|t| {
            let s = shingles(t, w);
            !s.is_empty() && held.iter().any(|h| s.iter().filter(|x| h.contains(x)).count() as f64 >= threshold * s.len() as f64)
        })
        .collect()
}

/// The predicates of one block (see the module docs), before history.
pub fn predicates(blocks: &[BlockInfo], i: usize) -> Vec<Attribute> {
    let b = &blocks[i];
    let mut words: BTreeMap<String, f64> = BTreeMap::new();
    for w in b.text.split_whitespace() {
        *words.entry(format!("w={}", w.to_lowercase())).or_default() += 1.0;
    }
    let mut out: Vec<Attribute> = words.into_iter().map(|(w, n)| Attribute::new(w, n)).collect();
    let initials: Vec<char> = b.text.split_whitespace().filter_map(|w| w.chars().find(|c| c.is_alphabetic())).collect();
    if !initials.is_empty() && initials.iter().all(|c| c.is_uppercase()) {
        out.push(Attribute::new("title-case", 1.0));
    }
    if initials.iter().any(|c| c.is_lowercase()) {
        out.push(Attribute::new("lower-case-word", 1.0));
    }
    if b.words > 0 {
        out.push(Attribute::new("anchor", (b.link_words as f64 / b.words as f64).min(1.0)));
    }
    let mut path = b.tag_path.rsplit('/').filter(|s| !s.is_empty());
    out.push(Attribute::new(format!("parent={}", path.next().unwrap_or("#document")), 1.0));
    out.push(Attribute::new(format!("grandparent={}", path.next().unwrap_or("#document")), 1.0));
    out.push(Attribute::new(format!("tag={}", b.tag), 1.0));
    if b.link_words > 0 {
        out.push(Attribute::new("has-link", 1.0));
    }
    let tag_of = |j: Option<usize>| j.and_then(|j| blocks.get(j)).map_or("none", |x| x.tag.as_str());
    out.push(Attribute::new(format!("prev-tag={}", tag_of(i.checked_sub(1))), 1.0));
    out.push(Attribute::new(format!("next-tag={}", tag_of(Some(i + 1))), 1.0));
    out.push(Attribute::new("word-count", (1.0 + b.words as f64).ln()));
    if i > 0 && blocks[i - 1].words == 0 {
        out.push(Attribute::new("after-image", 1.0));
    }
    out
}

/// A page's blocks as a CRF item sequence; with `history`, each block also carries the previous
/// block's predicates prefixed `PREV-`.
pub fn sequence(blocks: &[BlockInfo], history: bool) -> Vec<Vec<Attribute>> {
    let own: Vec<Vec<Attribute>> = (0..blocks.len()).map(|i| predicates(blocks, i)).collect();
    if !history {
        return own;
    }
    (0..blocks.len())
        .map(|i| {
            let mut x = own[i].clone();
            if let Some(prev) = i.checked_sub(1).map(|j| &own[j]) {
                x.extend(prev.iter().map(|a| Attribute::new(format!("PREV-{}", a.name), a.value)));
            }
            x
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str, tag: &str, tag_path: &str, words: usize, link_words: usize) -> BlockInfo {
        BlockInfo { text: text.into(), tag: tag.into(), tag_path: tag_path.into(), words, link_words, ..BlockInfo::default() }
    }

    fn names(x: &[Attribute]) -> Vec<String> {
        x.iter().map(|a| format!("{}:{}", a.name, a.value)).collect()
    }

    #[test]
    fn predicates_of_a_block() {
        let blocks = [block("", "img", "html/body/div", 0, 0), block("The cat, the Dog", "p", "html/body/div/p", 4, 1)];
        let x = names(&predicates(&blocks, 1));
        for expected in [
            "w=the:2",
            "w=cat,:1",
            "lower-case-word:1",
            "anchor:0.25",
            "parent=p:1",
            "grandparent=div:1",
            "tag=p:1",
            "has-link:1",
            "prev-tag=img:1",
            "next-tag=none:1",
            "after-image:1",
        ] {
            assert!(x.contains(&expected.to_string()), "{expected} not in {x:?}");
        }
        assert!(!x.iter().any(|a| a.starts_with("title-case")));
        let wc = predicates(&blocks, 1).into_iter().find(|a| a.name == "word-count").map(|a| a.value);
        assert_eq!(wc, Some(5f64.ln()));
    }

    #[test]
    fn history_repeats_the_previous_predicates() {
        let blocks = [block("Top Story", "h1", "html/body", 2, 0), block("text", "p", "html/body", 1, 0)];
        let seq = sequence(&blocks, true);
        let x = names(&seq[1]);
        assert!(x.contains(&"PREV-title-case:1".to_string()));
        assert!(x.contains(&"PREV-w=story:1".to_string()));
        assert!(!names(&seq[0]).iter().any(|a| a.starts_with("PREV-")));
        assert_eq!(sequence(&blocks, false)[1].len(), predicates(&blocks, 1).len());
    }

    #[test]
    fn near_duplicates_by_shingle_containment() {
        let words = |s: &'static str| s.split_whitespace().collect::<Vec<&str>>();
        // Three-word shingles of "the cat sat on the mat": the cat sat / cat sat on / sat on the /
        // on the mat (4). Punctuation and case do not matter.
        assert_eq!(shingles(&words("The cat, sat on the MAT."), 3).len(), 4);
        assert_eq!(shingles(&words("the cat sat on the mat"), 3), shingles(&words("The cat, sat on the MAT."), 3));
        assert!(shingles(&words("too short"), 3).is_empty());
        let train = [words("the cat sat on the mat"), words("a dog ran in the park"), words("hi")];
        // The first held-out page holds 2 of the cat text's 4 shingles (the cat sat, cat sat
        // on) amid boilerplate: containment 2/4 = 0.5. The second holds 2 of the dog text's 4
        // (ran in the, in the park): 0.5. "hi" has no shingle and is never a duplicate.
        let test = [words("home news the cat sat on a sofa contact us"), words("ran in the park today")];
        assert_eq!(near_duplicates(&train, &test, 3, 0.5), vec![true, true, false]);
        assert_eq!(near_duplicates(&train, &test, 3, 0.6), vec![false, false, false]);
        assert_eq!(near_duplicates(&train, &test[..1], 3, 0.5), vec![true, false, false]);
    }

    /// A 3-block page trained five times: the CRF (through crfs's L-BFGS and Viterbi) gives
    /// its labels back.
    #[test]
    fn crf_trains_and_tags_a_three_block_page() {
        let page = [block("Head", "h1", "html/body", 1, 0), block("x", "p", "html/body", 1, 0), block("x", "p", "html/body", 1, 0)];
        let mut trainer = Trainer::lbfgs().with_c2(1.0 / (2.0 * SIGMA * SIGMA)).and_then(|t| t.with_max_iterations(MAX_ITERATIONS)).unwrap();
        for _ in 0..5 {
            trainer.append(&sequence(&page, false), &["0", "1", "1"]).unwrap();
        }
        let path = std::env::temp_dir().join(format!("parcels-crf-test-{}.crfsuite", std::process::id()));
        trainer.train(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let model = Model::new(&bytes).unwrap();
        let tagger = model.tagger().unwrap();
        assert_eq!(tagger.tag(&sequence(&page, false)).unwrap(), vec!["0", "1", "1"]);
    }
}
