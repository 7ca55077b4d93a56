//! The L3S-GN1 importer: the annotators' labels, carried from `annotated/` onto the page text of
//! `original/`.
//!
//! The annotated pages were re-serialised by the annotators' browser tool (scripts removed,
//! markup rewritten), so their DOM cannot be matched to the original's. Their *text* can: the
//! importer lists the annotated page's visible characters with the label of the enclosing
//! `x-nc-selN` span (text outside any span is not content), lists the original page text's
//! characters, drops white space on both sides, and aligns the two sequences with a Myers diff.
//! Every original character that aligns takes the label of its partner; white space between two
//! characters of the same label takes that label too; the rest stays unlabelled. The share of
//! the annotators' labelled characters that found a partner is recorded per page.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ego_tree::iter::Edge;
use scraper::Node;

use super::labels::{Alignment, LabelFile};
use super::scheme::LabelScheme;
use crate::divide::{Divider, Division, SkipWalk, Visit};
use crate::output::error_chain;
use crate::page::{LoadOptions, Page, PageError};

/// The L3S-GN1 class of each `x-nc-selN` span, in the `l3s-gn1` scheme's names.
pub const L3S_CLASSES: [&str; 6] = ["not-content", "headline", "full-text", "supplemental", "related", "comments"];

/// Elements whose text the annotators' tool did not show.
const INVISIBLE_CLASS: &str = "x-nc-invisible";

/// A diff that has not finished in this long falls back to what it found (pathological pages).
const DIFF_DEADLINE: Duration = Duration::from_secs(10);

/// Why a page could not be imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    #[error(transparent)]
    Page(#[from] PageError),
    #[error("{path}: no annotated counterpart")]
    MissingAnnotated { path: PathBuf },
}

/// One imported page: its label file and alignment figures.
pub struct Imported {
    pub uuid: String,
    pub labels: LabelFile,
    pub alignment: Alignment,
}

/// Imports one page of the L3S-GN1 directory `root` (which holds `original/` and `annotated/`).
pub fn import_page(root: &Path, uuid: &str, divider: &Divider, scheme: &LabelScheme) -> Result<Imported, ImportError> {
    let opts = LoadOptions::default();
    let original_path = root.join("original").join(format!("{uuid}.html"));
    let annotated_path = root.join("annotated").join(format!("{uuid}.html"));
    if !annotated_path.is_file() {
        return Err(ImportError::MissingAnnotated { path: annotated_path });
    }
    let original = Page::load(&original_path, &opts)?;
    let division = divider.divide(&original);
    let annotated = Page::load(&annotated_path, &opts)?;
    let runs = annotated_chars(&annotated, divider);
    let (per_char, alignment) = align(&runs, &division);
    let mut labels = LabelFile::new("l3s-gn1", &format!("original/{uuid}.html"), &original, &division, scheme);
    labels.spans = spans_from_chars(&per_char);
    labels.alignment = Some(alignment);
    Ok(Imported { uuid: uuid.to_string(), labels, alignment })
}

/// The annotated page's non-space visible characters with their class (index into
/// [`L3S_CLASSES`]) and whether an annotator's span labelled them explicitly.
fn annotated_chars(page: &Page, divider: &Divider) -> Vec<(char, usize, bool)> {
    let skip = &divider.config().skip;
    let mut out = Vec::new();
    let mut labels: Vec<(ego_tree::NodeId, usize)> = Vec::new();
    let hidden = |node: ego_tree::NodeRef<'_, Node>| match node.value() {
        Node::Element(el) if skip.iter().any(|t| t == el.name()) || el.has_class(INVISIBLE_CLASS, scraper::CaseSensitivity::AsciiCaseInsensitive) => {
            Visit::Skip
        }
        _ => Visit::Enter,
    };
    for edge in SkipWalk::new(page.html.tree.root(), hidden) {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) => {
                    if let Some(class) = el.classes().find_map(sel_class) {
                        labels.push((node.id(), class));
                    }
                }
                Node::Text(t) => {
                    let (class, explicit) = labels.last().map_or((0, false), |&(_, c)| (c, true));
                    out.extend(t.chars().filter(|c| !c.is_whitespace()).map(|c| (c, class, explicit)));
                }
                _ => {}
            },
            Edge::Close(node) => {
                if labels.last().is_some_and(|&(id, _)| id == node.id()) {
                    labels.pop();
                }
            }
        }
    }
    out
}

/// `x-nc-selN` → N.
fn sel_class(class: &str) -> Option<usize> {
    let n: usize = class.strip_prefix("x-nc-sel")?.parse().ok()?;
    (n < L3S_CLASSES.len()).then_some(n)
}

/// Aligns the annotated characters with the page text; returns the class of every page-text
/// char (`None`: no label) and the alignment figures.
fn align(runs: &[(char, usize, bool)], division: &Division) -> (Vec<Option<usize>>, Alignment) {
    let text: Vec<char> = division.text.chars().collect();
    let positions: Vec<usize> = (0..text.len()).filter(|&i| !text[i].is_whitespace()).collect();
    let original: Vec<char> = positions.iter().map(|&i| text[i]).collect();
    let annotated: Vec<char> = runs.iter().map(|r| r.0).collect();
    let ops = similar::capture_diff_slices_deadline(similar::Algorithm::Myers, &annotated, &original, Some(Instant::now() + DIFF_DEADLINE));
    let mut per_char: Vec<Option<usize>> = vec![None; text.len()];
    let mut aligned = vec![false; runs.len()];
    for op in ops {
        if let similar::DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                per_char[positions[new_index + k]] = Some(runs[old_index + k].1);
                aligned[old_index + k] = true;
            }
        }
    }
    fill_spaces(&mut per_char, &text);
    let mut a = Alignment { labelled_chars: 0, aligned_chars: 0, content_chars: 0, content_aligned: 0 };
    for (r, &ok) in runs.iter().zip(&aligned) {
        if r.2 {
            a.labelled_chars += 1;
            a.aligned_chars += usize::from(ok);
            if r.1 != 0 {
                a.content_chars += 1;
                a.content_aligned += usize::from(ok);
            }
        }
    }
    (per_char, a)
}

/// White space (and line separators) between two characters of the same class take that class.
fn fill_spaces(per_char: &mut [Option<usize>], text: &[char]) {
    let mut i = 0;
    while i < text.len() {
        if !text[i].is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && text[i].is_whitespace() {
            i += 1;
        }
        let before = start.checked_sub(1).and_then(|j| per_char[j]);
        let after = per_char.get(i).copied().flatten();
        if before.is_some() && before == after {
            per_char[start..i].fill(before);
        }
    }
}

fn spans_from_chars(per_char: &[Option<usize>]) -> Vec<super::labels::Span> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < per_char.len() {
        let Some(class) = per_char[i] else {
            i += 1;
            continue;
        };
        let start = i;
        while i < per_char.len() && per_char[i] == Some(class) {
            i += 1;
        }
        spans.push(super::labels::Span { start, end: i, label: L3S_CLASSES[class].to_string(), provenance: "l3s-human".to_string() });
    }
    spans
}

/// Page UUID → site (host of the original URL), from `url-mapping.tsv`.
pub fn sites(root: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root.join("url-mapping.tsv")).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (uuid, url) = line.split_once('\t')?;
            Some((uuid.trim().to_string(), host(url.trim())))
        })
        .collect()
}

/// The host of a URL without a leading `www.`, or the URL itself when it has none.
pub fn host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#', ':']).next().unwrap_or(rest).to_ascii_lowercase();
    host.strip_prefix("www.").map(str::to_string).unwrap_or(host)
}

/// The UUIDs of the pages in `original/`, sorted.
pub fn page_ids(root: &Path) -> std::io::Result<Vec<String>> {
    let mut ids: Vec<String> = std::fs::read_dir(root.join("original"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".html")).map(str::to_string))
        .collect();
    ids.sort();
    Ok(ids)
}

/// The outcome of importing a whole L3S-GN1 directory ([`import_all`]).
#[derive(Debug, Default)]
pub struct ImportSummary {
    /// Alignment figures of every imported page, by UUID, sorted.
    pub pages: Vec<(String, Alignment)>,
    /// Pages that could not be imported or saved: UUID and the error (with its causes).
    pub failed: Vec<(String, String)>,
}

impl ImportSummary {
    /// Pages attempted.
    pub fn total(&self) -> usize {
        self.pages.len() + self.failed.len()
    }

    /// The figures of all imported pages together.
    pub fn overall(&self) -> Alignment {
        let mut all = Alignment { labelled_chars: 0, aligned_chars: 0, content_chars: 0, content_aligned: 0 };
        for (_, a) in &self.pages {
            all.labelled_chars += a.labelled_chars;
            all.aligned_chars += a.aligned_chars;
            all.content_chars += a.content_chars;
            all.content_aligned += a.content_aligned;
        }
        all
    }

    /// The per-page figures as TSV with a header line
    /// (`page, labelled_chars, aligned_share, content_chars, content_aligned_share`).
    pub fn to_tsv(&self) -> String {
        let mut tsv = String::from("page\tlabelled_chars\taligned_share\tcontent_chars\tcontent_aligned_share\n");
        for (uuid, a) in &self.pages {
            tsv.push_str(&format!("{uuid}\t{}\t{:.4}\t{}\t{:.4}\n", a.labelled_chars, a.share(), a.content_chars, a.content_share()));
        }
        tsv
    }

    /// Pages whose aligned share is below `share`, worst first.
    pub fn below(&self, share: f64) -> Vec<(f64, &str)> {
        let mut worst: Vec<(f64, &str)> = self.pages.iter().map(|(u, a)| (a.share(), u.as_str())).filter(|(s, _)| *s < share).collect();
        worst.sort_by(|a, b| a.0.total_cmp(&b.0));
        worst
    }
}

/// Imports every page of the L3S-GN1 directory `root` in parallel and saves its label file
/// (`<uuid>.json`, with the page's site from `url-mapping.tsv`) in `out`; `on_page` is called
/// after each page. Pages that fail are listed in the summary, the others go on.
pub fn import_all(root: &Path, out: &Path, divider: &Divider, scheme: &LabelScheme, on_page: &(dyn Fn() + Sync)) -> std::io::Result<ImportSummary> {
    use rayon::prelude::*;
    let ids = page_ids(root)?;
    let sites = sites(root);
    let results: Vec<(String, Result<Alignment, String>)> = ids
        .par_iter()
        .map(|uuid| {
            let r = (|| {
                let mut imported = import_page(root, uuid, divider, scheme).map_err(|e| error_chain(&e))?;
                imported.labels.site = sites.get(uuid).cloned();
                imported.labels.save(out.join(format!("{uuid}.json"))).map_err(|e| error_chain(&e))?;
                Ok(imported.alignment)
            })();
            on_page();
            (uuid.clone(), r)
        })
        .collect();
    let mut summary = ImportSummary::default();
    for (uuid, r) in results {
        match r {
            Ok(a) => summary.pages.push((uuid, a)),
            Err(e) => summary.failed.push((uuid, e)),
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn divided(html: &str) -> (Page, Division) {
        let page = Page::from_bytes("o.html", html.as_bytes(), &LoadOptions::default()).unwrap();
        let d = Divider::default().divide(&page);
        (page, d)
    }

    #[test]
    fn labels_follow_text_across_a_rewritten_dom() {
        let (_, original) = divided("<table><tr><td><b>Big News</b></td></tr><tr><td>Body  text.<br>More</td></tr></table><p>Footer</p><script>x</script>");
        let (annotated, _) = divided(
            "<div><span class='x-nc-sel1'>Big News</span></div><div><span class=x-nc-sel2>Body text.</span> <span class='x-nc-sel2'>More</span></div>Footer<span class='x-nc-invisible'>hidden</span>",
        );
        let runs = annotated_chars(&annotated, &Divider::default());
        assert_eq!(runs.len(), "BigNewsBodytext.MoreFooter".len());
        let (per_char, a) = align(&runs, &original);
        let spans = spans_from_chars(&per_char);
        let got: Vec<(&str, &str)> = spans.iter().map(|s| (&original.text[s.start..s.end], s.label.as_str())).collect();
        assert_eq!(got, [("Big News", "headline"), ("Body text.\nMore", "full-text"), ("Footer", "not-content")]);
        assert_eq!((a.labelled_chars, a.aligned_chars, a.content_chars, a.content_aligned), (20, 20, 20, 20));
    }

    #[test]
    fn unaligned_characters_lower_the_share() {
        let (_, original) = divided("<p>Alpha beta</p>");
        let (annotated, _) = divided("<span class=x-nc-sel2>Alpha gamma</span>");
        let (_, a) = align(&annotated_chars(&annotated, &Divider::default()), &original);
        assert_eq!(a.labelled_chars, 10);
        assert!(a.share() < 1.0 && a.share() >= 0.6, "{}", a.share());
    }

    #[test]
    fn hosts() {
        assert_eq!(host("http://www.voanews.com/english/2007.cfm"), "voanews.com");
        assert_eq!(host("https://News.example.org:8080/x"), "news.example.org");
    }
}
