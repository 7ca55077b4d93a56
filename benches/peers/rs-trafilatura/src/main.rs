//! Runs rs-trafilatura (default `Options`, the page's bytes with its own encoding detection) on
//! every page named on the command line and writes one JSON line per page, in the record shape
//! `parcels extract` uses: `{"path", "main_text", "title", "reporter", "date"}`, or
//! `{"path", "error"}` when the page cannot be read or the extractor fails or panics. Pages whose
//! name ends in `.gz` are decompressed first. Used by `benches/peers/extract_peers.py`.

use std::io::{BufWriter, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn read_page(path: &str) -> std::io::Result<Vec<u8>> {
    let raw = std::fs::read(path)?;
    if path.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out)?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

fn record(path: &str) -> serde_json::Value {
    let bytes = match read_page(path) {
        Ok(b) => b,
        Err(e) => return serde_json::json!({ "path": path, "error": format!("read: {e}") }),
    };
    let options = rs_trafilatura::Options::default();
    match catch_unwind(AssertUnwindSafe(|| rs_trafilatura::extract_bytes_with_options(&bytes, &options))) {
        Ok(Ok(r)) => serde_json::json!({
            "path": path,
            "main_text": r.content_text,
            "title": r.metadata.title,
            "reporter": r.metadata.author,
            "date": r.metadata.date.map(|d| d.format("%Y-%m-%d").to_string()),
        }),
        Ok(Err(e)) => serde_json::json!({ "path": path, "error": e.to_string() }),
        Err(_) => serde_json::json!({ "path": path, "error": "rs-trafilatura panicked" }),
    }
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for path in std::env::args().skip(1) {
        let line = record(&path);
        if writeln!(out, "{line}").is_err() {
            std::process::exit(1);
        }
    }
    if out.flush().is_err() {
        std::process::exit(1);
    }
}
