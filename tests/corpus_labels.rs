//! The shipped label files against the shared corpora: every file still matches its page (same
//! bytes, same page text), and a fresh import of L3S-GN1 pages reproduces the shipped files.

mod common;

use std::path::PathBuf;

use parcels::corpus::{l3s, label_files, load_labelled, set_stats, LabelFile, LabelScheme};
use parcels::divide::Divider;

fn l3s_labels() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/l3s-gn1/labels")
}

#[test]
fn every_shipped_l3s_label_file_matches_its_page() {
    let Some(root) = common::corpora() else { return };
    let files = label_files(&l3s_labels()).unwrap();
    assert_eq!(files.len(), 496);
    let scheme = LabelScheme::built_in("l3s-gn1").unwrap();
    let stats = set_stats(&files, &root, &Divider::default(), &scheme, None);
    assert!(stats.failures.is_empty(), "{:#?}", stats.failures);
    let (all, content) = stats.alignment.unwrap();
    assert!(all > 0.99 && content > 0.99, "alignment {all} / {content}");
    assert!(stats.poorly_aligned.len() <= 10, "{:?}", stats.poorly_aligned);
    let full_text = stats.per_class.iter().find(|(l, _)| l == "full-text").unwrap().1;
    assert!(full_text > 5000, "full-text blocks: {full_text}");
}

#[test]
fn a_fresh_import_reproduces_the_shipped_files() {
    let Some(root) = common::corpora() else { return };
    let scheme = LabelScheme::built_in("l3s-gn1").unwrap();
    let dir = root.join("l3s-gn1");
    let sites = l3s::sites(&dir);
    for uuid in l3s::page_ids(&dir).unwrap().iter().step_by(25) {
        let mut imported = l3s::import_page(&dir, uuid, &Divider::default(), &scheme).unwrap();
        imported.labels.site = sites.get(uuid).cloned();
        let shipped = LabelFile::load(l3s_labels().join(format!("{uuid}.json"))).unwrap();
        assert_eq!(imported.labels, shipped, "{uuid}: re-run `parcels corpus import-l3s ../shared/corpora/l3s-gn1`");
    }
}

#[test]
fn a_changed_page_is_an_error_not_a_mislabel() {
    let Some(root) = common::corpora() else { return };
    let files = label_files(&l3s_labels()).unwrap();
    let mut labels = LabelFile::load(&files[0]).unwrap();
    labels.sha256 = "0".repeat(64);
    let dir = std::env::temp_dir().join(format!("parcels-changed-{}", std::process::id()));
    let path = dir.join("changed.json");
    labels.save(&path).unwrap();
    let scheme = LabelScheme::built_in("l3s-gn1").unwrap();
    let err = load_labelled(&path, &root, &Divider::default(), &scheme).err().expect("must fail");
    assert!(err.to_string().contains("the page changed"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
