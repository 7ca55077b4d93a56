//! The `parcels` binary: batches, errors and outputs as a user meets them.

use std::path::PathBuf;
use std::process::Command;

fn parcels() -> Command {
    Command::new(env!("CARGO_BIN_EXE_parcels"))
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pages").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parcels-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_batch_goes_on_past_a_bad_page_and_says_so() {
    let dir = scratch("batch");
    let empty = dir.join("empty.html");
    std::fs::write(&empty, b"").unwrap();
    let out = parcels()
        .args(["divide", "--format", "json"])
        .arg(fixture("linear.html"))
        .arg(&empty)
        .arg(dir.join("missing.html"))
        .arg(fixture("latin1.html"))
        .output()
        .unwrap();
    // A missing input is that page's error; the batch goes on.
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{}: cannot read", dir.join("missing.html").display())), "{stderr}");
    let out = parcels().args(["divide", "--format", "json"]).arg(fixture("linear.html")).arg(&empty).arg(fixture("latin1.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "the failed page has its error record");
    assert_eq!(lines[0]["blocks"].as_array().unwrap().len(), 4);
    assert!(lines[1]["error"].as_str().unwrap().contains("page is empty"), "{}", lines[1]);
    assert_eq!(lines[2]["encoding"], "windows-1252");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(&format!("{}: page is empty", empty.display())), "{stderr}");
    assert!(stderr.contains("1 of 3 pages failed"), "{stderr}");
}

#[test]
fn tsv_output_and_html_view() {
    let dir = scratch("view");
    let view = dir.join("view.html");
    let out = parcels().args(["divide", "--format", "tsv", "--html"]).arg(&view).arg(fixture("table.html")).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(rows[0], "path\tid\tlocator\tcontainer\twords\tlinks\timages\thidden\ttext");
    assert_eq!(rows.len(), 14);
    assert!(rows[2].ends_with("\tHome"), "{}", rows[2]);
    let html = std::fs::read_to_string(&view).unwrap();
    assert_eq!(html.matches("class=\"parcels-badge\"").count(), 13);
}

#[test]
fn directories_are_walked_and_bad_configs_are_refused() {
    let out = parcels().args(["divide", "--format", "tsv"]).arg(fixture("")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains("utf16le.html\t0\t"));
    let dir = scratch("config");
    let bad = dir.join("divider.toml");
    std::fs::write(&bad, "max_depth = 'four'\n").unwrap();
    let out = parcels().args(["divide", "--divider"]).arg(&bad).arg(fixture("linear.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(&bad.display().to_string()) && stderr.contains("max_depth"), "{stderr}");
}

#[test]
fn every_subcommand_has_help() {
    for sub in [vec!["--help"], vec!["divide", "--help"]] {
        let out = parcels().args(&sub).output().unwrap();
        assert!(out.status.success(), "{sub:?}");
        assert!(String::from_utf8(out.stdout).unwrap().contains("Usage: parcels"));
    }
}

#[test]
fn a_page_can_come_from_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = parcels().args(["divide", "--format", "tsv", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(fixture("linear.html")).unwrap()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 5);
    assert!(stdout.lines().nth(1).unwrap().starts_with("<stdin>\t0\t"));
    let out = parcels().args(["divide", "-"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("<stdin>: page is empty"));
}

#[test]
fn a_reader_that_stops_early_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // Enough output to fill a pipe: every fixture many times over, as TSV.
    let pages: Vec<PathBuf> = (0..40).map(|_| fixture("")).collect();
    let mut child = parcels().args(["divide", "--format", "json", "--page-text"]).args(&pages).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("{\"path\""), "{first}");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
}

#[test]
fn a_format_a_command_does_not_write_is_refused_by_name() {
    let out = parcels().args(["divide", "--format", "text"]).arg(fixture("linear.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), "parcels divide: --format text is not supported; use json or tsv");
    let out = parcels().args(["features", "--view", "lexical", "--format", "text"]).arg(fixture("linear.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use json, tsv or svmlight"));
}

#[test]
fn threads_is_a_global_option() {
    let out = parcels().args(["--threads", "1", "divide", "--format", "tsv"]).arg(fixture("linear.html")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 5);
    let out = parcels().args(["divide", "--threads", "2"]).arg(fixture("linear.html")).output().unwrap();
    assert!(out.status.success());
}

#[test]
fn a_closed_stdout_does_not_make_println_panic() {
    use std::process::Stdio;
    let dir = scratch("report");
    std::fs::copy(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("reports/demo/results.json"), dir.join("results.json")).unwrap();
    let mut child = parcels().arg("report").arg(&dir).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // The command rebuilds the reports before it prints: its stdout is closed by then.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("Broken pipe") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn features_tsv_keeps_its_header_when_the_first_page_fails() {
    let dir = scratch("tsvheader");
    let empty = dir.join("empty.html");
    std::fs::write(&empty, b"").unwrap();
    for view in ["stylistic", "lexical"] {
        let out = parcels()
            .args(["features", "--view", view, "--format", "tsv"])
            .arg(&empty)
            .arg(fixture("linear.html"))
            .arg(fixture("table.html"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{view}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        // The header once, first, from the first page that succeeded; then only rows.
        assert!(lines[0].starts_with("path\tblock"), "{view}: {}", lines[0]);
        assert_eq!(lines.iter().filter(|l| l.starts_with("path\t")).count(), 1, "{view}: {stdout}");
        assert!(lines[1..].iter().all(|l| l.contains("linear.html\t") || l.contains("table.html\t")), "{view}: {stdout}");
        assert!(lines.iter().any(|l| l.contains("table.html\t")), "{view}");
    }
}

#[test]
fn extract_without_blocks_keeps_the_article_fields_only() {
    let with = parcels().arg("extract").arg(fixture("linear.html")).output().unwrap();
    let without = parcels().args(["extract", "--no-blocks"]).arg(fixture("linear.html")).output().unwrap();
    let with: serde_json::Value = serde_json::from_slice(&with.stdout).unwrap();
    let mut without: serde_json::Value = serde_json::from_slice(&without.stdout).unwrap();
    assert!(with["blocks"].as_array().is_some_and(|b| !b.is_empty()));
    assert!(without.get("blocks").is_none(), "{without}");
    without["blocks"] = with["blocks"].clone();
    assert_eq!(with, without, "only the block list differs");
}

#[test]
fn completions_and_man_page_cover_the_subcommands() {
    let bash = parcels().args(["completions", "bash"]).output().unwrap();
    assert_eq!(bash.status.code(), Some(0));
    let bash = String::from_utf8(bash.stdout).unwrap();
    assert!(bash.contains("cross-extract") && bash.contains("--no-blocks"), "bash completion lists subcommands and options");
    let man = parcels().arg("man").output().unwrap();
    assert_eq!(man.status.code(), Some(0));
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(man.starts_with(".ie") && man.contains(".SH NAME") && man.contains("extract"), "{}", &man[..200.min(man.len())]);
    let bad = parcels().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "clap refuses an unknown shell");
}

#[test]
fn extract_markdown_keeps_headings_links_and_makes_links_absolute_with_a_url() {
    let out =
        parcels().args(["extract", "--format", "markdown", "--url", "http://news.example/2008/03/story.html"]).arg(fixture("table.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8(out.stdout).unwrap();
    // One page: no page header; the title as a heading; paragraphs per block; a link resolved
    // against the page's URL (table.html has `href="/weather"`).
    assert!(md.starts_with("# Storm closes harbour for third day\n\n"), "{md}");
    assert!(md.contains("the port authority said.\n\nFerries to the islands"), "{md}");
    assert!(md.ends_with("cancelled until [the weather](http://news.example/weather) improves.\n"), "{md}");
    let out = parcels().args(["extract", "--format", "markdown"]).arg(fixture("table.html")).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("[the weather](/weather)"), "without a URL the link stays as written");
}

#[test]
fn text_formats_name_each_page_and_its_failures() {
    let missing = PathBuf::from("/nonexistent-parcels/page.html");
    for (command, format) in [("extract", "text"), ("extract", "markdown"), ("classify", "text")] {
        let out = parcels().args([command, "--format", format]).arg(fixture("linear.html")).arg(&missing).arg(fixture("table.html")).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{command} {format}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let headers: Vec<&str> = stdout.lines().filter(|l| l.starts_with("==> ")).collect();
        assert_eq!(
            headers,
            [
                format!("==> {} <==", fixture("linear.html").display()),
                format!("==> {} <==", missing.display()),
                format!("==> {} <==", fixture("table.html").display())
            ],
            "{command} {format}: {stdout}"
        );
        // The failure is said under its header, once, without repeating the path; a blank line
        // goes before every header but the first.
        let at = stdout.find(&format!("==> {} <==\nerror: cannot read: ", missing.display())).unwrap_or_else(|| panic!("{command} {format}: {stdout}"));
        assert!(stdout[..at].ends_with("\n\n"), "{command} {format}: {stdout}");
        assert_eq!(stdout.matches("os error 2").count(), 1, "{stdout}");
    }
    // One page: no header, as head(1) does.
    let out = parcels().args(["extract", "--format", "text"]).arg(fixture("linear.html")).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("Village fair draws record crowd\n"));
}

#[test]
fn divide_and_features_json_give_a_failed_page_its_error_record() {
    // Before: the failure went to stderr only, so a consumer of the JSON Lines lost the page.
    let missing = PathBuf::from("/nonexistent-parcels/page.html");
    for args in [vec!["divide"], vec!["features", "--view", "lexical"], vec!["features", "--view", "stylistic"]] {
        let out = parcels().args(&args).arg(fixture("linear.html")).arg(&missing).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let records: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(records.len(), 2, "{args:?}: {stdout}");
        assert!(records[0]["blocks"].is_array(), "{args:?}");
        assert_eq!(records[1]["path"], missing.display().to_string(), "{args:?}");
        assert!(records[1]["error"].as_str().unwrap().contains("cannot read"), "{args:?}: {}", records[1]);
    }
    // TSV rows name their page themselves: the failure is on stderr only.
    let out = parcels().args(["divide", "--format", "tsv"]).arg(fixture("linear.html")).arg(&missing).output().unwrap();
    assert!(!String::from_utf8(out.stdout).unwrap().contains("nonexistent"));
    assert!(String::from_utf8(out.stderr).unwrap().contains("nonexistent-parcels/page.html: cannot read"));
}

#[test]
fn url_is_recorded_resolves_links_and_names_one_page() {
    let url = "http://news.example/2008/03/story.html";
    let out = parcels().args(["extract", "--no-blocks", "--url", url]).arg(fixture("linear.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with(&format!("{{\"url\":\"{url}\",")), "url comes first, as in web-archive records: {stdout}");
    let out = parcels().args(["divide", "--url", url]).arg(fixture("table.html")).output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["url"], url);
    let hrefs: Vec<&str> =
        record["blocks"].as_array().unwrap().iter().flat_map(|b| b["links"].as_array().unwrap()).map(|l| l["href"].as_str().unwrap()).collect();
    assert!(!hrefs.is_empty() && hrefs.iter().all(|h| h.starts_with("http://news.example/")), "{hrefs:?}");
    // Contradictory or wrong: an error before any work.
    let out = parcels().args(["extract", "--url", url]).arg(fixture("linear.html")).arg(fixture("table.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--url names one page, but 2 inputs were given"));
    let out = parcels().args(["extract", "--url", "story.html"]).arg(fixture("linear.html")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--url story.html: not an absolute URL"));
}

#[test]
fn standard_input_is_read_when_no_page_is_named() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = parcels().args(["extract", "--no-blocks"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(fixture("linear.html")).unwrap()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((record["path"].as_str(), record["title"].as_str()), (Some("-"), Some("Village fair draws record crowd")));
}

#[test]
fn features_json_is_one_record_per_page_and_line() {
    for view in ["stylistic", "lexical"] {
        let out = parcels().args(["features", "--view", view]).arg(fixture("linear.html")).arg(fixture("table.html")).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{view}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let records: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(records.len(), 2, "{view}");
        assert!(records[1]["path"].as_str().unwrap().ends_with("table.html"), "{view}");
    }
}

/// A run that fails does not print "done" before its error (the progress line said "done in
/// X s" and then the error followed).
#[test]
fn a_failed_experiment_says_it_stopped_not_done() {
    let config = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/demo.toml");
    let out = parcels().arg("experiment").arg(&config).args(["--set", "evaluation.folds=50", "--out"]).arg(scratch("stopped")).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("demo: stopped after"), "{stderr}");
    assert!(!stderr.contains("done in"), "{stderr}");
    assert!(stderr.contains("evaluation.folds = 50"), "{stderr}");
}

/// `extract` and `classify` name a style sheet they could not find, as `features` does, and
/// still give the page its record: the labels were made without the sheet.
#[test]
fn extract_and_classify_name_a_missing_style_sheet() {
    let dir = scratch("sheetwarn");
    let page = dir.join("page.html");
    let html = r#"<html><head><title>Fair</title><link rel="stylesheet" href="gone.css"></head><body>
        <h1>Village fair draws record crowd</h1>
        <p>More than five thousand people came to the fair on Saturday, the organisers said.</p>
        </body></html>"#;
    std::fs::write(&page, html).unwrap();
    for command in ["extract", "classify"] {
        let out = parcels().args([command, "--format", "json"]).arg(&page).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("{}: style sheet gone.css not found", page.display())), "{command}: {stderr}");
        let record: serde_json::Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
        assert!(!record["blocks"].as_array().unwrap().is_empty(), "{command}: {record}");
    }
}

#[test]
fn features_with_a_config_prints_the_columns_its_learners_see() {
    let config = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/parcels-17-both-eras.toml");
    let features = |args: &[&str]| parcels().arg("features").args(args).arg("--config").arg(&config).arg(fixture("linear.html")).output().unwrap();
    // The config's opt-in groups are there: `metadata` in the lexical view, `semantics` tokens in
    // the stylistic one, which the plain `parcels features` never prints.
    let out = features(&["--view", "lexical"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let blocks = record["blocks"].as_array().unwrap();
    assert!(!blocks.is_empty());
    assert!(blocks[0]["numeric"].get("meta.has_title").is_some(), "{}", blocks[0]);
    let out = features(&["--view", "stylistic", "--format", "tsv"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    // The config's divider for both views: one row per block.
    assert_eq!(lines.len() - 1, blocks.len(), "{stdout}");
    let width = lines[0].split('\t').count();
    assert!(lines[0].contains("\tdens.text"), "{}", lines[0]);
    assert!(lines[1..].iter().all(|l| l.split('\t').count() == width), "{stdout}");
    assert!(lines[1..].iter().any(|l| l.rsplit('\t').next().unwrap().contains("tag:")), "semantics tokens: {stdout}");
    // `--set` changes the groups; a group the registry lacks is an error naming the config.
    let out = features(&["--view", "lexical", "--set", "views.lexical=[\"words\"]"]);
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["blocks"][0]["numeric"].as_object().unwrap().len(), 4, "{record}");
    let out = features(&["--view", "lexical", "--set", "views.lexical=[\"colour\"]"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("parcels-17-both-eras.toml") && stderr.contains("\"colour\""), "{stderr}");
}
