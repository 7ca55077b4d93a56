//! What each fuzz target runs, shared by the cargo-fuzz targets (`tests/fuzz/fuzz_targets/`)
//! and the stable replay test (`tests/fuzz_regressions.rs`, which includes this file as a
//! module), so a saved crash replays through exactly the code that found it.
//!
//! Each function takes the fuzzer's bytes and calls the library the way the command line does:
//! a page is loaded from bytes with the default [`LoadOptions`] (encoding sniffing, gzip, the
//! repairs and bounds), divided with the default divider, and so on. It returns `Ok` with a
//! small summary of the result or `Err` with the error the command line would print for the
//! page; it panics only where the library does, or where a result breaks an invariant that
//! holds for every page (one feature row per block, no infinite feature value, an article made
//! of the page's blocks).
//!
//! Pages are named `/nonexistent/parcels-fuzz/page.html`, so `<link rel=stylesheet>` and
//! `@import` resolve to files that do not exist (a missing-sheet warning), never to files of
//! the machine running the fuzzer.

use std::sync::OnceLock;

use parcels::apply::Classifier;
use parcels::css::{CssOptions, StyledDom};
use parcels::divide::{view, Divider};
use parcels::lexical::IdfTable;
use parcels::matrix::FeatureMatrix;
use parcels::output::{self, DividedPage};
use parcels::page::{LoadOptions, Page};
use parcels::stylistic::StyleOptions;
use parcels::views::{Registry, ViewBuilder, ViewConfig, ViewKind};

/// Inputs are cut to this many bytes, so a run measures parsing logic rather than size (the
/// issue's size bounds are tested separately, in `tests/hostile_bounds.rs`).
pub const MAX_INPUT: usize = 256 * 1024;

/// The name pages are loaded under (see the module docs).
pub const PAGE_PATH: &str = "/nonexistent/parcels-fuzz/page.html";

fn capped(data: &[u8]) -> &[u8] {
    &data[..data.len().min(MAX_INPUT)]
}

fn load(data: &[u8]) -> Result<Page, String> {
    Page::from_bytes(PAGE_PATH, capped(data), &LoadOptions::default()).map_err(|e| e.to_string())
}

/// Target `page_divide`: bytes → page loading (encoding sniffing, gzip, repairs, bounds) →
/// division → the `divide` command's JSON line and TSV and its `--html` block view. Returns
/// the number of blocks.
pub fn page_divide(data: &[u8]) -> Result<usize, String> {
    let page = load(data)?;
    let division = Divider::default().divide(&page);
    let json = DividedPage::new(&page, &division, true).to_json_line();
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "the divide record is not JSON: {json}");
    let tsv = output::division_tsv(&page, &division);
    assert_eq!(tsv.lines().count(), division.blocks.len(), "the divide TSV has one line per block");
    let _ = view::render(&page, &division, &view::ViewOptions::default());
    Ok(division.blocks.len())
}

/// Target `css`: the bytes (as UTF-8, lossily) as a page's `<style>` sheet and as a `style`
/// attribute, in a tiny page with a few elements to match, through the cascade. Returns the
/// number of elements styled.
pub fn css(data: &[u8]) -> Result<usize, String> {
    let sheet = String::from_utf8_lossy(capped(data));
    let attribute = sheet.replace('"', "&quot;");
    let html = format!(
        "<!doctype html><html><head><style>{sheet}</style></head><body class=a id=b>\
         <div class=\"a b\" id=main style=\"{attribute}\"><p lang=en>One <b>two</b> <a href=#x>three</a></p>\
         <table><tr><td>4<td>5</table><ul><li>six<li><img src=x.png alt=seven></ul></div></body></html>"
    );
    let page = Page::from_bytes(PAGE_PATH, html.as_bytes(), &LoadOptions::default()).map_err(|e| e.to_string())?;
    let styled = StyledDom::compute(&page, &CssOptions::default()).map_err(|e| e.to_string())?;
    Ok(styled.len())
}

/// Every built-in feature group of each view, the opt-in ones (`semantics`, `density`, `headline`,
/// `metadata`) included.
fn all_groups() -> ViewConfig {
    let registry = Registry::builtin();
    let names = |view| registry.known_names(view).into_iter().map(str::to_string).collect();
    ViewConfig { stylistic: names(ViewKind::Stylistic), lexical: names(ViewKind::Lexical) }
}

fn view_builder() -> &'static ViewBuilder {
    static BUILDER: OnceLock<ViewBuilder> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let idf = IdfTable::dragnet().expect("the shipped IDF table loads");
        ViewBuilder::new(&all_groups(), idf, StyleOptions::default()).expect("every built-in group builds")
    })
}

fn check_matrix(view: &str, m: &FeatureMatrix, blocks: usize) {
    assert_eq!(m.n_rows(), blocks, "{view} view: one row per block");
    if let Some(v) = m.numeric().iter().find(|v| v.is_infinite()) {
        panic!("{view} view: an infinite feature value ({v})");
    }
    let tokens = m.tokens();
    for row in 0..tokens.n_rows() {
        let (_, weights) = tokens.row(row);
        assert!(weights.iter().all(|w| w.is_finite()), "{view} view: a token weight that is not finite");
    }
}

/// Target `views`: bytes → page → division → both views' features with every built-in group,
/// the opt-in ones included. Returns the number of blocks.
pub fn views(data: &[u8]) -> Result<usize, String> {
    let page = load(data)?;
    let division = Divider::default().divide(&page);
    let views = view_builder().build(&page, &division).map_err(|e| e.to_string())?;
    check_matrix("stylistic", &views.stylistic, division.blocks.len());
    check_matrix("lexical", &views.lexical, division.blocks.len());
    Ok(division.blocks.len())
}

fn classifier() -> &'static Classifier {
    static CLASSIFIER: OnceLock<Classifier> = OnceLock::new();
    CLASSIFIER.get_or_init(|| {
        let model = parcels::models::default_model().expect("the shipped model loads");
        Classifier::new(model).expect("the shipped model fits this parcels")
    })
}

/// Target `extract`: bytes → page → the shipped default model's extraction and the `extract`
/// command's JSON record and text. Returns the number of blocks.
pub fn extract(data: &[u8]) -> Result<usize, String> {
    let page = load(data)?;
    let parcels::apply::Extracted { article, blocks, .. } = classifier().extract(&page).map_err(|e| e.to_string())?;
    for b in &blocks {
        assert!(b.confidence.is_finite(), "block {}: confidence {}", b.id, b.confidence);
    }
    let record = output::article_record(page.path.as_path(), &article, &blocks).map_err(|e| e.to_string())?;
    assert!(record.is_object());
    let _ = output::article_text(&article);
    Ok(blocks.len())
}
