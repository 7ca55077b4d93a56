//! Replays every input the fuzzers found (`tests/fuzz/regressions/<target>/`) through the same
//! code as its cargo-fuzz target (`tests/fuzz/src/lib.rs`, included here as a module), on
//! stable Rust: each must give a result or an error, never a panic. Inputs listed in
//! `tests/fuzz/regressions/KNOWN.md` (crashes of the issue's own list, fixed elsewhere) are
//! skipped by name until their fix lands and they are taken off that list.

#[allow(dead_code)]
#[path = "fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};

type Target = fn(&[u8]) -> Result<usize, String>;

const TARGETS: &[(&str, Target)] = &[("page_divide", targets::page_divide), ("css", targets::css), ("views", targets::views), ("extract", targets::extract)];

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/regressions")
}

/// `target/file` names listed in KNOWN.md: lines starting with "- `target/file`".
fn known() -> Vec<String> {
    let text = std::fs::read_to_string(regressions().join("KNOWN.md")).unwrap_or_default();
    text.lines().filter_map(|l| l.strip_prefix("- `")).filter_map(|l| l.split('`').next()).map(str::to_string).collect()
}

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = regressions().join(target);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|e| e.expect("a readable directory entry").path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

#[test]
fn every_fuzz_regression_gives_a_result_or_an_error() {
    let known = known();
    let mut failed = Vec::new();
    let mut replayed = 0;
    for &(target, run) in TARGETS {
        for path in inputs(target) {
            let name = format!("{target}/{}", path.file_name().unwrap().to_string_lossy());
            if known.contains(&name) {
                eprintln!("{name}: skipped (listed in tests/fuzz/regressions/KNOWN.md)");
                continue;
            }
            let data = std::fs::read(&path).expect("a readable regression input");
            replayed += 1;
            match std::panic::catch_unwind(|| run(&data)) {
                Ok(Ok(n)) => eprintln!("{name}: {n}"),
                Ok(Err(e)) => eprintln!("{name}: error: {e}"),
                Err(_) => failed.push(name),
            }
        }
    }
    eprintln!("{replayed} fuzz regression input(s) replayed");
    assert!(failed.is_empty(), "panicked: {failed:?}");
}

#[test]
fn every_known_crash_names_a_saved_input() {
    for name in known() {
        assert!(regressions().join(&name).is_file(), "KNOWN.md lists {name}, which is not in tests/fuzz/regressions/");
    }
}

/// The targets accept the project's own test pages (a smoke test of the harness itself).
#[test]
fn the_targets_run_on_a_test_page() {
    let page = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages/gold/article.html")).unwrap();
    let blocks = targets::page_divide(&page).expect("the page divides");
    assert!(blocks > 0);
    assert_eq!(targets::views(&page), Ok(blocks));
    assert_eq!(targets::extract(&page), Ok(blocks));
    assert!(targets::css(b"p { color: red } b { font-weight: 100 }").expect("the sheet applies") > 10);
    assert!(targets::page_divide(b"").is_err(), "an empty page is an error");
}
