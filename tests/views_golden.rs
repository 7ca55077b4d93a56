//! The feature matrices of the default view config must stay bit-identical across refactorings
//! of how feature groups are defined (experiment figures and shipped models depend on them).
//!
//! `tests/views_golden.tsv` holds, per page and view, the shape and an FNV-1a digest of the
//! column names and of every value's bits, written by the code before the feature-group registry
//! existed. Regenerate only for an intended feature change: `PARCELS_WRITE_GOLDEN=1 cargo test
//! --release --test views_golden`.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use parcels::divide::Divider;
use parcels::lexical::IdfTable;
use parcels::matrix::FeatureMatrix;
use parcels::page::{LoadOptions, Page};
use parcels::stylistic::StyleOptions;
use parcels::views::{ViewBuilder, ViewConfig};

struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= u64::from(x);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn f64(&mut self, v: f64) {
        self.bytes(&v.to_bits().to_le_bytes());
    }
    fn usize(&mut self, v: usize) {
        self.bytes(&(v as u64).to_le_bytes());
    }
}

/// `rows cols tokens names-digest values-digest` of one view's matrix.
fn digest(m: &FeatureMatrix) -> String {
    let mut names = Fnv::new();
    for n in m.numeric_names().iter().chain(m.token_names()) {
        names.bytes(n.as_bytes());
        names.bytes(&[0]);
    }
    let mut values = Fnv::new();
    for v in m.numeric().iter() {
        values.f64(*v);
    }
    for r in 0..m.n_rows() {
        let (cols, weights) = m.tokens().row(r);
        values.usize(r);
        for (c, w) in cols.iter().zip(weights) {
            values.usize(*c);
            values.f64(*w);
        }
    }
    format!("{}\t{}\t{}\t{:016x}\t{:016x}", m.n_rows(), m.n_numeric(), m.n_tokens(), names.0, values.0)
}

/// Test pages of the repository, then the first pages of each corpus (when present).
fn pages() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for sub in ["tests/pages", "tests/pages/css"] {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(root.join(sub)).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "html")).collect();
        files.sort();
        out.extend(files.into_iter().map(|p| (format!("{sub}/{}", p.file_name().unwrap().to_string_lossy()), p)));
    }
    if let Some(corpora) = common::corpora() {
        let mut per_corpus: Vec<(&str, Vec<PathBuf>)> = Vec::new();
        for (name, p) in common::corpus_pages(&corpora) {
            match per_corpus.last_mut() {
                Some((n, v)) if *n == name => v.push(p),
                _ => per_corpus.push((name, vec![p])),
            }
        }
        for (name, files) in per_corpus {
            out.extend(files.into_iter().take(4).map(|p| (format!("{name}/{}", p.file_name().unwrap().to_string_lossy()), p)));
        }
    }
    out
}

fn golden_lines() -> String {
    let builder = ViewBuilder::new(&ViewConfig::default(), IdfTable::dragnet().unwrap(), StyleOptions::default()).unwrap();
    let mut out = String::new();
    for (name, path) in pages() {
        let page = Page::load(&path, &LoadOptions::default()).unwrap();
        let division = Divider::default().divide(&page);
        let views = builder.build(&page, &division).unwrap();
        let _ = writeln!(out, "{name}\tstylistic\t{}", digest(&views.stylistic));
        let _ = writeln!(out, "{name}\tlexical\t{}", digest(&views.lexical));
    }
    out
}

#[test]
fn default_views_are_bit_identical_to_the_recorded_ones() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/views_golden.tsv");
    let now = golden_lines();
    if std::env::var_os("PARCELS_WRITE_GOLDEN").is_some() {
        std::fs::write(&file, &now).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(&file).unwrap();
    let recorded: std::collections::HashMap<&str, &str> = recorded.lines().map(key).collect();
    let mut checked = 0;
    for line in now.lines() {
        let (k, v) = key(line);
        let Some(old) = recorded.get(k) else { continue }; // a corpus page absent when recording
        assert_eq!(v, *old, "{k}: features changed");
        checked += 1;
    }
    assert!(checked >= 2 * 14, "only {checked} matrices compared");
}

/// `page\tview` and the rest of a golden line.
fn key(line: &str) -> (&str, &str) {
    let first = line.find('\t').unwrap();
    let second = first + 1 + line[first + 1..].find('\t').unwrap();
    (&line[..second], &line[second + 1..])
}
