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
pub mod sweep;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use parcels::divide::{Divider, DividerConfig};
use parcels::files::list_pages_noting_links;
use parcels::output;
use parcels::page::{LoadOptions, Page, PageError};

/// Exit status when some pages of a batch failed and the rest were processed.
pub const EXIT_SOME_FAILED: u8 = 2;

/// Options shared by every command that reads pages.
#[derive(Debug, Clone, clap::Args)]
pub struct PageArgs {
    /// Pages to read: files, directories searched recursively for .html/.htm(.gz) files, web
    /// archives (.warc, .warc.gz: their HTML responses), or `-` for one page from standard input
    /// (also read when no page is named and standard input is not a terminal).
    #[arg(value_name = "PAGE")]
    pub pages: Vec<PathBuf>,
    /// Divider configuration (tag inventory); the built-in one is configs/divider.toml.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
    /// Largest page accepted, in bytes.
    #[arg(long, default_value_t = LoadOptions::default().max_bytes, value_name = "BYTES")]
    pub max_bytes: usize,
    /// The page's address (one page only): recorded as `url` in JSON records and used to make
    /// its links absolute (after its `<base href>`). Pages of web archives take their
    /// WARC-Target-URI.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}

/// The page argument that means "one page read from standard input".
pub const STDIN_PAGE: &str = "-";

/// The pages of a batch: files and directories expanded, and `-` for standard input (read once,
/// within the size limit).
pub struct Batch {
    pub pages: Vec<PathBuf>,
    /// Web archives, read after the pages, record by record.
    pub warcs: Vec<PathBuf>,
    stdin: Option<Vec<u8>>,
    /// The `--url` of a one-page batch, checked to be an absolute URL.
    pub url: Option<String>,
}

impl Batch {
    /// Loads one page of the batch (`-` from the bytes read from standard input).
    pub fn load(&self, path: &Path, opts: &LoadOptions) -> Result<Page, PageError> {
        match (&self.stdin, path.as_os_str() == STDIN_PAGE) {
            (Some(bytes), true) => Page::from_bytes("<stdin>", bytes, opts),
            _ => Page::load(path, opts),
        }
    }

    /// How many inputs the batch has (pages and web archives).
    pub fn inputs(&self) -> usize {
        self.pages.len() + self.warcs.len()
    }
}

/// Where a page of a batch comes from: its path (a web archive's for its records) and its URL
/// when known (`--url`, or the record's WARC-Target-URI).
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub path: &'a Path,
    pub url: Option<&'a str>,
}

impl PageArgs {
    /// Expands the page arguments into a batch; with no page named, standard input is the page
    /// (an error when it is a terminal). `--url` needs a batch of exactly one page file.
    pub fn batch(&self) -> anyhow::Result<Batch> {
        use std::io::IsTerminal;
        let mut pages = Vec::new();
        let mut warcs = Vec::new();
        let mut stdin = None;
        let stdin_only = [PathBuf::from(STDIN_PAGE)];
        let named: &[PathBuf] = if self.pages.is_empty() {
            if std::io::stdin().is_terminal() {
                bail!("no pages given: name page files, directories or web archives, or pipe a page to standard input (`-`)");
            }
            &stdin_only
        } else {
            &self.pages
        };
        for p in named {
            if p.as_os_str() == STDIN_PAGE {
                if stdin.is_none() {
                    use std::io::Read;
                    let mut bytes = Vec::new();
                    std::io::stdin().lock().take(self.max_bytes as u64 + 1).read_to_end(&mut bytes).context("<stdin>: cannot read")?;
                    stdin = Some(bytes);
                }
                pages.push(p.clone());
            } else if parcels::warc::is_warc_path(p) && !p.is_dir() {
                warcs.push(p.clone());
            } else {
                let (found, links) = list_pages_noting_links(std::slice::from_ref(p))?;
                for link in links {
                    eprintln!("{}: a symbolic link to a directory, not followed", link.display());
                }
                pages.extend(found);
            }
        }
        if let Some(url) = &self.url {
            if !warcs.is_empty() || pages.len() != 1 {
                bail!("--url names one page, but {} inputs were given (pages of web archives take their own URL)", pages.len() + warcs.len());
            }
            if url::Url::parse(url.trim()).is_err() {
                bail!("--url {url}: not an absolute URL");
            }
        }
        Ok(Batch { pages, warcs, stdin, url: self.url.as_ref().map(|u| u.trim().to_string()) })
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

/// How a batch's standard output names its pages and reports their failures (every failure
/// also gets a line on stderr).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// JSON Lines: a failed page is a `{"path", "error"}` record, so a consumer sees every page.
    JsonRecords,
    /// Text for reading: with `headers`, each page's output starts with a `==> PATH <==` line
    /// (as `head` and `tail` name files, a blank line before each but the first) and a failed
    /// page is its header and an `error: …` line; without, failures go to stderr only.
    Headers { headers: bool },
    /// Tables (TSV, SVMlight) whose rows name their page themselves: failures on stderr only.
    Silent,
}

impl Naming {
    /// The naming of a format whose pages are not text for reading: JSON Lines give a failed
    /// page its `{"path", "error"}` record, tables (which name their pages) stay silent.
    pub fn records(format: parcels::output::Format) -> Naming {
        if format == parcels::output::Format::Json {
            Naming::JsonRecords
        } else {
            Naming::Silent
        }
    }

    /// The naming of a text format for a batch: headers when it has more than one page or reads
    /// web archives (whose records share a path).
    pub fn text(batch: &Batch) -> Naming {
        Naming::Headers { headers: batch.inputs() > 1 || !batch.warcs.is_empty() }
    }
}

/// Runs `job` on every page of a batch in parallel and prints each page's output as soon as it
/// and all pages before it are done (see [`stream_batch`]), named as `naming` says. For records
/// that each start with a header line beginning with `repeated_header`, the first record
/// printed keeps its header, the others lose it.
pub fn print_batch_dedup<F>(pages: &[PathBuf], naming: Naming, repeated_header: Option<&str>, job: F) -> anyhow::Result<ExitCode>
where
    F: Fn(usize, &Path) -> anyhow::Result<String> + Sync,
{
    let mut out = Printer::new(None, naming, repeated_header)?;
    let failed = out.batch(pages.len(), |i| job(i, &pages[i]), |i| Name { path: pages[i].clone(), url: None, record_id: None })?;
    out.finish()?;
    Ok(batch_status(failed, pages.len()))
}

/// A page's CSS warnings on stderr, one line each (each names the page): the features, labels
/// or article were made without what they name.
pub fn print_warnings(warnings: &[parcels::css::CssWarning]) {
    for w in warnings {
        eprintln!("{w}");
    }
}

/// Prints the pages of a batch and then the HTML pages of its web archives, each through `job`
/// (given where the page comes from and the loaded page), in order while they run, named as
/// `naming` says. A JSON record carries `url` in front when the page's URL is known (`--url`),
/// and a record from an archive is named by the archive's path and carries `url` and
/// `warc_record_id`. Archives are read in chunks of [`WARC_CHUNK`] records, so memory does not
/// grow with their size.
pub fn print_sources<F>(header: Option<&str>, batch: &Batch, opts: &LoadOptions, naming: Naming, job: F) -> anyhow::Result<ExitCode>
where
    F: Fn(Source<'_>, &Page) -> anyhow::Result<String> + Sync,
{
    use parcels::warc::{WarcItem, WarcPages};
    let mut out = Printer::new(header, naming, None)?;
    let pages = &batch.pages;
    let url = batch.url.as_deref();
    let mut failed = out.batch(
        pages.len(),
        |i| {
            let text = job(Source { path: &pages[i], url }, &batch.load(&pages[i], opts)?)?;
            Ok(output::with_fields(&text, &[("url", url)]))
        },
        |i| Name { path: pages[i].clone(), url: url.map(str::to_string), record_id: None },
    )?;
    let mut total = pages.len();
    for warc in &batch.warcs {
        let mut records = match WarcPages::open(warc, opts.max_bytes) {
            Ok(r) => r,
            Err(e) => {
                failed += 1;
                total += 1;
                out.failure(&Name { path: warc.clone(), url: None, record_id: None }, &anyhow::Error::new(e))?;
                continue;
            }
        };
        loop {
            let chunk: Vec<WarcItem> = records.by_ref().take(WARC_CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            total += chunk.len();
            failed += out.batch(
                chunk.len(),
                |i| match &chunk[i] {
                    WarcItem::Page(p) => {
                        let page = Page::from_served_bytes(warc, &p.body, p.charset, opts)?;
                        let text = job(Source { path: warc, url: p.url.as_deref() }, &page)?;
                        Ok(output::with_fields(&text, &[("url", p.url.as_deref()), ("warc_record_id", Some(&p.record_id))]))
                    }
                    WarcItem::Failed { offset, message, .. } => Err(anyhow::anyhow!("record at byte {offset}: {message}")),
                },
                |i| {
                    let (url, record_id) = match &chunk[i] {
                        WarcItem::Page(p) => (p.url.clone(), Some(p.record_id.clone())),
                        WarcItem::Failed { url, record_id, .. } => (url.clone(), record_id.clone()),
                    };
                    Name { path: warc.clone(), url, record_id }
                },
            )?;
        }
    }
    out.finish()?;
    Ok(batch_status(failed, total))
}

/// Records of a web archive handed to the workers at a time.
pub const WARC_CHUNK: usize = 256;

/// What a page of a batch is called in output: its path, and its URL and a web archive
/// record's id when it has them.
struct Name {
    path: PathBuf,
    url: Option<String>,
    record_id: Option<String>,
}

impl Name {
    /// The page as a header names it: the path (`<stdin>` for standard input), then a web
    /// archive record's URL (or its id when it has none).
    fn shown(&self) -> String {
        let mut s = if self.path.as_os_str() == STDIN_PAGE { "<stdin>".to_string() } else { self.path.display().to_string() };
        if let Some(extra) = self.record_id.as_ref().map(|id| self.url.as_ref().unwrap_or(id)) {
            s.push(' ');
            s.push_str(extra);
        }
        s
    }
}

/// Standard output of a batch: the header once, page results in order, failures as error
/// records (JSON Lines) or text lines, as the [`Naming`] says, and on stderr.
struct Printer<'h> {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    naming: Naming,
    repeated_header: Option<&'h str>,
    header_seen: bool,
    /// Pages named so far (a blank line goes before every page header but the first).
    named: usize,
    /// Whether the output so far ends with a blank line.
    ends_blank: bool,
}

impl<'h> Printer<'h> {
    fn new(header: Option<&str>, naming: Naming, repeated_header: Option<&'h str>) -> anyhow::Result<Printer<'h>> {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        if let Some(h) = header {
            out.write_all(h.as_bytes())?;
        }
        Ok(Printer { out, naming, repeated_header, header_seen: false, named: 0, ends_blank: false })
    }

    /// Writes the `==> PATH <==` line of a page, when the naming has headers.
    fn page_header(&mut self, name: &Name) -> anyhow::Result<()> {
        if self.naming == (Naming::Headers { headers: true }) {
            if self.named > 0 && !self.ends_blank {
                self.out.write_all(b"\n")?;
            }
            writeln!(self.out, "==> {} <==", name.shown())?;
            self.named += 1;
        }
        Ok(())
    }

    fn write(&mut self, text: &str) -> anyhow::Result<()> {
        if !text.is_empty() {
            self.ends_blank = text.ends_with("\n\n");
        }
        self.out.write_all(text.as_bytes())?;
        Ok(())
    }

    /// Runs `job(0..n)` in parallel and prints the results in order; returns how many failed.
    fn batch<J>(&mut self, n: usize, job: J, name: impl Fn(usize) -> Name) -> anyhow::Result<usize>
    where
        J: Fn(usize) -> anyhow::Result<String> + Sync,
    {
        let mut failed = 0;
        stream_batch(n, job, |i, result| {
            match result {
                Ok(text) => {
                    let text = match self.repeated_header {
                        Some(h) if self.header_seen && text.starts_with(h) => text.split_once('\n').map_or("", |(_, rows)| rows),
                        _ => text.as_str(),
                    };
                    self.header_seen = true;
                    self.page_header(&name(i))?;
                    self.write(text)?;
                }
                Err(e) => {
                    failed += 1;
                    self.failure(&name(i), &e)?;
                }
            }
            Ok(())
        })?;
        Ok(failed)
    }

    /// Reports a failed page: an error record or an error line on stdout, as the naming says,
    /// and a line on stderr.
    fn failure(&mut self, name: &Name, e: &anyhow::Error) -> anyhow::Result<()> {
        let message = error_message(e);
        match self.naming {
            Naming::JsonRecords => {
                let line = output::error_record(&name.path, &message).to_string();
                let fields = [("url", name.url.as_deref()), ("warc_record_id", name.record_id.as_deref())];
                writeln!(self.out, "{}", output::with_fields(&line, &fields).trim_end())?;
            }
            Naming::Headers { headers: true } => {
                self.page_header(name)?;
                let shown = name.shown();
                let plain = if name.path.as_os_str() == STDIN_PAGE { "<stdin>".to_string() } else { name.path.display().to_string() };
                let said = [shown, plain].iter().find_map(|p| message.strip_prefix(&format!("{p}: "))).unwrap_or(&message).to_string();
                self.write(&format!("error: {said}\n\n"))?;
            }
            Naming::Headers { headers: false } | Naming::Silent => {}
        }
        self.out.flush()?;
        let mut line = error_line(&name.path, &message);
        if let Some(id) = &name.record_id {
            let at = name.path.display().to_string();
            line = line.replacen(&at, &format!("{at} {id}{}", name.url.as_deref().map(|u| format!(" ({u})")).unwrap_or_default()), 1);
        }
        eprintln!("{line}");
        Ok(())
    }

    fn finish(mut self) -> anyhow::Result<()> {
        self.out.flush()?;
        Ok(())
    }
}

/// How many results may wait for an earlier page, per worker thread, before the workers pause.
const REORDER_WINDOW_PER_THREAD: usize = 4;

/// Runs `job(0..n)` on the rayon pool's threads and hands each result to `emit` in index order
/// as soon as it and every result before it are done: a batch's output is written while it
/// runs (a crash loses only the pages not yet written) and its memory does not grow with the
/// number of pages. Workers take indices in order from a shared counter and pause while they
/// are more than a window of results ahead of the next one to be written, so the reorder buffer
/// holds at most that window. An error from `emit` (an unwritable output) stops the workers and
/// is returned; a panic in a job is resumed on the caller's thread.
pub fn stream_batch<T, J, E>(n: usize, job: J, mut emit: E) -> anyhow::Result<()>
where
    T: Send,
    J: Fn(usize) -> T + Sync,
    E: FnMut(usize, T) -> anyhow::Result<()>,
{
    use std::collections::BTreeMap;
    use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{mpsc, Condvar, Mutex};

    let threads = rayon::current_num_threads().max(1);
    let window = threads * REORDER_WINDOW_PER_THREAD;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The index of the next result to be written, and the workers' wake-up call.
    let written = (Mutex::new(0usize), Condvar::new());
    let (tx, rx) = mpsc::channel::<(usize, std::thread::Result<T>)>();
    let worker = |tx: mpsc::Sender<(usize, std::thread::Result<T>)>| loop {
        let i = next.fetch_add(1, Ordering::SeqCst);
        if i >= n || stop.load(Ordering::SeqCst) {
            return;
        }
        {
            let (lock, cvar) = &written;
            let mut w = lock.lock().unwrap_or_else(|e| e.into_inner());
            while i >= *w + window && !stop.load(Ordering::SeqCst) {
                w = cvar.wait(w).unwrap_or_else(|e| e.into_inner());
            }
        }
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let result = catch_unwind(AssertUnwindSafe(|| job(i)));
        if tx.send((i, result)).is_err() {
            return;
        }
    };
    std::thread::scope(|scope| {
        let worker = &worker;
        scope.spawn(move || {
            rayon::scope(|s| {
                for _ in 0..threads.min(n) {
                    let tx = tx.clone();
                    s.spawn(move |_| worker(tx));
                }
            });
            drop(tx);
        });
        let halt = || {
            stop.store(true, Ordering::SeqCst);
            let (lock, cvar) = &written;
            let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            cvar.notify_all();
        };
        let mut pending: BTreeMap<usize, T> = BTreeMap::new();
        let mut at = 0;
        let outcome = (|| -> Result<(), Halt> {
            while at < n {
                let Ok((i, result)) = rx.recv() else { break };
                pending.insert(i, result.map_err(Halt::Panic)?);
                let before = at;
                while let Some(value) = pending.remove(&at) {
                    emit(at, value).map_err(Halt::Emit)?;
                    at += 1;
                }
                if at > before {
                    let (lock, cvar) = &written;
                    *lock.lock().unwrap_or_else(|e| e.into_inner()) = at;
                    cvar.notify_all();
                }
            }
            Ok(())
        })();
        halt();
        drop(rx);
        match outcome {
            Ok(()) => Ok(()),
            Err(Halt::Emit(e)) => Err(e),
            Err(Halt::Panic(payload)) => resume_unwind(payload),
        }
    })
}

/// Why [`stream_batch`] stopped early.
enum Halt {
    Panic(Box<dyn std::any::Any + Send>),
    Emit(anyhow::Error),
}

/// One line for a failed page: the error already names the page when it comes from loading;
/// otherwise the path is put in front.
fn error_line(path: &Path, msg: &str) -> String {
    let shown = if path.as_os_str() == STDIN_PAGE { "<stdin>".to_string() } else { path.display().to_string() };
    if msg.starts_with(&shown) {
        msg.to_string()
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

/// The message of an error and its causes, joined by `: `, leaving out a cause whose text the
/// message already holds (most of our errors write their source into their own message, and
/// anyhow's `{:#}` would print it twice).
pub fn error_message(e: &anyhow::Error) -> String {
    output::error_chain(&**e)
}

/// Whether an error comes from writing to a reader that went away (`| head`): the command then
/// stops quietly with exit 0.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_message_prints_each_cause_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("{path}: cannot read: {source}")]
        struct Read {
            path: String,
            source: std::io::Error,
        }
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(Read { path: "x.json".into(), source: io }).context("pages.tsv line 3");
        assert_eq!(error_message(&e), "pages.tsv line 3: x.json: cannot read: no such file");
        // A cause that its parent does not repeat is kept.
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_message(&e), "outer: inner");
    }

    #[test]
    fn stream_batch_emits_in_order_while_jobs_finish_out_of_order() {
        let mut seen = Vec::new();
        // Early jobs are the slowest, so later results wait in the reorder buffer.
        stream_batch(
            200,
            |i| {
                std::thread::sleep(std::time::Duration::from_micros(((200 - i) % 7) as u64 * 100));
                i * 2
            },
            |i, v| {
                assert_eq!(v, i * 2);
                seen.push(i);
                Ok(())
            },
        )
        .expect("batch runs");
        assert_eq!(seen, (0..200).collect::<Vec<_>>());
    }

    #[test]
    fn stream_batch_stops_at_an_output_error() {
        let ran = std::sync::atomic::AtomicUsize::new(0);
        let err = stream_batch(
            10_000,
            |i| {
                ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                i
            },
            |i, _| if i == 3 { bail!("output closed") } else { Ok(()) },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "output closed");
        // The workers stopped within a window of the failed output, not at the end of the batch.
        assert!(ran.load(std::sync::atomic::Ordering::SeqCst) < 10_000);
    }

    #[test]
    fn stream_batch_resumes_a_job_panic() {
        let r = std::panic::catch_unwind(|| stream_batch(50, |i| if i == 7 { panic!("job 7") } else { i }, |_, _| Ok(())));
        assert!(r.is_err());
    }
}
