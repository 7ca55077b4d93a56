//! Web archives through the `parcels` binary: the HTML responses of a WARC file come out as one
//! record each, with the URL and record id, the page's charset from HTTP, the same article as
//! the page file gives, and a damaged record as an error record while the file goes on.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pages").join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parcels-warc-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `response` record holding `payload` served with `content_type`.
fn response(n: u32, url: &str, content_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut block = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n", payload.len()).into_bytes();
    block.extend_from_slice(payload);
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012}>\r\nWARC-Date: 2026-11-23T00:00:00Z\r\nWARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(&block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn run(args: &[&Path]) -> (Option<i32>, Vec<serde_json::Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).arg("extract").args(args).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let records = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (out.status.code(), records, String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_common_crawl_style_archive_gives_one_record_per_html_response() {
    let dir = scratch("cc");
    let linear = std::fs::read(fixture("linear.html")).unwrap();
    // latin1.html declares nothing useful by itself here: its charset comes from HTTP.
    let latin1 = std::fs::read(fixture("latin1.html")).unwrap();
    let mut warc = Vec::new();
    for r in [
        response(1, "http://a.example/story", "text/html; charset=utf-8", &linear),
        response(2, "http://a.example/logo.png", "image/png", b"\x89PNG\r\n"),
        response(3, "http://b.example/latin", "text/html; charset=ISO-8859-1", &latin1),
    ] {
        warc.extend(gzip(&r)); // one gzip member per record, as Common Crawl ships them
    }
    let path = dir.join("shard.warc.gz");
    std::fs::write(&path, &warc).unwrap();

    let (code, records, stderr) = run(&[&path]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(records.len(), 2, "the PNG response is not a page: {records:?}");
    assert_eq!(records[0]["url"], "http://a.example/story");
    assert_eq!(records[0]["warc_record_id"], "<urn:uuid:00000000-0000-0000-0000-000000000001>");
    assert_eq!(records[0]["path"], path.display().to_string());
    assert_eq!(records[1]["url"], "http://b.example/latin");

    // The archive's page gives the same article as the page file.
    let (_, from_file, _) = run(&[&fixture("linear.html")]);
    for field in ["title", "main_text", "date", "reporter"] {
        assert_eq!(records[0][field], from_file[0][field], "{field}");
    }
    assert!(!records[1]["main_text"].as_str().unwrap_or_default().contains('\u{fffd}'), "decoded with the HTTP charset: {}", records[1]["main_text"]);
}

#[test]
fn a_damaged_record_is_an_error_record_and_the_archive_goes_on() {
    let dir = scratch("damaged");
    let linear = std::fs::read(fixture("linear.html")).unwrap();
    let good = response(4, "http://c.example/ok", "text/html", &linear);
    // The record claims 3 bytes fewer than it holds: its end is not where its header says.
    let bad = String::from_utf8(response(5, "http://c.example/bad", "text/html", b"<p>x</p>")).unwrap();
    let claimed: usize = bad.split("Content-Length: ").nth(1).unwrap().split("\r\n").next().unwrap().parse().unwrap();
    let bad = bad.replacen(&format!("Content-Length: {claimed}"), &format!("Content-Length: {}", claimed - 3), 1);
    let mut warc = bad.into_bytes();
    warc.extend(&good);
    let path = dir.join("damaged.warc");
    std::fs::write(&path, &warc).unwrap();
    let missing = dir.join("missing.warc.gz");

    let (code, records, stderr) = run(&[&path, &missing]);
    assert_eq!(code, Some(2), "some pages failed: {stderr}");
    assert_eq!(records.len(), 3, "{records:?}");
    assert!(records[0]["error"].is_string(), "{}", records[0]);
    assert_eq!(records[0]["url"], "http://c.example/bad");
    assert_eq!(records[1]["url"], "http://c.example/ok");
    assert!(records[1]["main_text"].is_string());
    assert!(records[2]["error"].as_str().unwrap().contains("missing.warc.gz"), "{}", records[2]);
    assert!(!missing.exists(), "a missing archive is not created");
    assert!(stderr.contains("damaged.warc <urn:uuid:00000000-0000-0000-0000-000000000005> (http://c.example/bad)"), "{stderr}");
}

#[test]
fn archive_pages_in_markdown_are_named_by_url_and_resolve_links_against_it() {
    let dir = scratch("markdown");
    let table = std::fs::read(fixture("table.html")).unwrap();
    let mut warc = response(6, "http://d.example/2008/storm.html", "text/html", &table);
    warc.extend(response(7, "http://e.example/other/page.html", "text/html", &table));
    let path = dir.join("pages.warc");
    std::fs::write(&path, &warc).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_parcels")).args(["extract", "--format", "markdown"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8(out.stdout).unwrap();
    let headers: Vec<&str> = md.lines().filter(|l| l.starts_with("==> ")).collect();
    assert_eq!(
        headers,
        [format!("==> {} http://d.example/2008/storm.html <==", path.display()), format!("==> {} http://e.example/other/page.html <==", path.display())]
    );
    // table.html links to `/weather`: each record's link is absolute on its own site.
    assert!(md.contains("[the weather](http://d.example/weather)") && md.contains("[the weather](http://e.example/weather)"), "{md}");
}
