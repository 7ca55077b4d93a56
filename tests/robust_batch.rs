//! Robustness of a batch as the `parcels` binary runs it: one bad input (missing, not HTML, a
//! named pipe) is that page's error, and the other pages are still processed.

use std::path::PathBuf;
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pages").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parcels-robust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn missing_path_does_not_abort_the_batch() {
    let ok = fixture("linear.html");
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).arg("extract").arg(&ok).arg("/nonexistent.html").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "some pages failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let records: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 2, "{stdout}");
    assert_eq!(records[0]["path"], ok.display().to_string());
    assert!(records[0].get("error").is_none(), "{}", records[0]);
    let error = records[1]["error"].as_str().unwrap();
    assert!(error.starts_with("/nonexistent.html: cannot read: "), "{error}");
    assert_eq!(error.matches("os error 2").count(), 1, "the OS error is said once: {error}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.matches("os error 2").count(), 1, "{stderr}");
}

#[test]
fn non_html_and_fifo_inputs_are_per_page_errors() {
    let dir = scratch("inputs");
    let toml = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let fifo = dir.join("pipe.html");
    let has_fifo = Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parcels"));
    cmd.arg("divide").arg(&toml).arg(fixture("linear.html"));
    if has_fifo {
        cmd.arg(&fifo);
    }
    // A FIFO opened for reading would block until a writer comes: bound the run.
    let mut child = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("parcels hung on the inputs");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(&format!("{}: not HTML", toml.display())), "{stderr}");
    if has_fifo {
        assert!(stderr.contains(&format!("{}: not a regular file (a named pipe)", fifo.display())), "{stderr}");
    }
    // linear.html is still divided; the other inputs are error records.
    let records: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), if has_fifo { 3 } else { 2 });
    assert_eq!(records.iter().filter(|r| r["blocks"].is_array()).count(), 1, "linear.html is still divided");
    assert!(records.iter().any(|r| r["path"] == toml.display().to_string() && r["error"].as_str().unwrap_or_default().contains("not HTML")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_url_given_as_a_path_is_its_pages_error_with_a_hint() {
    let out = Command::new(env!("CARGO_BIN_EXE_parcels"))
        .args(["extract", "--no-blocks"])
        .arg(fixture("linear.html"))
        .arg("https://example.com/story.html")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let records: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 2, "{stdout}");
    assert_eq!(records[0]["title"], "Village fair draws record crowd");
    let error = records[1]["error"].as_str().unwrap();
    assert!(error.starts_with("https://example.com/story.html: ") && error.contains("not URLs"), "{error}");
}

#[test]
fn extract_piped_into_a_reader_that_stops_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // Enough records to fill the pipe before the reader goes away.
    let pages: Vec<PathBuf> = (0..300).map(|_| fixture("table.html")).collect();
    for format in ["json", "text", "markdown"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_parcels"))
            .args(["--threads", "1", "extract", "--format", format])
            .args(&pages)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{format}");
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{format}: {stderr}");
    }
}
