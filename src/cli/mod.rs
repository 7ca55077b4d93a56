//! The `parcels` command's subcommands: argument types (clap), the calls into the library, and
//! printing. Part of the binary only; the library knows nothing of the command line.
//!
//! Batches follow ripgrep's habit: a bad page is reported on stderr as `path: problem` and
//! skipped, the others go on, and the exit status says that something failed (2). Errors that
//! stop the whole command (a bad configuration, an unwritable output) exit with 1. A reader that
//! stops early (`parcels divide … | head -1`) ends the output quietly with exit 0.

pub mod annotate;
pub mod apply;
pub mod corpus;
pub mod experiment;
pub mod pages;
pub mod progress;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use parcels::divide::{Divider, DividerConfig};
use parcels::files::list_pages;
use parcels::output;
use parcels::page::{LoadOptions, Page, PageError};

/// Exit status when some pages of a batch failed and the rest were processed.
pub const EXIT_SOME_FAILED: u8 = 2;

/// Options shared by every command that reads pages.
#[derive(Debug, Clone, clap::Args)]
pub struct PageArgs {
    /// Pages to read: files, directories searched recursively for .html/.htm(.gz) files, or `-`
    /// for one page from standard input.
    #[arg(required = true, value_name = "PAGE")]
    pub pages: Vec<PathBuf>,
    /// Divider configuration (tag inventory); the built-in one is configs/divider.toml.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
    /// Largest page accepted, in bytes.
    #[arg(long, default_value_t = LoadOptions::default().max_bytes, value_name = "BYTES")]
    pub max_bytes: usize,
}

/// The page argument that means "one page read from standard input".
pub const STDIN_PAGE: &str = "-";

/// The pages of a batch: files and directories expanded, and `-` for standard input (read once,
/// within the size limit).
pub struct Batch {
    pub pages: Vec<PathBuf>,
    stdin: Option<Vec<u8>>,
}

impl Batch {
    /// Loads one page of the batch (`-` from the bytes read from standard input).
    pub fn load(&self, path: &Path, opts: &LoadOptions) -> Result<Page, PageError> {
        match (&self.stdin, path.as_os_str() == STDIN_PAGE) {
            (Some(bytes), true) => Page::from_bytes("<stdin>", bytes, opts),
            _ => Page::load(path, opts),
        }
    }
}

impl PageArgs {
    /// Expands the page arguments into a batch.
    pub fn batch(&self) -> anyhow::Result<Batch> {
        let mut pages = Vec::new();
        let mut stdin = None;
        for p in &self.pages {
            if p.as_os_str() == STDIN_PAGE {
                if stdin.is_none() {
                    use std::io::Read;
                    let mut bytes = Vec::new();
                    std::io::stdin().lock().take(self.max_bytes as u64 + 1).read_to_end(&mut bytes).context("<stdin>: cannot read")?;
                    stdin = Some(bytes);
                }
                pages.push(p.clone());
            } else {
                pages.extend(list_pages(std::slice::from_ref(p))?);
            }
        }
        Ok(Batch { pages, stdin })
    }

    pub fn load_options(&self) -> LoadOptions {
        LoadOptions { max_bytes: self.max_bytes, ..LoadOptions::default() }
    }

    pub fn divider(&self) -> anyhow::Result<Divider> {
        divider(self.divider.as_deref())
    }
}

/// The divider of a `--divider` option: the given configuration or the built-in one.
pub fn divider(config: Option<&Path>) -> anyhow::Result<Divider> {
    Ok(match config {
        Some(p) => Divider::new(DividerConfig::load(p)?),
        None => Divider::default(),
    })
}

/// Prints a batch's outputs in page order on stdout, each failure as `path: problem` on stderr,
/// and returns the batch's exit status.
pub fn print_batch(header: Option<&str>, results: &[(PathBuf, anyhow::Result<String>)]) -> anyhow::Result<ExitCode> {
    print_batch_with(header, results, false)
}

/// Prints a batch's results; a failed page goes to stderr and, with `error_records`, also to
/// stdout as `{"path", "error"}` so a JSON Lines consumer sees every page.
pub fn print_batch_with(header: Option<&str>, results: &[(PathBuf, anyhow::Result<String>)], error_records: bool) -> anyhow::Result<ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if let Some(h) = header {
        out.write_all(h.as_bytes())?;
    }
    let mut failed = 0;
    for (path, result) in results {
        match result {
            Ok(text) => out.write_all(text.as_bytes())?,
            Err(e) => {
                failed += 1;
                if error_records {
                    writeln!(out, "{}", output::error_record(path, &format!("{e:#}")))?;
                }
                out.flush()?;
                eprintln!("{}", error_line(path, e));
            }
        }
    }
    out.flush()?;
    Ok(batch_status(failed, results.len()))
}

/// One line for a failed page: the error already names the page when it comes from loading;
/// otherwise the path is put in front.
fn error_line(path: &Path, e: &anyhow::Error) -> String {
    let msg = format!("{e:#}");
    let shown = if path.as_os_str() == STDIN_PAGE { "<stdin>".to_string() } else { path.display().to_string() };
    if msg.starts_with(&shown) {
        msg
    } else {
        format!("{shown}: {msg}")
    }
}

/// The exit status of a batch, with a summary line on stderr when pages failed.
pub fn batch_status(failed: usize, total: usize) -> ExitCode {
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

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} [{elapsed}]") {
        bar.set_style(style);
    }
    bar.set_message(what.to_string());
    bar
}

/// Whether an error comes from writing to a reader that went away (`| head`): the command then
/// stops quietly with exit 0.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}
