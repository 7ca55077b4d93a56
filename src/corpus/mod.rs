//! Corpora: label schemes, label files, importers and the statistics of labelled sets.
//!
//! Input: label files (`corpora/<set>/labels/*.json`) and the pages they name, read from the
//! shared corpora root (`../shared/corpora` by default). Output: labelled blocks
//! ([`LabelledPage`]) for the learners and the class distribution of a set ([`SetStats`], the
//! paper's Table 2).

pub mod agreement;
pub mod editing;
pub mod gold;
pub mod l3s;
pub mod labels;
pub mod manifest;
pub mod scheme;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub use labels::{BlockLabel, LabelError, LabelFile, Span};
pub use manifest::{Manifest, ManifestEntry, ManifestError};
pub use scheme::{ArticleRoles, LabelScheme, ParallelItems, SchemeMapping};

use crate::divide::{Divider, Division};
use crate::page::{LoadOptions, Page, PageError};

/// The default location of the shared corpora, relative to the repository root.
pub const DEFAULT_CORPORA: &str = "../shared/corpora";

/// Why a labelled page could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    #[error(transparent)]
    Labels(#[from] LabelError),
    #[error(transparent)]
    Page(#[from] PageError),
    #[error("{path}: cannot list label files: {source}")]
    List { path: PathBuf, source: std::io::Error },
    #[error("{path}: labels in scheme {found}, expected {expected}")]
    Scheme { path: PathBuf, found: String, expected: String },
    #[error("{path}: labels not in scheme {scheme}: {labels}")]
    UnknownLabels { path: PathBuf, scheme: String, labels: String },
    #[error("{path}: labels in scheme {found}, and no built-in mapping from {found} to {expected}")]
    NoMapping { path: PathBuf, found: String, expected: String },
}

/// A page with its blocks and their gold labels.
pub struct LabelledPage {
    /// The label file this came from.
    pub label_path: PathBuf,
    pub labels: LabelFile,
    pub page: Page,
    pub division: Division,
    /// One gold label per block of `division`.
    pub gold: Vec<BlockLabel>,
}

/// A page's file name without its page suffix (`a/b/x.html.gz` → `x`, `a/y.htm` → `y`): the stem
/// its label file is named after (`x.json`).
pub fn page_stem(page_in_corpus: &str) -> &str {
    let name = page_in_corpus.rsplit(['/', '\\']).next().unwrap_or(page_in_corpus);
    let name = name.strip_suffix(".gz").unwrap_or(name);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// The label files of a set (a directory, searched non-recursively for `*.json`), sorted.
pub fn label_files(dir: &Path) -> Result<Vec<PathBuf>, CorpusError> {
    let list = |source| CorpusError::List { path: dir.to_path_buf(), source };
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(list)?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    out.sort();
    Ok(out)
}

/// Loads a label file, its page from `corpora`, divides the page and labels the blocks.
pub fn load_labelled(label_path: &Path, corpora: &Path, divider: &Divider, scheme: &LabelScheme) -> Result<LabelledPage, CorpusError> {
    labelled_page(label_path, LabelFile::load(label_path)?, corpora, divider, scheme)
}

/// [`load_labelled`] on a label file already read from `label_path`.
fn labelled_page(label_path: &Path, labels: LabelFile, corpora: &Path, divider: &Divider, scheme: &LabelScheme) -> Result<LabelledPage, CorpusError> {
    if labels.scheme != scheme.name {
        return Err(CorpusError::Scheme { path: label_path.to_path_buf(), found: labels.scheme.clone(), expected: scheme.name.clone() });
    }
    let unknown = labels.unknown_labels(scheme);
    if !unknown.is_empty() {
        return Err(CorpusError::UnknownLabels { path: label_path.to_path_buf(), scheme: scheme.name.clone(), labels: unknown.join(", ") });
    }
    let page_path = corpora.join(&labels.corpus).join(&labels.page);
    let page = Page::load(&page_path, &LoadOptions::default())?;
    let division = divider.divide(&page);
    labels.verify(label_path, &page, &division)?;
    let gold = labels.block_labels(&division, scheme);
    Ok(LabelledPage { label_path: label_path.to_path_buf(), labels, page, division, gold })
}

/// Loads a label file as [`load_labelled`] does, but takes a file labelled in another scheme too:
/// its block labels are carried into `scheme` through the built-in mapping between the two (for
/// example `gold-text` → `l3s-gn1`), so one experiment can learn from corpora whose people
/// labelled them in different schemes. A block whose label the mapping leaves out counts as
/// unlabelled. The returned page's `labels` stay in the file's own scheme.
pub fn load_labelled_into(label_path: &Path, corpora: &Path, divider: &Divider, scheme: &LabelScheme) -> Result<LabelledPage, CorpusError> {
    let labels = LabelFile::load(label_path)?;
    if labels.scheme == scheme.name {
        return labelled_page(label_path, labels, corpora, divider, scheme);
    }
    let no_mapping = || CorpusError::NoMapping { path: label_path.to_path_buf(), found: labels.scheme.clone(), expected: scheme.name.clone() };
    let from = LabelScheme::built_in(&labels.scheme).ok_or_else(no_mapping)?;
    let mapping = SchemeMapping::between(&from, scheme).ok_or_else(no_mapping)?;
    let table: Vec<Option<usize>> = from.names().map(|l| mapping.apply(l).and_then(|t| scheme.index(t))).collect();
    let mut lp = labelled_page(label_path, labels, corpora, divider, &from)?;
    for g in &mut lp.gold {
        g.label = g.label.and_then(|c| table[c]);
    }
    Ok(lp)
}

/// The class distribution and quality figures of a labelled set (the paper's Table 2).
#[derive(Debug, Clone, serde::Serialize)]
pub struct SetStats {
    pub scheme: String,
    pub pages: usize,
    pub sites: usize,
    pub blocks: usize,
    /// Blocks per class, in scheme order.
    pub per_class: Vec<(String, usize)>,
    /// Blocks whose characters are mostly unlabelled.
    pub unlabelled: usize,
    /// Blocks whose characters carry more than one label (or some none).
    pub mixed: usize,
    /// Blocks by provenance of their label.
    pub provenance: BTreeMap<String, usize>,
    /// Imported sets: share of the annotators' labelled characters that aligned, overall and for
    /// content classes, and the pages below 95%.
    pub alignment: Option<(f64, f64)>,
    pub poorly_aligned: Vec<(String, f64)>,
    /// Pages that could not be read, with the reason.
    pub failures: Vec<String>,
}

/// Computes the statistics of a set; `mapping` reports the labels in a coarser scheme.
pub fn set_stats(files: &[PathBuf], corpora: &Path, divider: &Divider, scheme: &LabelScheme, mapping: Option<(&SchemeMapping, &LabelScheme)>) -> SetStats {
    let results: Vec<Result<LabelledPage, CorpusError>> = files.par_iter().map(|f| load_labelled(f, corpora, divider, scheme)).collect();
    let report_scheme = mapping.map_or(scheme, |(_, s)| s);
    let table = mapping.map(|(m, to)| m.index_table(scheme, to));
    let mut per_class = vec![0usize; report_scheme.len()];
    let mut stats = SetStats {
        scheme: report_scheme.name.clone(),
        pages: 0,
        sites: 0,
        blocks: 0,
        per_class: Vec::new(),
        unlabelled: 0,
        mixed: 0,
        provenance: BTreeMap::new(),
        alignment: None,
        poorly_aligned: Vec::new(),
        failures: Vec::new(),
    };
    let mut sites = std::collections::BTreeSet::new();
    let (mut lab, mut ali, mut clab, mut cali) = (0usize, 0usize, 0usize, 0usize);
    for r in results {
        let lp = match r {
            Ok(lp) => lp,
            Err(e) => {
                stats.failures.push(e.to_string());
                continue;
            }
        };
        stats.pages += 1;
        if let Some(site) = &lp.labels.site {
            sites.insert(site.clone());
        }
        if let Some(a) = lp.labels.alignment {
            lab += a.labelled_chars;
            ali += a.aligned_chars;
            clab += a.content_chars;
            cali += a.content_aligned;
            if a.share() < 0.95 {
                stats.poorly_aligned.push((lp.labels.page.clone(), a.share()));
            }
        }
        for g in &lp.gold {
            stats.blocks += 1;
            stats.mixed += usize::from(g.mixed);
            match g.label {
                Some(c) => {
                    let c = table.as_ref().map_or(c, |t| t[c]);
                    per_class[c] += 1;
                    *stats.provenance.entry(g.provenance.clone().unwrap_or_default()).or_default() += 1;
                }
                None => stats.unlabelled += 1,
            }
        }
    }
    stats.sites = sites.len();
    stats.per_class = report_scheme.names().map(str::to_string).zip(per_class).collect();
    if lab > 0 {
        stats.alignment = Some((ali as f64 / lab as f64, if clab == 0 { 1.0 } else { cali as f64 / clab as f64 }));
    }
    stats.poorly_aligned.sort_by(|a, b| a.1.total_cmp(&b.1));
    stats
}

impl SetStats {
    /// The statistics as a Markdown table in the manner of the paper's Table 2, most frequent
    /// class first.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "{} pages, {} sites, {} blocks ({} labelled, {} unlabelled, {} mixed), scheme {}\n\n| label | blocks | share |\n|---|---:|---:|\n",
            self.pages,
            self.sites,
            self.blocks,
            self.blocks - self.unlabelled,
            self.unlabelled,
            self.mixed,
            self.scheme
        );
        let labelled = (self.blocks - self.unlabelled).max(1) as f64;
        let mut rows = self.per_class.clone();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (name, n) in rows {
            out.push_str(&format!("| {name} | {n} | {:.1}% |\n", 100.0 * n as f64 / labelled));
        }
        if !self.provenance.is_empty() {
            let p: Vec<String> = self.provenance.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            out.push_str(&format!("\nLabel provenance (blocks): {}\n", p.join(", ")));
        }
        if let Some((all, content)) = self.alignment {
            out.push_str(&format!(
                "\nAlignment: {:.2}% of the annotators' labelled characters found in the page text ({:.2}% of content characters); {} pages below 95%\n",
                100.0 * all,
                100.0 * content,
                self.poorly_aligned.len()
            ));
            for (page, share) in self.poorly_aligned.iter().take(15) {
                out.push_str(&format!("  {page}: {:.1}%\n", 100.0 * share));
            }
        }
        if !self.failures.is_empty() {
            out.push_str(&format!("\n{} pages could not be read:\n", self.failures.len()));
            for f in &self.failures {
                out.push_str(&format!("  {f}\n"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gold-text label file on disk (`<tmp>/demo/p.html` and its label file), labelled
    /// main text / title / other.
    fn gold_text_page(tag: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("parcels-into-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(root.join("demo")).unwrap();
        let html = "<h1>Title</h1><p>Body text here</p><p>Nav</p>";
        std::fs::write(root.join("demo/p.html"), html).unwrap();
        let page = Page::load(root.join("demo/p.html"), &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let scheme = LabelScheme::built_in("gold-text").unwrap();
        let mut f = LabelFile::new("demo", "p.html", &page, &division, &scheme);
        f.set(0, 5, "title", "gold");
        f.set(6, 20, "main-text", "gold");
        f.set(21, 24, "other", "gold");
        let label_path = root.join("p.json");
        f.save(&label_path).unwrap();
        (root, label_path)
    }

    #[test]
    fn a_label_file_in_another_scheme_is_carried_through_the_built_in_mapping() {
        let (root, label_path) = gold_text_page("map");
        let l3s = LabelScheme::built_in("l3s-gn1").unwrap();
        let divider = Divider::default();
        // Loaded as itself, the scheme must match.
        assert!(matches!(load_labelled(&label_path, &root, &divider, &l3s), Err(CorpusError::Scheme { .. })));
        let lp = load_labelled_into(&label_path, &root, &divider, &l3s).unwrap();
        let names: Vec<Option<&str>> = lp.gold.iter().map(|g| g.label.and_then(|c| l3s.names().nth(c))).collect();
        assert_eq!(names, [Some("headline"), Some("full-text"), Some("not-content")]);
        assert_eq!(lp.labels.scheme, "gold-text");
        // No built-in mapping from gold-text to parcels-17: an error naming the file.
        let p17 = LabelScheme::built_in("parcels-17").unwrap();
        let err = load_labelled_into(&label_path, &root, &divider, &p17).err().unwrap().to_string();
        assert!(err.contains("p.json") && err.contains("no built-in mapping from gold-text to parcels-17"), "{err}");
        std::fs::remove_dir_all(root).ok();
    }
}
