//! The command line's subcommands, as library functions: `main.rs` parses arguments into the
//! `*Args` types here and calls the matching function.
//!
//! Batches follow ripgrep's habit: a bad page is reported on stderr as `path: problem` and
//! skipped, the others go on, and the exit status says that something failed (2). Errors that
//! stop the whole command (a bad configuration, an unwritable output) exit with 1.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use rayon::prelude::*;

use crate::divide::{view, Block, Divider, DividerConfig, Division};
use crate::files::{list_pages, write_atomic};
use crate::page::{LoadOptions, Page};

/// Exit status when some pages of a batch failed and the rest were processed.
pub const EXIT_SOME_FAILED: u8 = 2;

/// Options shared by every command that reads pages.
#[derive(Debug, Clone, clap::Args)]
pub struct PageArgs {
    /// Pages to read: files, or directories searched recursively for .html/.htm(.gz) files.
    #[arg(required = true, value_name = "PAGE")]
    pub pages: Vec<PathBuf>,
    /// Divider configuration (tag inventory); the built-in one is configs/divider.toml.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
    /// Largest page accepted, in bytes.
    #[arg(long, default_value_t = LoadOptions::default().max_bytes, value_name = "BYTES")]
    pub max_bytes: usize,
}

impl PageArgs {
    fn load_options(&self) -> LoadOptions {
        LoadOptions { max_bytes: self.max_bytes, ..LoadOptions::default() }
    }

    fn divider(&self) -> anyhow::Result<Divider> {
        let config = match &self.divider {
            Some(path) => DividerConfig::load(path)?,
            None => DividerConfig::default(),
        };
        Ok(Divider::new(config))
    }
}

/// Output format of `parcels divide`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DivideFormat {
    /// One JSON object per page and line (JSON Lines).
    Json,
    /// One line per block, tab-separated, with a header line.
    Tsv,
}

/// `parcels divide`: divides pages into blocks.
#[derive(Debug, Clone, clap::Args)]
pub struct DivideArgs {
    #[command(flatten)]
    pub input: PageArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DivideFormat::Json)]
    pub format: DivideFormat,
    /// Include the page text (the coordinates of block `chars`) in JSON output.
    #[arg(long)]
    pub page_text: bool,
    /// Write the page with every block outlined and numbered (paper Figure 3). With several
    /// pages, a directory that receives one NAME.blocks.html per page.
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
}

#[derive(serde::Serialize)]
struct PageRecord<'a> {
    path: String,
    sha256: &'a str,
    encoding: &'static str,
    encoding_source: crate::page::EncodingSource,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    repairs: &'a [crate::page::Repair],
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    blocks: &'a [Block],
}

/// Runs `parcels divide`.
pub fn divide(args: &DivideArgs) -> anyhow::Result<ExitCode> {
    let divider = args.input.divider()?;
    let opts = args.input.load_options();
    let pages = list_pages(&args.input.pages)?;
    let several = pages.len() > 1;
    if let Some(out) = &args.html {
        refuse_overwrite(&pages, out)?;
        if several {
            std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create directory", out.display()))?;
        }
    }
    let results: Vec<(PathBuf, anyhow::Result<String>)> = pages
        .par_iter()
        .map(|path| {
            let result = (|| {
                let page = Page::load(path, &opts)?;
                let division = divider.divide(&page);
                if let Some(out) = &args.html {
                    let target = if several { out.join(view_name(path)) } else { out.clone() };
                    let html = view::render(&page, &division, &view::ViewOptions::default());
                    write_atomic(&target, html.as_bytes()).with_context(|| format!("{}: cannot write", target.display()))?;
                }
                Ok(format_division(&page, &division, args))
            })();
            (path.clone(), result)
        })
        .collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.format == DivideFormat::Tsv {
        writeln!(out, "path\tid\tlocator\tcontainer\twords\tlinks\timages\thidden\ttext")?;
    }
    let mut failed = 0;
    for (path, result) in &results {
        match result {
            Ok(text) => out.write_all(text.as_bytes())?,
            Err(e) => {
                failed += 1;
                out.flush()?;
                eprintln!("{}", error_line(path, e));
            }
        }
    }
    out.flush()?;
    Ok(batch_status(failed, results.len()))
}

fn format_division(page: &Page, division: &Division, args: &DivideArgs) -> String {
    match args.format {
        DivideFormat::Json => {
            let record = PageRecord {
                path: page.path.display().to_string(),
                sha256: &page.sha256,
                encoding: page.encoding.name(),
                encoding_source: page.encoding_source,
                repairs: &page.repairs,
                text: args.page_text.then_some(division.text.as_str()),
                blocks: &division.blocks,
            };
            // Serialising plain data to a String cannot fail.
            let mut s = serde_json::to_string(&record).unwrap_or_default();
            s.push('\n');
            s
        }
        DivideFormat::Tsv => {
            let mut s = String::new();
            for b in &division.blocks {
                s.push_str(&format!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                    page.path.display(),
                    b.id,
                    b.locator,
                    b.container,
                    b.words,
                    b.links.len(),
                    b.images.len(),
                    b.hidden,
                    tsv_field(&b.text)
                ));
            }
            s
        }
    }
}

/// A file name for a page's block view inside an output directory.
fn view_name(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("page");
    let stem = name.trim_end_matches(".gz").trim_end_matches(".html").trim_end_matches(".htm");
    format!("{stem}.blocks.html")
}

/// Escapes tabs, newlines and backslashes so a text stays one TSV field.
pub fn tsv_field(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

/// One line for a failed page: the error already names the page when it comes from loading;
/// otherwise the path is put in front.
fn error_line(path: &Path, e: &anyhow::Error) -> String {
    let msg = format!("{e:#}");
    let shown = path.display().to_string();
    if msg.starts_with(&shown) {
        msg
    } else {
        format!("{shown}: {msg}")
    }
}

/// The exit status of a batch, with a summary line on stderr when pages failed.
fn batch_status(failed: usize, total: usize) -> ExitCode {
    if failed == 0 {
        return ExitCode::SUCCESS;
    }
    eprintln!("parcels: {failed} of {total} pages failed");
    ExitCode::from(EXIT_SOME_FAILED)
}

/// Checks that a path given for output is not also an input (a common slip with `--html`).
pub fn refuse_overwrite(input: &[PathBuf], output: &Path) -> anyhow::Result<()> {
    if input.iter().any(|p| p == output) {
        bail!("{}: output would overwrite an input page", output.display());
    }
    Ok(())
}
