//! Making a labelled set by hand: seeding from exact mappings, reading sheets, and decisions.
//!
//! These tools never decide a label from a block's features. [`seed`] carries over only the
//! labels a partial mapping names (the exact part of another scheme, e.g. L3S headline → title),
//! with their provenance; [`reading_sheet`] lists blocks in document order with their context so
//! a person can read them; [`apply_decisions`] writes the labels that person decided, one block
//! at a time, with provenance `hand`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::labels::{LabelFile, Span};
use super::scheme::{LabelScheme, SchemeMapping};
use super::{load_labelled, CorpusError};
use crate::divide::Divider;

/// Copies the spans of `from` whose labels `mapping` names into a new label file in the target
/// scheme, keeping their provenance.
pub fn seed(from: &LabelFile, mapping: &SchemeMapping, to: &LabelScheme) -> LabelFile {
    let spans = from.spans.iter().filter_map(|s| mapping.apply(&s.label).map(|l| Span { label: l.to_string(), ..s.clone() })).collect();
    LabelFile { scheme: to.name.clone(), spans, alignment: None, ..from.clone() }
}

/// One row of a reading sheet.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SheetRow {
    pub page: String,
    pub block: usize,
    /// The block's current label (`-` when unlabelled) and its provenance.
    pub label: String,
    pub provenance: String,
    /// The label of the same characters in a reference set (e.g. the L3S class), for guidance.
    pub reference: String,
    pub hidden: bool,
    /// The block's images as `src [WxH]`, space-separated.
    pub images: String,
    /// The block's link targets, space-separated.
    pub links: String,
    pub locator: String,
    pub text: String,
}

/// The blocks of a labelled page in document order, with their current labels and, when a
/// reference set is given, the reference label of the same characters.
pub fn reading_sheet(
    label_path: &Path,
    corpora: &Path,
    divider: &Divider,
    scheme: &LabelScheme,
    reference: Option<(&Path, &LabelScheme)>,
) -> Result<Vec<SheetRow>, CorpusError> {
    let lp = load_labelled(label_path, corpora, divider, scheme)?;
    let reference_labels = match reference {
        Some((dir, ref_scheme)) => {
            let path = dir.join(label_path.file_name().unwrap_or_default());
            let r = LabelFile::load(&path)?;
            r.verify(&path, &lp.page, &lp.division)?;
            Some((r.block_labels(&lp.division, ref_scheme), ref_scheme))
        }
        None => None,
    };
    let name = page_key(label_path);
    Ok(lp
        .division
        .blocks
        .iter()
        .zip(&lp.gold)
        .map(|(b, g)| SheetRow {
            page: name.clone(),
            block: b.id,
            label: g.label.map_or("-".to_string(), |c| scheme.labels[c].name.clone()),
            provenance: g.provenance.clone().unwrap_or_else(|| "-".to_string()),
            reference: reference_labels
                .as_ref()
                .and_then(|(labels, s)| labels[b.id].label.map(|c| s.labels[c].name.clone()))
                .unwrap_or_else(|| "-".to_string()),
            hidden: b.hidden,
            images: b
                .images
                .iter()
                .map(|i| {
                    let src = i.src.as_deref().unwrap_or(i.tag.as_str());
                    match (i.width, i.height) {
                        (Some(w), Some(h)) => format!("{src}[{w}x{h}]"),
                        _ => src.to_string(),
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            links: b.links.iter().map(|l| l.href.as_str()).collect::<Vec<_>>().join(" "),
            locator: b.locator.clone(),
            text: b.text.clone(),
        })
        .collect())
}

/// The name a page goes by in sheets and decision files: its label file's stem.
pub fn page_key(label_path: &Path) -> String {
    label_path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string()
}

/// A person's decision: this block of this page has this label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub page: String,
    pub block: usize,
    pub label: String,
}

/// Why a decisions file was refused (nothing is written when any line is bad).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecisionError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}: {problem}")]
    Line { path: PathBuf, line: usize, problem: String },
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Labels(#[from] super::labels::LabelError),
}

/// Reads a decisions file: `page<TAB>block<TAB>label` per line; `#` comments and blank lines are
/// ignored. Labels are checked against the scheme.
pub fn read_decisions(path: &Path, scheme: &LabelScheme) -> Result<Vec<Decision>, DecisionError> {
    let text = crate::files::read_regular_to_string(path).map_err(|source| DecisionError::Io { path: path.to_path_buf(), source })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |problem: String| DecisionError::Line { path: path.to_path_buf(), line: i + 1, problem };
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        if fields.len() < 3 {
            return Err(bad(format!("expected page<TAB>block<TAB>label, found {line:?}")));
        }
        let block = fields[1].parse().map_err(|_| bad(format!("block {:?} is not a number", fields[1])))?;
        if scheme.index(fields[2]).is_none() {
            return Err(bad(format!("{:?} is not a label of {}", fields[2], scheme.name)));
        }
        out.push(Decision { page: fields[0].to_string(), block, label: fields[2].to_string() });
    }
    Ok(out)
}

/// Applies decisions to the label files of `dir`, with provenance `hand`. All pages are checked
/// before any file is written; returns the number of blocks labelled per page.
pub fn apply_decisions(
    decisions: &[Decision],
    dir: &Path,
    corpora: &Path,
    divider: &Divider,
    scheme: &LabelScheme,
    decisions_path: &Path,
) -> Result<BTreeMap<String, usize>, DecisionError> {
    let mut by_page: BTreeMap<&str, Vec<&Decision>> = BTreeMap::new();
    for d in decisions {
        by_page.entry(d.page.as_str()).or_default().push(d);
    }
    let mut updated = Vec::new();
    for (page, ds) in &by_page {
        let path = dir.join(format!("{page}.json"));
        let mut lp = load_labelled(&path, corpora, divider, scheme)?;
        for d in ds {
            let Some(block) = lp.division.blocks.get(d.block) else {
                return Err(DecisionError::Line {
                    path: decisions_path.to_path_buf(),
                    line: 0,
                    problem: format!("page {page} has {} blocks, no block {}", lp.division.blocks.len(), d.block),
                });
            };
            lp.labels.set(block.chars[0], block.chars[1], &d.label, "hand");
        }
        updated.push((path, lp.labels, ds.len()));
    }
    let mut counts = BTreeMap::new();
    for (path, labels, n) in updated {
        labels.save(&path)?;
        counts.insert(page_key(&path), n);
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeding_keeps_only_the_exactly_mapped_labels() {
        let l3s = LabelScheme::built_in("l3s-gn1").unwrap();
        let p17 = LabelScheme::built_in("parcels-17").unwrap();
        let mapping = SchemeMapping::resolve("l3s-gn1-seed-parcels-17", &l3s, &p17).unwrap();
        let span = |start, end, label: &str| Span { start, end, label: label.into(), provenance: "l3s-human".into() };
        let from = LabelFile {
            format: 1,
            corpus: "l3s-gn1".into(),
            page: "original/x.html".into(),
            site: Some("example.com".into()),
            sha256: "a".into(),
            text_sha256: "b".into(),
            text_chars: 100,
            scheme: "l3s-gn1".into(),
            spans: vec![span(0, 10, "headline"), span(10, 20, "supplemental"), span(20, 60, "full-text"), span(60, 70, "not-content"), span(70, 80, "related")],
            alignment: None,
        };
        let seeded = seed(&from, &mapping, &p17);
        let got: Vec<(usize, &str, &str)> = seeded.spans.iter().map(|s| (s.start, s.label.as_str(), s.provenance.as_str())).collect();
        assert_eq!(got, [(0, "title", "l3s-human"), (20, "main-content", "l3s-human"), (70, "related-links", "l3s-human")]);
        assert_eq!((seeded.scheme.as_str(), seeded.site.as_deref()), ("parcels-17", Some("example.com")));
    }

    #[test]
    fn decision_files_are_checked_line_by_line() {
        let p17 = LabelScheme::built_in("parcels-17").unwrap();
        let dir = std::env::temp_dir().join(format!("parcels-decisions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.tsv");
        std::fs::write(&path, "# page\tblock\tlabel\npage-a\t3\tdate\n\npage-a\t4\tsite-nav\n").unwrap();
        assert_eq!(read_decisions(&path, &p17).unwrap().len(), 2);
        std::fs::write(&path, "page-a\t3\tdate\npage-a\tx\tdate\n").unwrap();
        let err = read_decisions(&path, &p17).unwrap_err().to_string();
        assert!(err.contains("d.tsv:2") && err.contains("not a number"), "{err}");
        std::fs::write(&path, "page-a\t3\tdateline\n").unwrap();
        let err = read_decisions(&path, &p17).unwrap_err().to_string();
        assert!(err.contains("\"dateline\" is not a label"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
