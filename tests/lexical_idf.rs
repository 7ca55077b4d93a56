//! The shipped IDF table (`corpora/idf/dragnet.tsv`) and how it is rebuilt.
//!
//! Until `parcels idf build` is wired into the binary, the table is rebuilt with
//! `cargo test --release --test lexical_idf -- --ignored build_dragnet_table`, which counts the
//! Dragnet pages (`../shared/corpora/dragnet/input/*.html`, or `$PARCELS_CORPORA/dragnet/input`).

use std::path::PathBuf;

use parcels::divide::Divider;
use parcels::lexical::{build_idf, IdfTable, DEFAULT_MIN_DF, TOKENISER_VERSION};
use parcels::page::LoadOptions;

const MIN_DF: u64 = DEFAULT_MIN_DF;

fn shipped() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpora/idf/dragnet.tsv")
}

fn corpora() -> PathBuf {
    std::env::var_os("PARCELS_CORPORA").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"))
}

#[test]
fn shipped_table_loads_and_is_plausible() {
    let t = IdfTable::load(shipped()).unwrap();
    assert_eq!(t.documents(), 1381);
    assert_eq!(t.min_df(), MIN_DF);
    assert!(t.len() > 10_000, "{} stems", t.len());
    // Function words are in nearly every page; a news word in fewer; numbers share one stem.
    assert!(t.idf("the") < 1.05, "idf(the) = {}", t.idf("the"));
    assert!(t.idf("newslett") > t.idf("the"));
    assert!(t.df("<num>") > 1300);
    assert!(t.idf("zzzqqq-never") == t.unknown_idf());
    let _ = TOKENISER_VERSION;
    // The compiled-in copy is the file.
    assert_eq!(IdfTable::dragnet().unwrap(), t);
}

/// Three pages, "the cat sat", "the dog sat", "the cats ran" (stem `cat` twice in the
/// third page counts once), and an empty file that is skipped.
#[test]
fn build_counts_pages_and_skips_unreadable_ones() {
    let dir = std::env::temp_dir().join(format!("parcels-idf-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pages = ["<p>The cat sat.</p>", "<p>the dog</p><p>sat</p>", "<p>The cats ran, the cat too</p>", ""];
    let paths: Vec<PathBuf> = pages
        .iter()
        .enumerate()
        .map(|(i, html)| {
            let p = dir.join(format!("{i}.html"));
            std::fs::write(&p, html).unwrap();
            p
        })
        .collect();
    let build = build_idf(&paths, &Divider::default(), &LoadOptions::default(), 1).unwrap();
    assert_eq!(build.skipped.len(), 1);
    assert!(build.skipped[0].to_string().contains("3.html"));
    let t = &build.table;
    assert_eq!(t.documents(), 3);
    assert_eq!((t.df("the"), t.df("cat"), t.df("sat"), t.df("dog"), t.df("ran")), (3, 2, 2, 1, 1));
    // ln(4/3) + 1, ln(4/2) + 1, and ln(4/1) + 1 for a stem never seen.
    assert!((t.idf("cat") - 1.287_682_07).abs() < 1e-6);
    assert!((t.idf("dog") - 1.693_147_18).abs() < 1e-6);
    assert!((t.idf("bird") - 2.386_294_36).abs() < 1e-6);
    let saved = dir.join("toy.tsv");
    t.save(&saved).unwrap();
    assert_eq!(&IdfTable::load(&saved).unwrap(), t);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "rebuilds corpora/idf/dragnet.tsv from the Dragnet pages (about 5 s in release on 2 cores)"]
fn build_dragnet_table() {
    let dir = corpora().join("dragnet/input");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} not found", dir.display());
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "html")).collect();
    paths.sort();
    let start = std::time::Instant::now();
    let build = build_idf(&paths, &Divider::default(), &LoadOptions::default(), MIN_DF).unwrap();
    for e in &build.skipped {
        eprintln!("skipped: {e}");
    }
    build.table.save(shipped()).unwrap();
    eprintln!(
        "{} pages ({} skipped), {} stems with df >= {MIN_DF}, in {:.1}s",
        build.table.documents(),
        build.skipped.len(),
        build.table.len(),
        start.elapsed().as_secs_f64()
    );
}
