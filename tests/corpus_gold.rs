//! `parcels corpus import-gold`: hand-worked pages whose block labels are known, run through the
//! command; real pages of WCXB, Dragnet and CleanEval, whose gold must be covered; the shipped
//! label files still match their pages.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use parcels::corpus::gold::{self, GoldCorpus, Metadata};
use parcels::corpus::{label_files, load_labelled, LabelFile, LabelScheme};
use parcels::divide::Divider;

fn pages_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pages/gold")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parcels-gold-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn import(corpus: &str, dir: &Path, out: &Path) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["--threads", "1", "corpus", "import-gold", "--corpus", corpus])
        .arg(dir)
        .arg("--out")
        .arg(out.join("labels"))
        .arg("--report")
        .arg(out.join("alignment.tsv"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// (block text, label) of every block with text of a labelled page.
fn blocks(label_file: &Path, corpora: &Path) -> Vec<(String, String)> {
    let scheme = LabelScheme::built_in("gold-text").unwrap();
    let lp = load_labelled(label_file, corpora, &Divider::default(), &scheme).unwrap();
    lp.division
        .blocks
        .iter()
        .zip(&lp.gold)
        .filter(|(b, _)| !b.text.trim().is_empty())
        .map(|(b, g)| (b.text.clone(), g.label.map_or("-", |c| gold::GOLD_LABELS[c]).to_string()))
        .collect()
}

#[test]
fn a_hand_worked_wcxb_page_gets_its_known_labels() {
    let root = temp("wcxb");
    let corpus = root.join("mini-wcxb");
    std::fs::create_dir_all(corpus.join("html")).unwrap();
    std::fs::create_dir_all(corpus.join("ground-truth")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&std::fs::read(pages_dir().join("article.html")).unwrap()).unwrap();
    std::fs::write(corpus.join("html/0001.html.gz"), gz.finish().unwrap()).unwrap();
    std::fs::copy(pages_dir().join("article.json"), corpus.join("ground-truth/0001.json")).unwrap();
    std::fs::write(corpus.join("metadata.json"), r#"{"files": {"0001": {"page_type": "article", "domain": "valley-news.example"}}}"#).unwrap();
    let out = root.join("out");
    let stdout = import("wcxb", &corpus, &out);
    assert!(stdout.contains("1 pages: 1 labelled"), "{stdout}");
    assert!(stdout.contains("title: found on 1 of 1") && stdout.contains("author: found on 1 of 1") && stdout.contains("date: found on 1 of 1"), "{stdout}");
    let file = out.join("labels/0001.json");
    let labels = LabelFile::load(&file).unwrap();
    assert_eq!((labels.corpus.as_str(), labels.page.as_str(), labels.site.as_deref()), ("mini-wcxb", "html/0001.html.gz", Some("valley-news.example")));
    assert!(labels.spans.iter().all(|s| s.provenance == "gold-aligned" || (s.provenance == "gold-complement" && s.label == "other")));
    let got = blocks(&file, &root);
    let want = [
        ("Home News River", "other"),
        ("Home › Otters return to the river", "other"),
        ("Otters return to the river", "title"),
        ("By Mara Quill", "author"),
        ("Published 12 March 2024", "date"),
        ("For the first time in forty years, otters have been seen along the lower river.", "main-text"),
        ("Volunteers counted six animals near the old mill, and the trust says the water is cleaner than it has been in decades.", "main-text"),
        ("What changed", "main-text"),
        ("Two treatment works were rebuilt, and farms upstream planted buffer strips along the banks.", "main-text"),
        ("An otter near the mill. Photo: the trust", "other"),
        ("Most read", "other"),
        ("River festival returns The mill reopens", "other"),
        ("© 2024 Valley News. All rights reserved.", "other"),
    ];
    assert_eq!(got.iter().map(|(t, l)| (t.as_str(), l.as_str())).collect::<Vec<_>>(), want);
    let tsv = std::fs::read_to_string(out.join("alignment.tsv")).unwrap();
    let row: Vec<&str> = tsv.lines().nth(1).unwrap().split('\t').collect();
    assert_eq!(&row[..7], ["0001", "valley-news.example", "article", "ok", "53", "1.0000", "1.0000"]);
    assert_eq!(&row[12..15], ["found", "found", "found"]);
    // The label view colours the title block with the scheme's title colour.
    let view = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["corpus", "view"])
        .arg(out.join("labels"))
        .args(["--page", "0001", "--out"])
        .arg(out.join("view"))
        .arg("--corpora")
        .arg(&root)
        .output()
        .unwrap();
    assert!(view.status.success(), "{}", String::from_utf8_lossy(&view.stderr));
    let html = std::fs::read_to_string(out.join("view/0001.labels.html")).unwrap();
    assert!(html.contains("background:#ff8787") && html.contains(" title</") && html.contains(" main-text</"), "{html}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_hand_worked_dragnet_page_separates_article_and_comments() {
    let root = temp("dragnet");
    let corpus = root.join("mini-dragnet");
    std::fs::create_dir_all(corpus.join("input")).unwrap();
    std::fs::create_dir_all(corpus.join("GoldStandard")).unwrap();
    std::fs::copy(pages_dir().join("blog.html"), corpus.join("input/7.html")).unwrap();
    std::fs::copy(pages_dir().join("blog.txt"), corpus.join("GoldStandard/7.txt")).unwrap();
    // A page without gold is an error line; the batch goes on.
    std::fs::write(corpus.join("input/8.html"), "<p>no gold</p>").unwrap();
    let out = root.join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["--threads", "1", "corpus", "import-gold", "--corpus", "dragnet"])
        .arg(&corpus)
        .arg("--out")
        .arg(out.join("labels"))
        .arg("--report")
        .arg(out.join("alignment.tsv"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "some pages failed");
    assert!(String::from_utf8_lossy(&output.stderr).contains("8: "), "{}", String::from_utf8_lossy(&output.stderr));
    let file = out.join("labels/7.json");
    assert_eq!(LabelFile::load(&file).unwrap().site.as_deref(), Some("blog.example.org"));
    let got = blocks(&file, &root);
    let want = [
        ("Kite Blog | About", "other"),
        ("Flying kites in July", "main-text"),
        ("The wind on the hill was perfect this morning, steady from the west.", "main-text"),
        ("We flew the red box kite for an hour before the line snapped.", "main-text"),
        ("2 comments", "other"),
        ("Lovely photos, which hill was it?", "comments"),
        ("Try a thicker line next time!", "comments"),
        ("Archive: June 2012, May 2012", "other"),
    ];
    assert_eq!(got.iter().map(|(t, l)| (t.as_str(), l.as_str())).collect::<Vec<_>>(), want);
    let tsv = std::fs::read_to_string(out.join("alignment.tsv")).unwrap();
    assert!(tsv.lines().any(|l| l.starts_with("8\t") && l.contains("\terror\t")), "{tsv}");
    std::fs::remove_dir_all(&root).unwrap();
}

/// A few real pages of each corpus (not forums: WCXB's Discourse forums carry their posts only in
/// `<noscript>`): the gold is covered, and a fresh import reproduces the shipped label file.
#[test]
fn real_pages_are_covered_and_the_shipped_files_reproduce() {
    let Some(root) = common::corpora() else { return };
    let scheme = LabelScheme::built_in("gold-text").unwrap();
    let divider = Divider::default();
    for (corpus, dir, shipped, ids) in [
        // 0508: a Discourse topic whose posts sit in <noscript> (`page::Repair::ReadNoscript`).
        (GoldCorpus::Wcxb, "wcxb-dev", "corpora/wcxb-dev/labels", &["0001", "0253", "0483", "4371", "0508"][..]),
        (GoldCorpus::Dragnet, "dragnet", "corpora/dragnet/labels", &["100", "102", "T3", "R278"][..]),
        (GoldCorpus::CleanEval, "cleaneval-dev", "corpora/cleaneval-dev/labels", &["1", "10", "11"][..]),
    ] {
        let dir = root.join(dir);
        let meta = Metadata::load(corpus, &dir);
        let pages = gold::pages(corpus, &dir).unwrap();
        for id in ids {
            let page = pages.iter().find(|p| p.id == *id).unwrap_or_else(|| panic!("{id}"));
            let name = dir.file_name().unwrap().to_str().unwrap();
            let imported = gold::import_page(corpus, &dir, name, page, &meta, &divider, &scheme).unwrap();
            let f = imported.figures;
            assert!(f.coverage() > 0.9, "{name}/{id}: coverage {:.3}", f.coverage());
            assert!(f.split_blocks * 4 <= f.gold_blocks, "{name}/{id}: {} of {} gold blocks split", f.split_blocks, f.gold_blocks);
            if f.comment_words > 0 {
                assert!(f.comment_covered as f64 > 0.9 * f.comment_words as f64, "{name}/{id}: comments");
            }
            let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(shipped).join(format!("{id}.json"));
            assert_eq!(imported.labels, LabelFile::load(&file).unwrap(), "{}: re-run `parcels corpus import-gold`", file.display());
        }
    }
}

#[test]
fn shipped_gold_label_files_match_their_pages() {
    let Some(root) = common::corpora() else { return };
    let scheme = LabelScheme::built_in("gold-text").unwrap();
    for set in ["wcxb-dev", "dragnet", "cleaneval-dev"] {
        let files = label_files(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora").join(set).join("labels")).unwrap();
        assert!(files.len() > 50, "{set}: {} files", files.len());
        for f in files.iter().step_by(97) {
            let lp = load_labelled(f, &root, &Divider::default(), &scheme).unwrap();
            assert!(lp.gold.iter().any(|g| g.label == Some(0)), "{}: no main-text block", f.display());
        }
    }
}
