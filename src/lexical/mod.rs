//! The lexical view of PARCELS (paper section 5.3): what the words of a block say, without its
//! style or position.
//!
//! Input: a [`Division`] (the divider's blocks: text with image `alt` text, links, images) and an
//! [`IdfTable`] counted over a separate corpus. Output: [`LexicalFeatures`], one row per block:
//! - *numeric features* ([`numeric_feature_names`]): word count and vocabulary (5.3.1), image
//!   count and the four link counts `mailto-links`, `image-links`, `text-links`, `total-links`
//!   (5.3.2, using the divider's link kinds), the ratio of each part-of-speech tag to the block's
//!   tokens and aggregate ratios (all nouns, verbs, adjectives, adverbs, proper nouns, numbers,
//!   punctuation) (5.3.2);
//! - *token weights*: sparse `(stem id, TF × IDF)` pairs, TF the stem's count in the block and IDF
//!   from the table (5.3.1). Stem ids are the table's; stems the table lacks are pooled in one
//!   extra id, [`IdfTable::len`], named `tok:<unknown>`, weighted with the table's defined
//!   unknown-stem IDF, so ids mean the same thing on every page.
//!
//! The feature name table ([`feature_names`]) lists the numeric names, then `tok:STEM` for every
//! token id: column `j` of the numeric rows is name `j`, token id `t` is name
//! `numeric_feature_names().len() + t`. SVMlight indices are those positions plus one.
//!
//! Every block gets a row, hidden ones included: whether to learn from them is the caller's
//! choice. Within a page, stems and tag candidates are computed once per distinct token text.
//!
//! Invariants: every row has the same numeric length as the name table; token rows are sorted by
//! id with no repeated id and no zero weight; all values are finite; ratios are 0 for a block
//! without tokens. Nothing here fails on any text.

pub mod idf;
pub mod pos;
pub mod tokens;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::OnceLock;

use serde::Serialize;

use crate::divide::{Block, Division, LinkKind};
pub use idf::{build_idf, IdfBuild, IdfError, IdfTable, DEFAULT_MIN_DF};
pub use pos::{PosTag, TagCache, Tagger};
pub use tokens::{tokenize, Stemming, Token, TokenKind, TOKENISER_VERSION};

/// Name of the pooled token feature for stems missing from the IDF table.
pub const UNKNOWN_TOKEN: &str = "<unknown>";

/// Numeric features before the part-of-speech ratios, in column order.
const BASE_FEATURES: &[&str] = &[
    // 5.3.1: count and vocabulary of the words in the block. `words` counts word and number
    // tokens after tokenising (so `don't` is two, `do n't`; punctuation is none), which can
    // differ from the divider's `Block::words`; `vocabulary` counts distinct stems.
    "words",
    "vocabulary",
    "vocabulary-ratio",
    "unknown-stem-ratio",
    // 5.3: "image counts for a span of text".
    "images",
    // 5.3.2: the four link features.
    "mailto-links",
    "image-links",
    "text-links",
    "total-links",
];

/// Names of the numeric features, in column order: `words`, `vocabulary`, `vocabulary-ratio`,
/// `unknown-stem-ratio`, `images`, `mailto-links`, `image-links`, `text-links`, `total-links`,
/// then `pos:TAG` for every tag of [`PosTag::ALL`], then the `pos-all:` aggregates of
/// [`pos::AGGREGATES`] (9 + 44 + 8 = 61 columns).
pub fn numeric_feature_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<String> = BASE_FEATURES.iter().map(|s| s.to_string()).collect();
        names.extend(PosTag::ALL.iter().map(|t| format!("pos:{}", t.name())));
        names.extend(pos::AGGREGATES.iter().map(|(name, _)| format!("pos-all:{name}")));
        names
    })
}

/// The full feature name table for a given IDF table: numeric names, then `tok:STEM` per token id
/// (the last is `tok:<unknown>`).
pub fn feature_names(idf: &IdfTable) -> Vec<String> {
    let mut names = numeric_feature_names().to_vec();
    names.extend(idf.stems().iter().map(|s| format!("tok:{s}")));
    names.push(format!("tok:{UNKNOWN_TOKEN}"));
    names
}

/// Writes the feature name table as TSV, `index<TAB>name` with 1-based SVMlight indices, the
/// file a researcher reads beside an SVMlight export.
pub fn write_feature_names(out: &mut impl std::io::Write, idf: &IdfTable) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "index\tname")?;
    for (i, name) in feature_names(idf).iter().enumerate() {
        writeln!(w, "{}\t{}", i + 1, name)?;
    }
    w.into_inner().map_err(|e| e.into_error())?.flush()
}

/// The lexical view of a page: one row per block, numeric features and sparse token weights.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LexicalFeatures {
    /// The divider's block id of each row.
    pub block_ids: Vec<usize>,
    /// Numeric features per block, columns as in [`numeric_feature_names`].
    pub numeric: Vec<Vec<f64>>,
    /// Token weights per block: `(stem id, TF × IDF)`, sorted by id.
    pub tokens: Vec<Vec<(u32, f64)>>,
}

/// One block's lexical features: a row of [`LexicalFeatures`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockFeatures {
    /// Numeric features, columns as in [`numeric_feature_names`].
    pub numeric: Vec<f64>,
    /// Token weights: `(stem id, TF × IDF)`, sorted by id.
    pub tokens: Vec<(u32, f64)>,
}

/// Builds lexical features; holds the stemmer and tagger so pages share them.
pub struct LexicalExtractor<'a> {
    idf: &'a IdfTable,
    stemming: Stemming,
    tagger: Tagger,
}

impl<'a> LexicalExtractor<'a> {
    pub fn new(idf: &'a IdfTable) -> LexicalExtractor<'a> {
        LexicalExtractor { idf, stemming: Stemming::default(), tagger: Tagger::default() }
    }

    /// The lexical features of every block of a divided page.
    pub fn extract(&self, division: &Division) -> LexicalFeatures {
        self.extract_with(division, &mut LexicalCache::default())
    }

    /// As [`LexicalExtractor::extract`], reusing `cache` across pages (one cache per thread, e.g.
    /// rayon's `map_init`): stems and tag candidates of words seen on earlier pages are not
    /// computed again. The result is the same as without the cache.
    pub fn extract_with(&self, division: &Division, cache: &mut LexicalCache) -> LexicalFeatures {
        cache.prepare(self.idf);
        let mut f = LexicalFeatures { block_ids: Vec::new(), numeric: Vec::new(), tokens: Vec::new() };
        for block in &division.blocks {
            let row = self.block_cached(block, cache);
            f.block_ids.push(block.id);
            f.numeric.push(row.numeric);
            f.tokens.push(row.tokens);
        }
        f
    }

    /// One block's numeric row and token weights.
    pub fn block(&self, block: &Block) -> BlockFeatures {
        let mut cache = LexicalCache::default();
        cache.prepare(self.idf);
        self.block_cached(block, &mut cache)
    }

    fn block_cached(&self, block: &Block, cache: &mut LexicalCache) -> BlockFeatures {
        let toks = tokenize(&block.text);
        let stems: Vec<usize> = toks.iter().filter_map(|t| self.stem_index(t, cache)).collect();
        let tags = self.tagger.tag_cached(&toks, &mut cache.tags);
        let (weights, unknown) = self.token_weights(&stems, cache);
        let mut row = Vec::with_capacity(numeric_feature_names().len());
        row.extend(word_features(&stems, unknown));
        row.push(block.images.len() as f64);
        row.extend(link_counts(block));
        row.extend(pos::tag_ratios(&tags));
        BlockFeatures { numeric: row, tokens: weights }
    }

    /// The page-local index of a token's stem (`None` for punctuation), stemming each distinct
    /// token text once per page.
    fn stem_index(&self, token: &Token, cache: &mut LexicalCache) -> Option<usize> {
        if let Some(i) = cache.by_text.get(token.text.as_str()) {
            return *i;
        }
        let index = self.stemming.stem(token).map(|stem| {
            let id = self.idf.id(&stem);
            *cache.by_stem.entry(stem).or_insert_with(|| {
                cache.ids.push(id);
                cache.ids.len() - 1
            })
        });
        cache.by_text.insert(token.text.clone(), index);
        index
    }

    /// TF × IDF per stem id, and how many stems the table lacks.
    fn token_weights(&self, stems: &[usize], cache: &LexicalCache) -> (Vec<(u32, f64)>, usize) {
        let mut tf: BTreeMap<u32, u32> = BTreeMap::new();
        let unknown_id = self.idf.len() as u32;
        let mut unknown = 0;
        for s in stems {
            let id = cache.ids[*s].unwrap_or_else(|| {
                unknown += 1;
                unknown_id
            });
            *tf.entry(id).or_insert(0) += 1;
        }
        let weights = tf
            .into_iter()
            .map(|(id, n)| {
                let idf = if id == unknown_id { self.idf.unknown_idf() } else { self.idf.idf_of_id(id) };
                (id, n as f64 * idf)
            })
            .collect();
        (weights, unknown)
    }
}

/// Memoised work of the lexical view: stems by token text (each distinct stem gets a local index
/// and its IDF table id), and the tagger's candidate lists. Pure memoisation: features are the
/// same with or without it. Bounded: emptied when it grows past [`LexicalCache::MAX_WORDS`] or
/// is used with another IDF table.
#[derive(Debug, Default)]
pub struct LexicalCache {
    by_text: HashMap<String, Option<usize>>,
    by_stem: HashMap<String, usize>,
    ids: Vec<Option<u32>>,
    tags: pos::TagCache,
    /// The table the ids belong to (its instance number).
    table: Option<u64>,
}

impl LexicalCache {
    /// Distinct token texts kept before the cache is emptied (about 100 bytes each).
    pub const MAX_WORDS: usize = 500_000;

    fn prepare(&mut self, idf: &IdfTable) {
        let table = Some(idf.instance());
        if self.table != table || self.by_text.len() > Self::MAX_WORDS {
            *self = LexicalCache { table, ..LexicalCache::default() };
        }
    }
}

/// The lexical features of every block of a divided page (see [`LexicalExtractor`] to reuse the
/// stemmer and tagger over many pages). Stems and tag candidates are memoised per thread across
/// calls (a [`LexicalCache`], bounded, emptied when the table changes): most words of a page
/// were seen on earlier ones, and looking them up is several times cheaper than stemming and
/// tagging them again. The features are the same as with a fresh cache.
pub fn extract(division: &Division, idf: &IdfTable) -> LexicalFeatures {
    thread_local! {
        static CACHE: std::cell::RefCell<LexicalCache> = std::cell::RefCell::new(LexicalCache::default());
    }
    let extractor = LexicalExtractor::new(idf);
    CACHE.with(|cache| match cache.try_borrow_mut() {
        Ok(mut cache) => extractor.extract_with(division, &mut cache),
        // Only reachable if extraction were re-entered on this thread; stay correct then.
        Err(_) => extractor.extract(division),
    })
}

/// `words`, `vocabulary`, `vocabulary-ratio` (distinct stems / words) and `unknown-stem-ratio`.
fn word_features(stems: &[usize], unknown: usize) -> [f64; 4] {
    let words = stems.len();
    let mut distinct: Vec<usize> = stems.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let ratio = |n: usize| if words == 0 { 0.0 } else { n as f64 / words as f64 };
    [words as f64, distinct.len() as f64, ratio(distinct.len()), ratio(unknown)]
}

/// `mailto-links`, `image-links`, `text-links`, `total-links` (paper 5.3.2), from the divider's
/// link kinds.
pub fn link_counts(block: &Block) -> [f64; 4] {
    let count = |k: LinkKind| block.links.iter().filter(|l| l.kind == k).count() as f64;
    let (mailto, image, text) = (count(LinkKind::Mailto), count(LinkKind::Image), count(LinkKind::Text));
    [mailto, image, text, mailto + image + text]
}

/// Formats a value for text exports: integers without a fraction, others with up to 6 decimals.
fn fmt_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

impl LexicalFeatures {
    /// Number of rows (blocks).
    pub fn len(&self) -> usize {
        self.block_ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.block_ids.is_empty()
    }

    /// SVMlight / LibSVM text, one line per block: `label [qid:Q] index:value …` with 1-based
    /// indices into [`feature_names`], ascending, zeros left out. `labels` gives one label per
    /// row (0 when `None` or too short); `qid` groups the rows of one page for ranking tools.
    pub fn to_svmlight(&self, labels: Option<&[i64]>, qid: Option<u64>) -> String {
        let width = numeric_feature_names().len();
        let mut out = String::new();
        for (r, (numeric, tokens)) in self.numeric.iter().zip(&self.tokens).enumerate() {
            let label = labels.and_then(|l| l.get(r)).copied().unwrap_or(0);
            let _ = write!(out, "{label}");
            if let Some(q) = qid {
                let _ = write!(out, " qid:{q}");
            }
            for (j, v) in numeric.iter().enumerate().filter(|(_, v)| **v != 0.0) {
                let _ = write!(out, " {}:{}", j + 1, fmt_value(*v));
            }
            for (id, v) in tokens.iter().filter(|(_, v)| *v != 0.0) {
                let _ = write!(out, " {}:{}", width + *id as usize + 1, fmt_value(*v));
            }
            out.push('\n');
        }
        out
    }

    /// TSV, one line per block: `block`, every numeric feature by name, then `tokens` as
    /// `stem:weight` pairs separated by spaces.
    pub fn to_tsv(&self, idf: &IdfTable) -> String {
        let mut out = String::from("block");
        for n in numeric_feature_names() {
            out.push('\t');
            out.push_str(n);
        }
        out.push_str("\ttokens\n");
        for ((id, numeric), tokens) in self.block_ids.iter().zip(&self.numeric).zip(&self.tokens) {
            let _ = write!(out, "{id}");
            for v in numeric {
                let _ = write!(out, "\t{}", fmt_value(*v));
            }
            out.push('\t');
            let toks: Vec<String> = tokens.iter().map(|(t, v)| format!("{}:{}", token_name(idf, *t), fmt_value(*v))).collect();
            out.push_str(&toks.join(" "));
            out.push('\n');
        }
        out
    }

    /// Rows with their feature names, for JSON output (`parcels features --format json`).
    pub fn named_rows<'s>(&'s self, idf: &'s IdfTable) -> Vec<NamedRow<'s>> {
        let names = numeric_feature_names();
        self.block_ids
            .iter()
            .zip(&self.numeric)
            .zip(&self.tokens)
            .map(|((id, numeric), tokens)| NamedRow {
                block: *id,
                numeric: NamedValues(names.iter().map(String::as_str).zip(numeric.iter().copied()).collect()),
                tokens: NamedValues(tokens.iter().map(|(t, v)| (token_name(idf, *t), *v)).collect()),
            })
            .collect()
    }
}

/// The stem of a token id (`<unknown>` for the pooled id).
fn token_name(idf: &IdfTable, id: u32) -> &str {
    idf.stem(id).unwrap_or(UNKNOWN_TOKEN)
}

/// One block's lexical features by name: JSON objects `{"words": 12, …}` and
/// `{"stem": weight, …}`, numeric in column order, tokens in id order.
#[derive(Debug, Clone, Serialize)]
pub struct NamedRow<'a> {
    pub block: usize,
    pub numeric: NamedValues<'a>,
    pub tokens: NamedValues<'a>,
}

/// Name–value pairs that serialise as one JSON object, in their order.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedValues<'a>(pub Vec<(&'a str, f64)>);

impl Serialize for NamedValues<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests;
