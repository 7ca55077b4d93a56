//! The IDF table: document frequencies of stems over a separate, unlabelled corpus.
//!
//! Input: pages that are in no labelled set (the shipped table counts the 1,381 Dragnet pages).
//! Output: an [`IdfTable`]: for each stem, the number of pages whose blocks contain it, and the
//! number of pages counted. Paper section 5.3.1: "the IDF component has been pre-computed from a
//! separate corpus".
//!
//! Weighting (the smoothed form scikit-learn uses, so a researcher can reproduce it):
//! `idf(stem) = ln((N + 1) / (df + 1)) + 1`, with `N` the pages counted and `df` the stem's
//! document frequency. A stem missing from the table (never seen, or dropped by `min_df`) gets
//! the value for `df = 0`, `ln(N + 1) + 1`: the largest IDF the table can give, since a missing
//! stem is rare in the reference corpus.
//!
//! File format (TSV, UTF-8): a header line
//! `#parcels-idf<TAB>format=1<TAB>documents=N<TAB>tokeniser=V<TAB>min-df=M`, then one line per
//! stem, `stem<TAB>df`, sorted by stem (byte order). Stem ids are line positions in that order,
//! so they are stable for a given file. A table is refused if its tokeniser version differs from
//! [`TOKENISER_VERSION`]: its stems would not be the stems we compute.
//!
//! Invariants: stems are unique, sorted, non-empty and free of tabs and newlines; `1 ≤ df ≤ N`;
//! saving writes a temporary file beside the target and renames it, so a reader never sees half
//! a table.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::tokens::{Stemming, TOKENISER_VERSION};
use crate::divide::{Divider, Division};
use crate::page::{LoadOptions, Page, PageError};

/// Version of the file layout written by [`IdfTable::save`].
pub const IDF_FORMAT: u32 = 1;

/// The shipped table, `corpora/idf/dragnet.tsv`, compiled in so the binary needs no data files:
/// document frequencies over the 1,381 Dragnet pages, stems seen in at least
/// [`DEFAULT_MIN_DF`] pages.
pub const DRAGNET_IDF_TSV: &str = include_str!("../../corpora/idf/dragnet.tsv");

/// Stems seen in fewer pages than this are left out of a built table (they then get the
/// unknown-stem IDF). 2 halves the shipped file and loses only stems that no two pages share.
pub const DEFAULT_MIN_DF: u64 = 2;

const MAGIC: &str = "#parcels-idf";

/// Why an IDF table could not be read, written or built. Every file variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IdfError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}: {message}")]
    Parse { path: PathBuf, line: usize, message: String },
    #[error("{path}: table was counted with tokeniser version {found}, this build tokenises with version {expected}; rebuild it with `parcels idf build`")]
    TokeniserMismatch { path: PathBuf, found: u32, expected: u32 },
    #[error("no page could be read, so there is nothing to count ({skipped} skipped)")]
    NoDocuments { skipped: usize },
}

/// Document frequencies of stems over a reference corpus, and the IDF they give.
#[derive(Debug, Clone, PartialEq)]
pub struct IdfTable {
    documents: u64,
    min_df: u64,
    stems: Vec<String>,
    df: Vec<u64>,
    index: HashMap<String, u32>,
    instance: TableInstance,
}

/// A number no other table built in this process has (clones keep it: they have the same
/// content), so memos of a table's ids ([`super::LexicalCache`]) can tell tables apart even
/// when one is dropped and another is built at the same address. Not part of the table's
/// value: equal tables compare equal whatever their instances.
#[derive(Debug, Clone)]
struct TableInstance(u64);

impl TableInstance {
    fn next() -> TableInstance {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        TableInstance(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl PartialEq for TableInstance {
    fn eq(&self, _: &TableInstance) -> bool {
        true
    }
}

impl IdfTable {
    /// A table from document frequencies over `documents` pages, keeping stems seen in at least
    /// `min_df` pages (stems dropped get the unknown-stem IDF).
    pub fn from_counts(documents: u64, counts: impl IntoIterator<Item = (String, u64)>, min_df: u64) -> IdfTable {
        let mut pairs: Vec<(String, u64)> = counts.into_iter().filter(|(s, df)| *df >= min_df && valid_stem(s)).collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.dedup_by(|a, b| a.0 == b.0);
        let (stems, df): (Vec<String>, Vec<u64>) = pairs.into_iter().map(|(s, d)| (s, d.min(documents))).unzip();
        let index = stems.iter().enumerate().map(|(i, s)| (s.clone(), i as u32)).collect();
        IdfTable { documents, min_df, stems, df, index, instance: TableInstance::next() }
    }

    /// This table's instance number (see `TableInstance`): tables with different numbers may
    /// differ, tables with the same number are the same table or clones of it.
    pub(crate) fn instance(&self) -> u64 {
        self.instance.0
    }

    /// The shipped table counted over the Dragnet pages ([`DRAGNET_IDF_TSV`]).
    pub fn dragnet() -> Result<IdfTable, IdfError> {
        IdfTable::parse(DRAGNET_IDF_TSV, Path::new("corpora/idf/dragnet.tsv"))
    }

    /// Number of pages counted (`N`).
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Smallest document frequency kept when the table was built.
    pub fn min_df(&self) -> u64 {
        self.min_df
    }

    /// Number of stems in the table.
    pub fn len(&self) -> usize {
        self.stems.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stems.is_empty()
    }

    /// The id of a stem (its position in the table), if the table has it.
    pub fn id(&self, stem: &str) -> Option<u32> {
        self.index.get(stem).copied()
    }

    /// The stem with id `id`.
    pub fn stem(&self, id: u32) -> Option<&str> {
        self.stems.get(id as usize).map(String::as_str)
    }

    /// All stems, in id order.
    pub fn stems(&self) -> &[String] {
        &self.stems
    }

    /// SHA-256 (hex) of the table's content: documents, then `stem<TAB>df` per stem in id order.
    /// A model records it, so it is never applied with weights other than those it learned.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(format!("{}\n", self.documents).as_bytes());
        for (s, d) in self.stems.iter().zip(&self.df) {
            h.update(format!("{s}\t{d}\n").as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Document frequency of a stem (0 when missing).
    pub fn df(&self, stem: &str) -> u64 {
        self.id(stem).map_or(0, |i| self.df[i as usize])
    }

    /// IDF of a stem; a missing stem gets [`IdfTable::unknown_idf`].
    pub fn idf(&self, stem: &str) -> f64 {
        self.idf_of_df(self.df(stem))
    }

    /// IDF of the stem with id `id`.
    pub fn idf_of_id(&self, id: u32) -> f64 {
        self.idf_of_df(self.df.get(id as usize).copied().unwrap_or(0))
    }

    /// The defined IDF of a stem the table does not have: `ln(N + 1) + 1`.
    pub fn unknown_idf(&self) -> f64 {
        self.idf_of_df(0)
    }

    fn idf_of_df(&self, df: u64) -> f64 {
        ((self.documents as f64 + 1.0) / (df as f64 + 1.0)).ln() + 1.0
    }

    /// Writes the table (see the module docs for the format), atomically.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), IdfError> {
        let path = path.as_ref();
        let mut text = String::with_capacity(self.stems.len() * 12 + 100);
        text.push_str(&format!("{MAGIC}\tformat={IDF_FORMAT}\tdocuments={}\ttokeniser={TOKENISER_VERSION}\tmin-df={}\n", self.documents, self.min_df));
        for (stem, df) in self.stems.iter().zip(&self.df) {
            text.push_str(stem);
            text.push('\t');
            text.push_str(&df.to_string());
            text.push('\n');
        }
        write_atomically(path, text.as_bytes())
    }

    /// Reads a table written by [`IdfTable::save`].
    pub fn load(path: impl AsRef<Path>) -> Result<IdfTable, IdfError> {
        let path = path.as_ref();
        let text = crate::files::read_regular_to_string(path).map_err(|source| IdfError::Io { path: path.into(), source })?;
        IdfTable::parse(&text, path)
    }

    /// Parses the text of a table file; `path` only names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<IdfTable, IdfError> {
        let err = |line: usize, message: String| IdfError::Parse { path: path.into(), line, message };
        let mut lines = text.lines();
        let header = lines.next().ok_or_else(|| err(1, "empty file".into()))?;
        let fields = parse_header(header).map_err(|m| err(1, m))?;
        if fields.tokeniser != TOKENISER_VERSION {
            return Err(IdfError::TokeniserMismatch { path: path.into(), found: fields.tokeniser, expected: TOKENISER_VERSION });
        }
        let mut counts = Vec::new();
        let mut previous: Option<&str> = None;
        for (i, line) in lines.enumerate() {
            let n = i + 2;
            let (stem, df) = line.split_once('\t').ok_or_else(|| err(n, "expected `stem<TAB>df`".into()))?;
            let df: u64 = df.parse().map_err(|_| err(n, format!("document frequency `{df}` is not a count")))?;
            if stem.is_empty() || df == 0 || df > fields.documents {
                return Err(err(n, format!("stem `{stem}` with df {df} outside 1..={}", fields.documents)));
            }
            if previous.is_some_and(|p| p >= stem) {
                return Err(err(n, format!("stem `{stem}` is out of order or repeated")));
            }
            previous = Some(stem);
            counts.push((stem.to_string(), df));
        }
        Ok(IdfTable::from_counts(fields.documents, counts, fields.min_df))
    }
}

struct Header {
    documents: u64,
    tokeniser: u32,
    min_df: u64,
}

fn parse_header(line: &str) -> Result<Header, String> {
    let mut parts = line.split('\t');
    if parts.next() != Some(MAGIC) {
        return Err(format!("not an IDF table: the first line must start with `{MAGIC}`"));
    }
    let (mut format, mut documents, mut tokeniser, mut min_df) = (None, None, None, Some(1));
    for part in parts {
        let (key, value) = part.split_once('=').ok_or_else(|| format!("header field `{part}` is not key=value"))?;
        let number = || value.parse::<u64>().map_err(|_| format!("header field `{key}` has non-numeric value `{value}`"));
        match key {
            "format" => format = Some(number()?),
            "documents" => documents = Some(number()?),
            "tokeniser" => tokeniser = Some(number()?),
            "min-df" => min_df = Some(number()?),
            // Unknown keys are tolerated so a later writer can add provenance fields.
            _ => {}
        }
    }
    if format != Some(IDF_FORMAT as u64) {
        return Err(format!("unsupported table format {format:?}, expected {IDF_FORMAT}"));
    }
    let documents = documents.ok_or("header lacks documents=")?;
    let tokeniser = tokeniser.ok_or("header lacks tokeniser=")?;
    Ok(Header { documents, tokeniser: u32::try_from(tokeniser).unwrap_or(u32::MAX), min_df: min_df.unwrap_or(1) })
}

fn valid_stem(s: &str) -> bool {
    !s.is_empty() && !s.contains(['\t', '\n', '\r'])
}

/// Writes `bytes` atomically (see [`crate::files::write_atomic`]).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), IdfError> {
    crate::files::write_atomic(path, bytes).map_err(|source| IdfError::Io { path: path.into(), source })
}

/// The distinct stems of a divided page: what one document contributes to the counts.
pub fn document_stems(division: &Division, stemming: &Stemming) -> BTreeSet<String> {
    division.blocks.iter().flat_map(|b| stemming.stems(&b.text)).collect()
}

/// An IDF table built from pages, and the pages that could not be read.
#[derive(Debug)]
pub struct IdfBuild {
    pub table: IdfTable,
    /// Pages skipped, each with why; they are not counted in `N`.
    pub skipped: Vec<PageError>,
}

/// Counts document frequencies over `paths` in parallel (rayon): each page is loaded, divided
/// and tokenised; stems seen in fewer than `min_df` pages are dropped. Unreadable pages are
/// skipped and returned; it is an error only when no page at all could be read.
pub fn build_idf(paths: &[PathBuf], divider: &Divider, load: &LoadOptions, min_df: u64) -> Result<IdfBuild, IdfError> {
    let stemming = Stemming::default();
    let per_page: Vec<Result<BTreeSet<String>, PageError>> =
        paths.par_iter().map(|p| Page::load(p, load).map(|page| document_stems(&divider.divide(&page), &stemming))).collect();
    let mut counts: HashMap<String, u64> = HashMap::new();
    let mut skipped = Vec::new();
    let mut documents = 0u64;
    // Merged in path order so the result does not depend on thread scheduling.
    for r in per_page {
        match r {
            Ok(stems) => {
                documents += 1;
                for s in stems {
                    *counts.entry(s).or_insert(0) += 1;
                }
            }
            Err(e) => skipped.push(e),
        }
    }
    if documents == 0 {
        return Err(IdfError::NoDocuments { skipped: skipped.len() });
    }
    Ok(IdfBuild { table: IdfTable::from_counts(documents, counts, min_df), skipped })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three documents: "the cat sat", "the dog sat", "the cat ran".
    fn toy() -> IdfTable {
        let docs = [["the", "cat", "sat"], ["the", "dog", "sat"], ["the", "cat", "ran"]];
        let mut counts: HashMap<String, u64> = HashMap::new();
        for d in docs {
            for s in d.iter().collect::<BTreeSet<_>>() {
                *counts.entry(s.to_string()).or_default() += 1;
            }
        }
        IdfTable::from_counts(3, counts, 1)
    }

    #[test]
    fn idf_hand_computed_on_three_documents() {
        let t = toy();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        // ln(4/4) + 1 = 1 for a stem in every document.
        assert!(close(t.idf("the"), 1.0));
        // ln(4/3) + 1 = 1.287682 for df = 2.
        assert!(close(t.idf("cat"), 1.287_682_07));
        assert!(close(t.idf("sat"), 1.287_682_07));
        // ln(4/2) + 1 = 1.693147 for df = 1.
        assert!(close(t.idf("dog"), 1.693_147_18));
        // Unknown: ln(4/1) + 1 = 2.386294.
        assert!(close(t.idf("bird"), 2.386_294_36));
        assert!(close(t.unknown_idf(), 2.386_294_36));
        assert_eq!(t.stems(), ["cat", "dog", "ran", "sat", "the"]);
        assert_eq!(t.id("ran"), Some(2));
    }

    #[test]
    fn min_df_drops_rare_stems_which_then_get_the_unknown_idf() {
        let mut counts: Vec<(String, u64)> = toy().stems().iter().map(|s| (s.clone(), toy().df(s))).collect();
        counts.push(("odd\tstem".into(), 3));
        let t = IdfTable::from_counts(3, counts, 2);
        assert_eq!(t.stems(), ["cat", "sat", "the"]);
        assert_eq!(t.idf("dog"), t.unknown_idf());
    }

    #[test]
    fn save_then_load_round_trips() {
        let dir = std::env::temp_dir().join(format!("parcels-idf-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("toy.tsv");
        toy().save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("#parcels-idf\tformat=1\tdocuments=3\ttokeniser=1\tmin-df=1\ncat\t2\n"));
        assert_eq!(IdfTable::load(&path).unwrap(), toy());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_tables_are_errors_naming_the_line() {
        let p = Path::new("x.tsv");
        let h = "#parcels-idf\tformat=1\tdocuments=3\ttokeniser=1\tmin-df=1\n";
        let e = IdfTable::parse(&format!("{h}b\t1\na\t1\n"), p).unwrap_err().to_string();
        assert!(e.starts_with("x.tsv:3:"), "{e}");
        let e = IdfTable::parse(&format!("{h}a\t9\n"), p).unwrap_err().to_string();
        assert!(e.contains("outside"), "{e}");
        let e = IdfTable::parse("#parcels-idf\tformat=1\tdocuments=3\ttokeniser=99\n", p).unwrap_err();
        assert!(matches!(e, IdfError::TokeniserMismatch { found: 99, .. }));
        assert!(IdfTable::parse("stem\tdf\n", p).is_err());
        assert!(IdfTable::parse("", p).is_err());
    }
}
