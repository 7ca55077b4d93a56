//! Output records and formats shared by the commands that print pages (`divide`, `features`,
//! `classify`, `extract`, `cross-extract`), kept in the library so other front ends (a Python
//! binding) write the same bytes.
//!
//! Input: a page and what a stage made of it (its [`Division`], its classified blocks, its
//! [`Article`]). Output: one record per page — a JSON object on one line, TSV rows, SVMlight
//! rows or plain text — as a `String` ending in a newline; printing a batch of them is the
//! caller's business.
//!
//! Invariants: a JSON record is one line (JSON Lines); TSV fields never hold a tab or a newline
//! ([`tsv_field`]); SVMlight indices are 1-based and zero or missing (NaN) values are left out.

use std::fmt::{self, Write as _};
use std::path::Path;

use ndarray::ArrayView2;
use serde::Serialize;

use crate::apply::{Article, ClassifiedBlock};
use crate::divide::{Block, Division};
use crate::page::{EncodingSource, Page, Repair};

/// An output format. Each command supports some of them ([`Format::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One JSON object per page and line (JSON Lines).
    Json,
    /// Tab-separated values with a header line, one line per block.
    Tsv,
    /// SVMlight rows (`label qid:PAGE index:value …`, 1-based indices), one line per block.
    Svmlight,
    /// Plain text for reading.
    Text,
    /// Markdown: the article's title as a heading, then its main text keeping headings, lists,
    /// links and tables ([`crate::markdown`]).
    Markdown,
}

impl Format {
    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Tsv => "tsv",
            Format::Svmlight => "svmlight",
            Format::Text => "text",
            Format::Markdown => "markdown",
        }
    }

    /// Checks that `command` supports this format.
    pub fn check(self, command: &'static str, supported: &'static [Format]) -> Result<(), UnsupportedFormat> {
        if supported.contains(&self) {
            Ok(())
        } else {
            Err(UnsupportedFormat { command, format: self, supported })
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format a command does not write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parcels {command}: --format {format} is not supported; use {}", or_list(supported))]
pub struct UnsupportedFormat {
    /// The command (`divide`, `classify`, …).
    pub command: &'static str,
    /// The format asked for.
    pub format: Format,
    /// The formats the command writes.
    pub supported: &'static [Format],
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(formats: &[Format]) -> String {
    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.to_string(),
        None => String::new(),
    }
}

/// Escapes tabs, newlines and backslashes so a text stays one TSV field.
pub fn tsv_field(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

/// The JSON record of a divided page (`parcels divide --format json`).
#[derive(Debug, Serialize)]
pub struct DividedPage<'a> {
    pub path: String,
    pub sha256: &'a str,
    pub encoding: &'static str,
    pub encoding_source: EncodingSource,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub repairs: &'a [Repair],
    /// The page text (the coordinates of the blocks' `chars`), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    pub blocks: &'a [Block],
}

impl<'a> DividedPage<'a> {
    /// The record of `page` divided into `division`, with the page text when `page_text`.
    pub fn new(page: &'a Page, division: &'a Division, page_text: bool) -> DividedPage<'a> {
        DividedPage {
            path: page.path.display().to_string(),
            sha256: &page.sha256,
            encoding: page.encoding.name(),
            encoding_source: page.encoding_source,
            repairs: &page.repairs,
            text: page_text.then_some(division.text.as_str()),
            blocks: &division.blocks,
        }
    }

    /// The record as one JSON line (with its newline).
    pub fn to_json_line(&self) -> String {
        // Serialising plain data to a String cannot fail.
        let mut s = serde_json::to_string(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// The header line of [`division_tsv`].
pub const DIVISION_TSV_HEADER: &str = "path\tid\tlocator\tcontainer\twords\tlinks\timages\thidden\ttext\n";

/// The blocks of a divided page as TSV rows (`parcels divide --format tsv`, without the header
/// [`DIVISION_TSV_HEADER`]).
pub fn division_tsv(page: &Page, division: &Division) -> String {
    let mut s = String::new();
    for b in &division.blocks {
        let _ = writeln!(
            s,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            page.path.display(),
            b.id,
            b.locator,
            b.container,
            b.words,
            b.links.len(),
            b.images.len(),
            b.hidden,
            tsv_field(&b.text)
        );
    }
    s
}

/// The JSON record of a classified page (`parcels classify`): `{"blocks", "path"}`.
pub fn classified_record(path: &Path, blocks: &[ClassifiedBlock]) -> serde_json::Value {
    serde_json::json!({ "path": path.display().to_string(), "blocks": blocks })
}

/// [`classified_record`] with every block's `probabilities`: `{label: probability}` from row `i`
/// of `probabilities` for block `i`, columns named by `labels` (rounded to 6 decimals).
pub fn classified_record_with_probabilities(path: &Path, blocks: &[ClassifiedBlock], labels: &[String], probabilities: ArrayView2<f64>) -> serde_json::Value {
    let mut record = classified_record(path, blocks);
    if let Some(records) = record["blocks"].as_array_mut() {
        for (block, row) in records.iter_mut().zip(probabilities.rows()) {
            let p: serde_json::Map<String, serde_json::Value> =
                labels.iter().zip(row).map(|(label, &p)| (label.clone(), serde_json::Value::from((p * 1e6).round() / 1e6))).collect();
            block["probabilities"] = serde_json::Value::Object(p);
        }
    }
    record
}

/// The blocks of a classified page as text, one line per block: `id<TAB>label<TAB>confidence<TAB>text`
/// (the text as a TSV field).
pub fn classified_text(blocks: &[ClassifiedBlock]) -> String {
    let mut s = String::new();
    for b in blocks {
        let _ = writeln!(s, "{}\t{}\t{:.3}\t{}", b.id, b.label, b.confidence, tsv_field(&b.text));
    }
    s
}

/// The JSON record of an extracted page (`parcels extract`, `parcels cross-extract`): the
/// article's fields, `path` and `blocks`.
pub fn article_record(path: &Path, article: &Article, blocks: &[ClassifiedBlock]) -> serde_json::Result<serde_json::Value> {
    let mut v = serde_json::to_value(article)?;
    v["path"] = serde_json::Value::from(path.display().to_string());
    v["blocks"] = serde_json::to_value(blocks)?;
    Ok(v)
}

/// An extracted page as text: the title, then the main text, then a blank line.
pub fn article_text(article: &Article) -> String {
    format!("{}\n{}\n\n", article.title.as_deref().unwrap_or_default(), article.main_text)
}

/// JSON text with the whitespace between its tokens removed (strings untouched): pretty-printed
/// JSON made one line, for JSON Lines records.
pub fn compact_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !c.is_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// Makes the link and image addresses of a division's blocks absolute against `base` (the page's
/// URL after its `<base href>`: [`crate::markdown::page_base`]).
pub fn absolute_links(division: &mut Division, base: &url::Url) {
    for b in &mut division.blocks {
        for l in &mut b.links {
            l.href = crate::markdown::resolve(Some(base), &l.href);
        }
        for i in &mut b.images {
            if let Some(src) = &mut i.src {
                *src = crate::markdown::resolve(Some(base), src);
            }
        }
    }
}

/// The message of an error and its causes joined by `: `, leaving out a cause whose text the
/// message already holds: most of our errors write their source into their own message, so
/// printing every cause (anyhow's `{:#}`) would say it twice. Used for error lines on stderr,
/// the importers' per-page reports and the Python exceptions.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// A JSON record line with more fields first (`{"url":…,"warc_record_id":…,` + the rest); a
/// field whose value is `None` is left out. Lines that are not a JSON object (TSV, text) are
/// returned unchanged.
pub fn with_fields(line: &str, fields: &[(&str, Option<&str>)]) -> String {
    let Some(rest) = line.strip_prefix('{') else { return line.to_string() };
    let mut out = String::from("{");
    for (name, value) in fields {
        if let Some(v) = value {
            let _ = write!(out, "{}:{},", serde_json::Value::from(*name), serde_json::Value::from(*v));
        }
    }
    if rest.starts_with('}') && out.ends_with(',') {
        out.pop();
    }
    out.push_str(rest);
    out
}

/// The JSON record of a page that failed, so a JSON Lines consumer sees every page:
/// `{"error", "path"}`.
pub fn error_record(path: &Path, error: &str) -> serde_json::Value {
    serde_json::json!({ "path": path.display().to_string(), "error": error })
}

/// How SVMlight values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SvmlightValues {
    /// The shortest text that reads back as the same number (the stylistic view).
    Exact,
    /// Integers as integers, other values rounded to 6 decimals, trailing zeros dropped (the
    /// lexical view's TF × IDF weights).
    Rounded,
}

/// Appends one SVMlight row: `label [qid:Q] index:value …` with the given 1-based indices; zero
/// and non-finite values are left out (absent indices read as zero).
pub fn svmlight_row(out: &mut String, label: i64, qid: Option<u64>, features: impl IntoIterator<Item = (usize, f64)>, values: SvmlightValues) {
    let _ = write!(out, "{label}");
    if let Some(q) = qid {
        let _ = write!(out, " qid:{q}");
    }
    for (index, v) in features.into_iter().filter(|(_, v)| v.is_finite() && *v != 0.0) {
        match values {
            SvmlightValues::Exact => {
                let _ = write!(out, " {index}:{v}");
            }
            SvmlightValues::Rounded => {
                let _ = write!(out, " {index}:{}", rounded(v));
            }
        }
    }
    out.push('\n');
}

fn rounded(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The stylistic view's dense rows as SVMlight, label 0, the page as query id.
pub fn stylistic_svmlight(rows: &[Vec<f64>], qid: u64) -> String {
    let mut out = String::new();
    for row in rows {
        svmlight_row(&mut out, 0, Some(qid), row.iter().enumerate().map(|(i, v)| (i + 1, *v)), SvmlightValues::Exact);
    }
    out
}

/// The lexical view's rows as SVMlight, label 0, the page as query id: the numeric features
/// first, then the stems (index = numeric width + stem id + 1), as in
/// [`crate::lexical::write_feature_names`].
pub fn lexical_svmlight(features: &crate::lexical::LexicalFeatures, qid: u64) -> String {
    let width = crate::lexical::numeric_feature_names().len();
    let mut out = String::new();
    for (numeric, tokens) in features.numeric.iter().zip(&features.tokens) {
        let numeric = numeric.iter().enumerate().map(|(j, v)| (j + 1, *v));
        let tokens = tokens.iter().map(|(id, v)| (width + *id as usize + 1, *v));
        svmlight_row(&mut out, 0, Some(qid), numeric.chain(tokens), SvmlightValues::Rounded);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_formats_name_the_supported_ones() {
        let e = Format::Text.check("divide", &[Format::Json, Format::Tsv]).unwrap_err();
        assert_eq!(e.to_string(), "parcels divide: --format text is not supported; use json or tsv");
        let e = Format::Text.check("features", &[Format::Json, Format::Tsv, Format::Svmlight]).unwrap_err();
        assert_eq!(e.to_string(), "parcels features: --format text is not supported; use json, tsv or svmlight");
        assert!(Format::Json.check("classify", &[Format::Json]).is_ok());
    }

    #[test]
    fn fields_are_added_in_front_of_a_json_record() {
        let line = "{\"path\":\"a.warc\",\"title\":\"T\"}\n";
        let out = with_fields(line, &[("url", Some("http://x/\"q\"")), ("warc_record_id", None)]);
        assert_eq!(out, "{\"url\":\"http://x/\\\"q\\\"\",\"path\":\"a.warc\",\"title\":\"T\"}\n");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["url"], "http://x/\"q\"");
        assert_eq!(with_fields("{}", &[("url", Some("u"))]), "{\"url\":\"u\"}");
        assert_eq!(with_fields("a\tb\n", &[("url", Some("u"))]), "a\tb\n");
    }

    #[test]
    fn compact_json_keeps_strings_and_drops_layout() {
        let pretty = "[\n  {\n    \"a b\": 1.5,\n    \"q\\\" x\": null\n  }\n]";
        assert_eq!(compact_json(pretty), "[{\"a b\":1.5,\"q\\\" x\":null}]");
        let v: serde_json::Value = serde_json::from_str(pretty).unwrap();
        assert_eq!(compact_json(pretty), v.to_string());
    }

    #[test]
    fn svmlight_rows_skip_zeros_and_missing_values() {
        let mut s = String::new();
        svmlight_row(&mut s, 0, Some(3), [(1, 0.0), (2, 1.5), (3, f64::NAN), (4, 2.0)], SvmlightValues::Exact);
        svmlight_row(&mut s, 1, None, [(1, 1.0 / 3.0), (2, 4.0)], SvmlightValues::Rounded);
        assert_eq!(s, "0 qid:3 2:1.5 4:2\n1 1:0.333333 2:4\n");
    }
}
