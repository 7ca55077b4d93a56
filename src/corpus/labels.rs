//! Label files: gold labels stored on a page's text, not on block ids.
//!
//! A label file names its page (corpus, file, SHA-256 of the bytes) and the page text it was made
//! on (SHA-256 of the text, its length in chars), and holds labelled character ranges of that
//! text (see [`crate::divide`] for the page text). A block takes the label that covers the
//! majority of its characters; blocks whose characters disagree are *mixed* and are reported,
//! not hidden. Because the page text does not depend on the divider's inventory, the same label
//! file labels fine and coarse blocks alike.
//!
//! A changed page (checksum mismatch) or a changed page-text definition is an error, never a
//! silent mislabel. Files are written atomically, one span per line so that diffs stay readable.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::scheme::LabelScheme;
use crate::divide::Division;
use crate::files::write_atomic;
use crate::page::{hex, Page};

/// Version of the label file format; bumped on any incompatible change.
pub const LABEL_FORMAT: u32 = 1;

/// Why labels could not be read, written or applied. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LabelError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: cannot write: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a label file: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: label format {found}, this parcels reads format {LABEL_FORMAT}")]
    Format { path: PathBuf, found: u32 },
    #[error("{path}: the page changed: labels were made on {corpus}/{page} with SHA-256 {expected}, the file now has {found}")]
    PageChanged { path: PathBuf, corpus: String, page: String, expected: String, found: String },
    #[error("{path}: the page text changed (labels made on {expected_chars} chars with SHA-256 {expected}, now {found_chars} chars with {found}); re-import or re-annotate")]
    TextChanged { path: PathBuf, expected: String, found: String, expected_chars: usize, found_chars: usize },
    #[error("{path}: span {start}..{end}: {problem}")]
    BadSpan { path: PathBuf, start: usize, end: usize, problem: String },
}

/// A labelled range of the page text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// `[start, end)` in chars of the page text.
    pub start: usize,
    pub end: usize,
    pub label: String,
    /// Where the label comes from: `l3s-human` (the L3S annotators, mapped exactly), `hand`
    /// (read and decided by a person, or a helper reading in context), `gold-aligned` (a gold
    /// text's words found on the page by alignment, [`super::gold`]), `gold-complement` (page
    /// text that gold text does not hold), …
    pub provenance: String,
}

/// How well imported annotations aligned with the page (written by importers).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alignment {
    /// Non-space characters inside the annotators' label spans.
    pub labelled_chars: usize,
    /// How many of them were found in the page text.
    pub aligned_chars: usize,
    /// The same two counts for content classes only (everything but not-content).
    pub content_chars: usize,
    pub content_aligned: usize,
}

impl Alignment {
    pub fn share(&self) -> f64 {
        ratio(self.aligned_chars, self.labelled_chars)
    }

    pub fn content_share(&self) -> f64 {
        ratio(self.content_aligned, self.content_chars)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// The labels of one page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelFile {
    pub format: u32,
    /// Corpus name: the directory under the corpora root (`l3s-gn1`).
    pub corpus: String,
    /// The page's path inside its corpus (`original/UUID.html`).
    pub page: String,
    /// The site the page comes from (a host name), for splits by site and corpus statistics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// SHA-256 of the page's bytes.
    pub sha256: String,
    /// SHA-256 of the page text the spans refer to, and its length in chars.
    pub text_sha256: String,
    pub text_chars: usize,
    /// Name of the label scheme.
    pub scheme: String,
    /// Sorted, non-overlapping labelled ranges.
    pub spans: Vec<Span>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<Alignment>,
}

/// A block's gold label, decided by the majority of its characters.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockLabel {
    /// Class index in the scheme; `None` when most of the block's characters are unlabelled.
    pub label: Option<usize>,
    /// Share of the block's characters that carry that label (or are unlabelled, for `None`).
    pub share: f64,
    /// Whether the block's characters carry more than one label, or some carry none.
    pub mixed: bool,
    /// Provenance of the majority label's characters.
    pub provenance: Option<String>,
}

/// SHA-256 of a page text, as recorded in label files.
pub fn text_sha256(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

impl LabelFile {
    /// An empty label file for a divided page.
    pub fn new(corpus: &str, page_in_corpus: &str, page: &Page, division: &Division, scheme: &LabelScheme) -> LabelFile {
        LabelFile {
            format: LABEL_FORMAT,
            corpus: corpus.to_string(),
            page: page_in_corpus.to_string(),
            site: None,
            sha256: page.sha256.clone(),
            text_sha256: text_sha256(&division.text),
            text_chars: division.text.chars().count(),
            scheme: scheme.name.clone(),
            spans: Vec::new(),
            alignment: None,
        }
    }

    pub fn load(path: impl AsRef<Path>) -> Result<LabelFile, LabelError> {
        let path = path.as_ref();
        let text = crate::files::read_regular_to_string(path).map_err(|source| LabelError::Io { path: path.to_path_buf(), source })?;
        let file: LabelFile = serde_json::from_str(&text).map_err(|e| LabelError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
        if file.format != LABEL_FORMAT {
            return Err(LabelError::Format { path: path.to_path_buf(), found: file.format });
        }
        file.check_spans(path)?;
        Ok(file)
    }

    fn check_spans(&self, path: &Path) -> Result<(), LabelError> {
        let mut last = 0;
        for s in &self.spans {
            let bad = |problem: &str| LabelError::BadSpan { path: path.to_path_buf(), start: s.start, end: s.end, problem: problem.to_string() };
            if s.start >= s.end {
                return Err(bad("empty or reversed"));
            }
            if s.end > self.text_chars {
                return Err(bad("past the end of the page text"));
            }
            if s.start < last {
                return Err(bad("overlaps the previous span or is out of order"));
            }
            last = s.end;
        }
        Ok(())
    }

    /// Writes the file atomically: a header, then one span per line.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), LabelError> {
        let path = path.as_ref();
        let mut header = self.clone();
        header.spans.clear();
        let head = serde_json::to_string_pretty(&header).unwrap_or_default();
        // Splice the spans in as `"spans": [` + one line each + `]`.
        let spans: Vec<String> = self.spans.iter().map(|s| serde_json::to_string(s).unwrap_or_default()).collect();
        let body = if spans.is_empty() { "[]".to_string() } else { format!("[\n    {}\n  ]", spans.join(",\n    ")) };
        let text = head.replacen("\"spans\": []", &format!("\"spans\": {body}"), 1) + "\n";
        write_atomic(path, text.as_bytes()).map_err(|source| LabelError::Write { path: path.to_path_buf(), source })
    }

    /// Checks that `page` and its `division` are the ones these labels were made on.
    pub fn verify(&self, path: &Path, page: &Page, division: &Division) -> Result<(), LabelError> {
        if page.sha256 != self.sha256 {
            return Err(LabelError::PageChanged {
                path: path.to_path_buf(),
                corpus: self.corpus.clone(),
                page: self.page.clone(),
                expected: self.sha256.clone(),
                found: page.sha256.clone(),
            });
        }
        let found = text_sha256(&division.text);
        if found != self.text_sha256 {
            return Err(LabelError::TextChanged {
                path: path.to_path_buf(),
                expected: self.text_sha256.clone(),
                found,
                expected_chars: self.text_chars,
                found_chars: division.text.chars().count(),
            });
        }
        Ok(())
    }

    /// Labels `[start, end)`, replacing whatever labels the range had.
    pub fn set(&mut self, start: usize, end: usize, label: &str, provenance: &str) {
        self.clear(start, end);
        let at = self.spans.partition_point(|s| s.end <= start);
        self.spans.insert(at, Span { start, end, label: label.to_string(), provenance: provenance.to_string() });
        self.merge_neighbours();
    }

    /// Removes the labels of `[start, end)`, splitting spans that cross its edges.
    pub fn clear(&mut self, start: usize, end: usize) {
        let mut out = Vec::with_capacity(self.spans.len() + 1);
        for s in self.spans.drain(..) {
            if s.end <= start || s.start >= end {
                out.push(s);
                continue;
            }
            if s.start < start {
                out.push(Span { end: start, ..s.clone() });
            }
            if s.end > end {
                out.push(Span { start: end, ..s });
            }
        }
        self.spans = out;
    }

    /// Joins touching spans with the same label and provenance.
    fn merge_neighbours(&mut self) {
        let mut out: Vec<Span> = Vec::with_capacity(self.spans.len());
        for s in self.spans.drain(..) {
            match out.last_mut() {
                Some(p) if p.end == s.start && p.label == s.label && p.provenance == s.provenance => p.end = s.end,
                _ => out.push(s),
            }
        }
        self.spans = out;
    }

    /// The label and provenance of every char of the page text (`None`: unlabelled).
    fn char_labels<'a>(&'a self, scheme: &LabelScheme) -> Vec<Option<(usize, &'a str)>> {
        let mut out = vec![None; self.text_chars];
        for s in &self.spans {
            let Some(class) = scheme.index(&s.label) else { continue };
            for slot in out.iter_mut().take(s.end).skip(s.start) {
                *slot = Some((class, s.provenance.as_str()));
            }
        }
        out
    }

    /// Spans whose label is not in `scheme` (a label file made for another scheme).
    pub fn unknown_labels<'a>(&'a self, scheme: &LabelScheme) -> Vec<&'a str> {
        let mut v: Vec<&str> = self.spans.iter().map(|s| s.label.as_str()).filter(|l| scheme.index(l).is_none()).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The gold label of every block: the label of the majority of its characters (line
    /// separators between leaves do not count).
    pub fn block_labels(&self, division: &Division, scheme: &LabelScheme) -> Vec<BlockLabel> {
        let per_char = self.char_labels(scheme);
        let is_separator: Vec<bool> = division.text.chars().map(|c| c == '\n').collect();
        division
            .blocks
            .iter()
            .map(|b| {
                let mut counts: Vec<(Option<usize>, usize, Option<&str>)> = Vec::new();
                let mut total = 0;
                for (i, at) in per_char.iter().enumerate().take(b.chars[1]).skip(b.chars[0]) {
                    if is_separator.get(i).copied().unwrap_or(false) {
                        continue;
                    }
                    total += 1;
                    let (class, prov) = match *at {
                        Some((c, p)) => (Some(c), Some(p)),
                        None => (None, None),
                    };
                    match counts.iter_mut().find(|(c, _, _)| *c == class) {
                        Some(entry) => entry.1 += 1,
                        None => counts.push((class, 1, prov)),
                    }
                }
                // Majority; ties go to a label over no label, then to the lower class index.
                counts.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.is_some().cmp(&a.0.is_some())).then(a.0.cmp(&b.0)));
                match counts.first() {
                    None => BlockLabel { label: None, share: 0.0, mixed: false, provenance: None },
                    Some(&(class, n, prov)) => {
                        BlockLabel { label: class, share: n as f64 / total as f64, mixed: counts.len() > 1, provenance: prov.map(str::to_string) }
                    }
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::divide::Divider;
    use crate::page::LoadOptions;

    fn divided(html: &str) -> (Page, Division) {
        let page = Page::from_bytes("p.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        (page, division)
    }

    #[test]
    fn blocks_take_the_majority_label_and_mixed_blocks_are_reported() {
        let (page, d) = divided("<h1>Title</h1><p>Body text here</p><p>Nav</p>");
        let scheme = LabelScheme::built_in("parcels-17").unwrap();
        let mut f = LabelFile::new("demo", "p.html", &page, &d, &scheme);
        assert_eq!(d.text, "Title\nBody text here\nNav");
        f.set(0, 5, "title", "hand");
        f.set(6, 16, "main-content", "hand"); // "Body text " of "Body text here"
        f.set(16, 20, "site-nav", "hand"); // "here"
        let labels = f.block_labels(&d, &scheme);
        assert_eq!(labels[0], BlockLabel { label: Some(1), share: 1.0, mixed: false, provenance: Some("hand".into()) });
        assert_eq!(labels[1].label, Some(0));
        assert!((labels[1].share - 10.0 / 14.0).abs() < 1e-12);
        assert!(labels[1].mixed);
        assert_eq!(labels[2], BlockLabel { label: None, share: 1.0, mixed: false, provenance: None });
    }

    #[test]
    fn set_replaces_and_merges_spans() {
        let (page, d) = divided("<p>abcdefghij</p>");
        let scheme = LabelScheme::built_in("binary").unwrap();
        let mut f = LabelFile::new("demo", "p.html", &page, &d, &scheme);
        f.set(0, 10, "content", "hand");
        f.set(3, 5, "not-content", "hand");
        assert_eq!(f.spans.iter().map(|s| (s.start, s.end)).collect::<Vec<_>>(), [(0, 3), (3, 5), (5, 10)]);
        f.set(3, 5, "content", "hand");
        assert_eq!(f.spans.len(), 1);
        assert_eq!((f.spans[0].start, f.spans[0].end), (0, 10));
    }

    #[test]
    fn round_trip_and_changed_pages_are_errors() {
        let (page, d) = divided("<p>one</p><p>two</p>");
        let scheme = LabelScheme::built_in("binary").unwrap();
        let mut f = LabelFile::new("demo", "p.html", &page, &d, &scheme);
        f.set(0, 3, "content", "hand");
        f.set(4, 7, "not-content", "hand");
        let dir = std::env::temp_dir().join(format!("parcels-labels-{}", std::process::id()));
        let path = dir.join("p.json");
        f.save(&path).unwrap();
        let back = LabelFile::load(&path).unwrap();
        assert_eq!(back, f);
        back.verify(&path, &page, &d).unwrap();
        let (other, od) = divided("<p>one</p><p>tw0</p>");
        let err = back.verify(&path, &other, &od).unwrap_err();
        assert!(matches!(err, LabelError::PageChanged { .. }) && err.to_string().contains("p.json"), "{err}");
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap().replace("\"end\":7", "\"end\":70")).unwrap();
        let err = LabelFile::load(&path).unwrap_err();
        assert!(err.to_string().contains("past the end"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
