//! The visual annotator (`parcels annotate`): a local web page on which a person labels the
//! blocks of a corpus's pages, like the PARCELS toolkit's annotator (paper section 5.1).
//!
//! Input: a corpus directory (its name is the label files' `corpus`), optionally a manifest of
//! the pages to label, a label scheme. Output: one label file per page in the labels directory
//! (`<page file stem>.json`), spans of the page text with provenance `hand`
//! ([`crate::corpus::labels`]).
//!
//! Invariants:
//! - The server binds to 127.0.0.1 only, answers only requests whose `Host` is that address (or
//!   `localhost`) and port, and accepts changes only with the per-run token the page view
//!   carries, so neither another machine nor another web site can label or read through it.
//! - Every change is saved at once and atomically (`LabelFile::save`: temporary file, rename);
//!   a killed server loses nothing. Changes are serialised, so two requests never interleave
//!   their read-modify-write of a label file.
//! - No path comes from a request: pages are addressed by their index in the page list fixed at
//!   start-up, label files are named from that list, and every page is checked to lie inside the
//!   corpus directory (symbolic links included).
//! - Scripts of the annotated page never run: the view is the page's parsed tree, sanitised and
//!   re-serialised by html5ever, then parsed again and checked before it is served (`render`),
//!   under a Content-Security-Policy (HTTP header and `<meta>`) that allows only the
//!   annotator's own script, by a per-run nonce.
//! - The page cannot forge or shadow the annotator's names: its ids and classes starting with
//!   `parcels-`, its `data-block`/`data-badge`/`data-parcels-*` attributes and the `name` of its
//!   images and forms (which would hide `document`'s methods) are renamed or removed, and the
//!   script's data is a constant of the script itself.
//! - An existing label file that does not match its page (the page or the page text changed, or
//!   it names another page or scheme) is an error shown to the person; it is never overwritten.

mod app;
mod render;
mod server;

use std::collections::HashMap;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context};

pub use app::{Annotator, Request, Response};

use crate::corpus::{LabelScheme, Manifest};
use crate::divide::{Divider, DividerConfig};
use crate::files::list_pages;

/// Options of an annotation session (`parcels annotate`).
#[derive(Debug, Clone)]
pub struct AnnotateOptions {
    /// The corpus directory; its name is the label files' `corpus`, its HTML files (searched
    /// recursively) are the pages.
    pub corpus: PathBuf,
    /// Where the label files go, one `<page file stem>.json` per page; `None`:
    /// `corpora/<corpus name>/labels`.
    pub labels: Option<PathBuf>,
    /// Label scheme: a built-in name or a scheme file (TOML).
    pub scheme: String,
    /// Only the pages of this [`Manifest`] (paths relative to the corpus directory, optionally
    /// with their site).
    pub pages: Option<PathBuf>,
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Divider configuration; `None`: the built-in one.
    pub divider: Option<PathBuf>,
}

/// One page of the annotator's list.
#[derive(Debug, Clone)]
pub struct PageEntry {
    /// Path inside the corpus, `/`-separated: the label file's `page`.
    pub rel: String,
    /// Where the page is read from.
    pub path: PathBuf,
    /// Where its label file is written.
    pub label_path: PathBuf,
    /// The page's site, from the manifest; recorded in new label files.
    pub site: Option<String>,
}

/// Runs `parcels annotate` until the process is killed.
pub fn run(args: &AnnotateOptions) -> anyhow::Result<ExitCode> {
    if LabelScheme::built_in(&args.scheme).is_none() && !Path::new(&args.scheme).is_file() {
        bail!("--scheme {}: neither a built-in scheme (parcels-17, l3s-gn1, song-3level, binary) nor a scheme file", args.scheme);
    }
    let scheme = LabelScheme::resolve(&args.scheme)?;
    let divider = match &args.divider {
        Some(p) => Divider::new(DividerConfig::load(p)?),
        None => Divider::default(),
    };
    let (corpus_name, pages) = corpus_pages(&args.corpus, args.pages.as_deref(), args.labels.as_deref())?;
    let labels_dir = pages.first().and_then(|p| p.label_path.parent()).map(Path::to_path_buf).unwrap_or_default();
    let listener =
        TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port))).with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let port = listener.local_addr()?.port();
    let annotator = Annotator::new(corpus_name.clone(), pages, scheme, divider, port);
    // Written, not `println!`: a closed stdout is an error the command ends on quietly.
    let mut out = std::io::stdout().lock();
    writeln!(out, "parcels annotate: {} pages of {} ({}), labels in {}", annotator.page_count(), corpus_name, args.corpus.display(), labels_dir.display())?;
    writeln!(out, "open http://127.0.0.1:{port}/  (Ctrl-C stops; every change is already saved)")?;
    out.flush()?;
    drop(out);
    server::serve(listener, Arc::new(annotator));
    Ok(ExitCode::SUCCESS)
}

/// The corpus name and its pages (all HTML files under `corpus`, or those of `manifest`), each
/// with its label file in `labels` (default `corpora/<corpus name>/labels`).
pub fn corpus_pages(corpus: &Path, manifest: Option<&Path>, labels: Option<&Path>) -> anyhow::Result<(String, Vec<PageEntry>)> {
    let root = corpus.canonicalize().with_context(|| format!("{}: cannot open corpus directory", corpus.display()))?;
    if !root.is_dir() {
        bail!("{}: not a directory", corpus.display());
    }
    let name = root.file_name().and_then(|n| n.to_str()).with_context(|| format!("{}: the corpus directory needs a UTF-8 name", corpus.display()))?;
    let paths = match manifest {
        Some(m) => read_manifest(m, &root)?,
        None => list_pages(std::slice::from_ref(&root))?.into_iter().map(|p| (p, None)).collect(),
    };
    let labels_dir = labels.map_or_else(|| Path::new("corpora").join(name).join("labels"), Path::to_path_buf);
    let mut entries = Vec::with_capacity(paths.len());
    let mut by_name: HashMap<String, String> = HashMap::new();
    for (path, site) in paths {
        // A symbolic link may point outside the corpus: such a page is refused, not read.
        let real = path.canonicalize().with_context(|| format!("{}: cannot open page", path.display()))?;
        let Ok(inside) = real.strip_prefix(&root) else {
            eprintln!("{}: skipped: outside the corpus directory {}", path.display(), root.display());
            continue;
        };
        let rel = relative_name(path.strip_prefix(&root).unwrap_or(inside)).with_context(|| format!("{}: page path is not UTF-8", path.display()))?;
        let file = format!("{}.json", crate::corpus::page_stem(&rel));
        if let Some(other) = by_name.insert(file.clone(), rel.clone()) {
            bail!("{rel} and {other} would share the label file {file}; restrict the pages with --pages MANIFEST");
        }
        entries.push(PageEntry { rel, path: real, label_path: labels_dir.join(file), site });
    }
    if entries.is_empty() {
        bail!("{}: no pages (.html, .htm, .html.gz …) found", corpus.display());
    }
    Ok((name.to_string(), entries))
}

/// The pages of a [`Manifest`] under the corpus directory `root`, each with its site; a page
/// that does not exist is an error naming the manifest's line.
fn read_manifest(manifest: &Path, root: &Path) -> anyhow::Result<Vec<(PathBuf, Option<String>)>> {
    let m = Manifest::load(manifest)?;
    let mut out = Vec::with_capacity(m.entries.len());
    for entry in &m.entries {
        let path = root.join(&entry.page);
        if !path.is_file() {
            bail!("{}: {}: no such page", m.location(entry), path.display());
        }
        out.push((path, entry.site.clone()));
    }
    Ok(out)
}

/// `/`-separated path of a page inside its corpus.
fn relative_name(rel: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = rel.components().filter(|c| !matches!(c, Component::CurDir)).map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}


#[cfg(test)]
mod tests;
