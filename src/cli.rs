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
    pub fn load(&self, path: &Path, opts: &LoadOptions) -> Result<Page, crate::page::PageError> {
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
    let batch = args.input.batch()?;
    let pages = &batch.pages;
    let several = pages.len() > 1;
    if let Some(out) = &args.html {
        refuse_overwrite(pages, out)?;
        if several {
            std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create directory", out.display()))?;
        }
    }
    let results: Vec<(PathBuf, anyhow::Result<String>)> = pages
        .par_iter()
        .map(|path| {
            let result = (|| {
                let page = batch.load(path, &opts)?;
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
    let header = (args.format == DivideFormat::Tsv).then_some("path\tid\tlocator\tcontainer\twords\tlinks\timages\thidden\ttext\n");
    print_batch(header, &results)
}

/// Prints a batch's outputs in page order on stdout, each failure as `path: problem` on stderr,
/// and returns the batch's exit status.
fn print_batch(header: Option<&str>, results: &[(PathBuf, anyhow::Result<String>)]) -> anyhow::Result<ExitCode> {
    print_batch_with(header, results, false)
}

/// Prints a batch's results; a failed page goes to stderr and, with `error_records`, also to
/// stdout as `{"path", "error"}` so a JSON Lines consumer sees every page.
fn print_batch_with(header: Option<&str>, results: &[(PathBuf, anyhow::Result<String>)], error_records: bool) -> anyhow::Result<ExitCode> {
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
                    let record = serde_json::json!({ "path": path.display().to_string(), "error": format!("{e:#}") });
                    writeln!(out, "{record}")?;
                }
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
    let shown = if path.as_os_str() == STDIN_PAGE { "<stdin>".to_string() } else { path.display().to_string() };
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

/// `parcels corpus import-l3s`: carries the L3S-GN1 annotations onto the original pages.
#[derive(Debug, Clone, clap::Args)]
pub struct ImportL3sArgs {
    /// The L3S-GN1 directory (with original/, annotated/ and url-mapping.tsv).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Where the label files go (one JSON file per page).
    #[arg(long, default_value = "corpora/l3s-gn1/labels", value_name = "DIR")]
    pub out: PathBuf,
    /// Per-page alignment figures (TSV).
    #[arg(long, default_value = "corpora/l3s-gn1/alignment.tsv", value_name = "FILE")]
    pub report: PathBuf,
    /// Divider configuration; the page text (hence the labels) depends only on its skip list.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
}

/// Runs `parcels corpus import-l3s`.
pub fn import_l3s(args: &ImportL3sArgs) -> anyhow::Result<ExitCode> {
    use crate::corpus::l3s;
    let divider = match &args.divider {
        Some(p) => Divider::new(DividerConfig::load(p)?),
        None => Divider::default(),
    };
    let scheme = crate::corpus::LabelScheme::built_in("l3s-gn1").context("built-in scheme l3s-gn1")?;
    let ids = l3s::page_ids(&args.dir).with_context(|| format!("{}: cannot list original/", args.dir.display()))?;
    let sites = l3s::sites(&args.dir);
    let bar = progress(ids.len() as u64, "importing");
    let results: Vec<(String, anyhow::Result<crate::corpus::labels::Alignment>)> = ids
        .par_iter()
        .map(|uuid| {
            let r = (|| {
                let mut imported = l3s::import_page(&args.dir, uuid, &divider, &scheme)?;
                imported.labels.site = sites.get(uuid).cloned();
                imported.labels.save(args.out.join(format!("{uuid}.json")))?;
                Ok(imported.alignment)
            })();
            bar.inc(1);
            (uuid.clone(), r)
        })
        .collect();
    bar.finish_and_clear();
    let mut tsv = String::from("page\tlabelled_chars\taligned_share\tcontent_chars\tcontent_aligned_share\n");
    let (mut lab, mut ali, mut clab, mut cali, mut failed) = (0, 0, 0, 0, 0);
    let mut worst: Vec<(f64, &str)> = Vec::new();
    for (uuid, r) in &results {
        match r {
            Ok(a) => {
                tsv.push_str(&format!("{uuid}\t{}\t{:.4}\t{}\t{:.4}\n", a.labelled_chars, a.share(), a.content_chars, a.content_share()));
                lab += a.labelled_chars;
                ali += a.aligned_chars;
                clab += a.content_chars;
                cali += a.content_aligned;
                worst.push((a.share(), uuid));
            }
            Err(e) => {
                failed += 1;
                eprintln!("{uuid}: {e:#}");
            }
        }
    }
    write_atomic(&args.report, tsv.as_bytes()).with_context(|| format!("{}: cannot write", args.report.display()))?;
    worst.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!(
        "imported {} of {} pages into {}; {:.2}% of labelled characters aligned ({:.2}% of content characters)",
        results.len() - failed,
        results.len(),
        args.out.display(),
        100.0 * ali as f64 / lab.max(1) as f64,
        100.0 * cali as f64 / clab.max(1) as f64
    );
    let below: Vec<_> = worst.iter().filter(|(s, _)| *s < 0.95).collect();
    println!("{} pages below 95% (per-page figures in {}):", below.len(), args.report.display());
    for (share, uuid) in below.iter().take(20) {
        println!("  {uuid}: {:.1}%", 100.0 * share);
    }
    Ok(batch_status(failed, results.len()))
}

/// `parcels corpus stats`: the class distribution of labelled sets (the paper's Table 2).
#[derive(Debug, Clone, clap::Args)]
pub struct StatsArgs {
    /// Directories of label files.
    #[arg(required = true, value_name = "LABEL_DIR")]
    pub sets: Vec<PathBuf>,
    /// Root of the corpora the label files name.
    #[arg(long, default_value = crate::corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
    /// Label scheme of the files (a built-in name or a TOML file); by default the first file's.
    #[arg(long, value_name = "SCHEME")]
    pub scheme: Option<String>,
    /// Report in this coarser scheme through the built-in mapping (e.g. binary, song-3level).
    #[arg(long, value_name = "SCHEME")]
    pub report_scheme: Option<String>,
    /// Divider configuration.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
    /// Print JSON instead of a Markdown table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `parcels corpus stats`.
pub fn corpus_stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    use crate::corpus::{label_files, set_stats, LabelFile, LabelScheme, SchemeMapping};
    let divider = match &args.divider {
        Some(p) => Divider::new(DividerConfig::load(p)?),
        None => Divider::default(),
    };
    let mut failed = false;
    for set in &args.sets {
        let files = label_files(set)?;
        let Some(first) = files.first() else {
            bail!("{}: no label files (*.json)", set.display());
        };
        let scheme_name = match &args.scheme {
            Some(s) => s.clone(),
            None => LabelFile::load(first)?.scheme,
        };
        let scheme = LabelScheme::resolve(&scheme_name)?;
        let report = match &args.report_scheme {
            Some(r) => {
                let to = LabelScheme::resolve(r)?;
                let m = SchemeMapping::between(&scheme, &to).with_context(|| format!("no built-in mapping from {} to {}", scheme.name, to.name))?;
                Some((m, to))
            }
            None => None,
        };
        let stats = set_stats(&files, &args.corpora, &divider, &scheme, report.as_ref().map(|(m, s)| (m, s)));
        failed |= !stats.failures.is_empty();
        if args.json {
            println!("{}", serde_json::to_string(&stats)?);
        } else {
            println!("## {}\n\n{}", set.display(), stats.to_markdown());
        }
    }
    Ok(if failed { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
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

/// `parcels corpus init`: label files for the pages of a manifest, empty or seeded from another
/// set through a partial (exact) mapping.
#[derive(Debug, Clone, clap::Args)]
pub struct InitArgs {
    /// Manifest: one `page-in-corpus<TAB>site` per line (`#` comments allowed).
    #[arg(value_name = "MANIFEST")]
    pub manifest: PathBuf,
    /// Corpus name: the directory under the corpora root that holds the pages.
    #[arg(long, value_name = "NAME")]
    pub corpus: String,
    /// Where the label files go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Label scheme of the new files.
    #[arg(long, default_value = "parcels-17", value_name = "SCHEME")]
    pub scheme: String,
    /// Seed from the label files in this directory (same file names) ...
    #[arg(long, value_name = "DIR", requires = "mapping")]
    pub seed_from: Option<PathBuf>,
    /// ... through this partial mapping (built-in name or TOML file).
    #[arg(long, value_name = "MAPPING", requires = "seed_from")]
    pub mapping: Option<String>,
    #[arg(long, default_value = crate::corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
}

/// Runs `parcels corpus init`. Existing label files are never overwritten.
pub fn corpus_init(args: &InitArgs) -> anyhow::Result<ExitCode> {
    use crate::corpus::{editing, LabelFile, LabelScheme, SchemeMapping};
    let scheme = LabelScheme::resolve(&args.scheme)?;
    let text = std::fs::read_to_string(&args.manifest).with_context(|| format!("{}: cannot read", args.manifest.display()))?;
    let divider = Divider::default();
    let mut created = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (page_in_corpus, site) = match line.split_once('\t') {
            Some((p, s)) => (p.trim(), Some(s.trim().to_string())),
            None => (line, None),
        };
        let stem = Path::new(page_in_corpus).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let out = args.out.join(format!("{stem}.json"));
        if out.exists() {
            eprintln!("{}: exists, left as it is", out.display());
            continue;
        }
        let page_path = args.corpora.join(&args.corpus).join(page_in_corpus);
        let page = Page::load(&page_path, &LoadOptions::default()).with_context(|| format!("{}:{}", args.manifest.display(), i + 1))?;
        let division = divider.divide(&page);
        let mut labels = match (&args.seed_from, &args.mapping) {
            (Some(dir), Some(mapping)) => {
                let from_path = dir.join(format!("{stem}.json"));
                let from = LabelFile::load(&from_path)?;
                from.verify(&from_path, &page, &division)?;
                let from_scheme = LabelScheme::resolve(&from.scheme)?;
                let m = SchemeMapping::resolve(mapping, &from_scheme, &scheme)?;
                editing::seed(&from, &m, &scheme)
            }
            _ => LabelFile::new(&args.corpus, page_in_corpus, &page, &division, &scheme),
        };
        if site.is_some() {
            labels.site = site;
        }
        labels.save(&out)?;
        created += 1;
    }
    println!("created {created} label files in {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// `parcels corpus sheet`: the blocks of labelled pages, for a person to read and label.
#[derive(Debug, Clone, clap::Args)]
pub struct SheetArgs {
    /// Directory of label files.
    #[arg(value_name = "LABEL_DIR")]
    pub dir: PathBuf,
    /// Only these pages (label file stems).
    #[arg(long = "page", value_name = "STEM")]
    pub pages: Vec<String>,
    /// Show the label of the same characters in this reference set (e.g. the L3S import).
    #[arg(long, value_name = "DIR")]
    pub reference: Option<PathBuf>,
    /// Only blocks without a label.
    #[arg(long)]
    pub unlabelled: bool,
    #[arg(long, default_value = crate::corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
}

/// Runs `parcels corpus sheet` (TSV on stdout).
pub fn corpus_sheet(args: &SheetArgs) -> anyhow::Result<ExitCode> {
    use crate::corpus::{editing, label_files, LabelFile, LabelScheme};
    let divider = Divider::default();
    let files: Vec<PathBuf> =
        if args.pages.is_empty() { label_files(&args.dir)? } else { args.pages.iter().map(|p| args.dir.join(format!("{p}.json"))).collect() };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "page\tblock\tlabel\tprovenance\treference\thidden\timages\tlinks\tlocator\ttext")?;
    for f in &files {
        let scheme = LabelScheme::resolve(&LabelFile::load(f)?.scheme)?;
        let reference = match &args.reference {
            Some(dir) => {
                let r = LabelFile::load(dir.join(f.file_name().unwrap_or_default()))?;
                Some((dir.clone(), LabelScheme::resolve(&r.scheme)?))
            }
            None => None,
        };
        let rows = editing::reading_sheet(f, &args.corpora, &divider, &scheme, reference.as_ref().map(|(d, s)| (d.as_path(), s)))?;
        for r in rows.iter().filter(|r| !args.unlabelled || r.label == "-") {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                r.page,
                r.block,
                r.label,
                r.provenance,
                r.reference,
                r.hidden,
                tsv_field(&r.images),
                tsv_field(&r.links),
                r.locator,
                tsv_field(&r.text)
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `parcels corpus label`: applies a person's per-block decisions (provenance `hand`).
#[derive(Debug, Clone, clap::Args)]
pub struct LabelArgs {
    /// Directory of label files.
    #[arg(value_name = "LABEL_DIR")]
    pub dir: PathBuf,
    /// Decisions: `page<TAB>block<TAB>label` per line (page = label file stem).
    #[arg(value_name = "DECISIONS")]
    pub decisions: PathBuf,
    #[arg(long, default_value = crate::corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
}

/// Runs `parcels corpus label`.
pub fn corpus_label(args: &LabelArgs) -> anyhow::Result<ExitCode> {
    use crate::corpus::{editing, label_files, LabelFile, LabelScheme};
    let first = label_files(&args.dir)?.into_iter().next().with_context(|| format!("{}: no label files", args.dir.display()))?;
    let scheme = LabelScheme::resolve(&LabelFile::load(&first)?.scheme)?;
    let decisions = editing::read_decisions(&args.decisions, &scheme)?;
    let counts = editing::apply_decisions(&decisions, &args.dir, &args.corpora, &Divider::default(), &scheme, &args.decisions)?;
    for (page, n) in &counts {
        println!("{page}: {n} blocks labelled");
    }
    Ok(ExitCode::SUCCESS)
}

/// `parcels corpus agree`: agreement between two labellings of the same pages.
#[derive(Debug, Clone, clap::Args)]
pub struct AgreeArgs {
    /// First pass: a directory of label files.
    #[arg(value_name = "LABEL_DIR_A")]
    pub a: PathBuf,
    /// Second pass: label files with the same names (only pages present in both count).
    #[arg(value_name = "LABEL_DIR_B")]
    pub b: PathBuf,
    #[arg(long, default_value = crate::corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
}

/// Runs `parcels corpus agree`.
pub fn corpus_agree(args: &AgreeArgs) -> anyhow::Result<ExitCode> {
    use crate::corpus::{agreement, label_files, load_labelled, LabelFile, LabelScheme};
    let divider = Divider::default();
    let mut pairs = Vec::new();
    let mut scheme: Option<LabelScheme> = None;
    for a_path in label_files(&args.b)?.iter().filter_map(|b| b.file_name().map(|n| args.a.join(n))).filter(|p| p.exists()) {
        let b_path = args.b.join(a_path.file_name().unwrap_or_default());
        let s = match &scheme {
            Some(s) => s.clone(),
            None => LabelScheme::resolve(&LabelFile::load(&a_path)?.scheme)?,
        };
        let lp = load_labelled(&a_path, &args.corpora, &divider, &s)?;
        let b = LabelFile::load(&b_path)?;
        b.verify(&b_path, &lp.page, &lp.division)?;
        pairs.push((lp.gold, b.block_labels(&lp.division, &s)));
        scheme = Some(s);
    }
    let scheme = scheme.with_context(|| format!("no page labelled in both {} and {}", args.a.display(), args.b.display()))?;
    let result = agreement::agreement(&pairs, &scheme);
    if args.json {
        println!("{}", serde_json::to_string(&result)?);
    } else {
        print!("{}", result.to_markdown());
    }
    Ok(ExitCode::SUCCESS)
}

/// `parcels experiment`: runs a co-training experiment from a config and writes its reports.
#[derive(Debug, Clone, clap::Args)]
pub struct ExperimentArgs {
    /// Experiment configuration (TOML, see configs/).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Report directory; default reports/<experiment name>.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Override the config's seed.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Runs `parcels experiment`.
pub fn experiment(args: &ExperimentArgs) -> anyhow::Result<ExitCode> {
    use crate::experiment::{run, ExperimentConfig};
    let mut config = ExperimentConfig::load(&args.config)?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(&config.name));
    let rounds = (config.evaluation.folds * (config.cotraining.r + 1)) as u64;
    let bar = progress(rounds, &config.name);
    let counter = std::sync::atomic::AtomicU64::new(0);
    let results = run(&config, &|e: &crate::progress::Event| {
        if *e == crate::progress::Event::Step {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            bar.inc(1);
        }
        bar.set_message(format!("{}: {e}", config.name));
    })?;
    bar.finish_and_clear();
    crate::report::write_all(&results, &out)?;
    let md = crate::report::report_md(&results);
    let table: String =
        md.lines().skip_while(|l| !l.starts_with("## Error rates")).take_while(|l| !l.starts_with("## Per-class")).collect::<Vec<_>>().join("\n");
    println!("{table}");
    println!("reports written to {} ({:.1} s)", out.display(), results.wall_seconds);
    Ok(ExitCode::SUCCESS)
}

/// `parcels report`: rebuilds the report files of a finished experiment from its results.json.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Report directory holding results.json.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Runs `parcels report`.
pub fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let results = crate::report::load(&args.dir)?;
    crate::report::write_derived(&results, &args.dir)?;
    println!("rebuilt the reports in {}", args.dir.display());
    Ok(ExitCode::SUCCESS)
}

/// Which view `parcels features` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewName {
    Stylistic,
    Lexical,
}

/// Output format of `parcels features`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FeatureFormat {
    /// One JSON object per page and line: `{"path", "blocks": [{"block": 0, name: value, …}]}`.
    Json,
    /// One line per block: `path`, `block`, then one column per feature (lexical: stems as
    /// `stem:weight` pairs in one column).
    Tsv,
    /// SVMlight (`0 qid:PAGE idx:value …`, 1-based indices, one line per block), with `--names`
    /// for the index → name table: loads with scikit-learn's `load_svmlight_file(query_id=True)`.
    Svmlight,
}

/// `parcels features`: the features of each block, per view.
#[derive(Debug, Clone, clap::Args)]
pub struct FeaturesArgs {
    #[command(flatten)]
    pub input: PageArgs,
    #[arg(long, value_enum)]
    pub view: ViewName,
    #[arg(long, value_enum, default_value_t = FeatureFormat::Json)]
    pub format: FeatureFormat,
    /// Write the feature name table (`index<TAB>name`, 1-based as in SVMlight) here.
    #[arg(long, value_name = "FILE")]
    pub names: Option<PathBuf>,
    /// Directory where external style sheets are looked up (stylistic view).
    #[arg(long, value_name = "DIR")]
    pub assets: Option<PathBuf>,
    /// IDF table (lexical view); default: the shipped corpora/idf/dragnet.tsv.
    #[arg(long, value_name = "TSV")]
    pub idf: Option<PathBuf>,
}

/// Runs `parcels features`.
pub fn features(args: &FeaturesArgs) -> anyhow::Result<ExitCode> {
    use crate::lexical::{self, IdfTable};
    use crate::stylistic::{self, StyleOptions};
    let divider = args.input.divider()?;
    let opts = args.input.load_options();
    let batch = args.input.batch()?;
    let pages = &batch.pages;
    let idf = match &args.idf {
        Some(p) => IdfTable::load(p)?,
        None => IdfTable::dragnet()?,
    };
    let mut style = StyleOptions::default();
    style.css.assets_dir = args.assets.clone();
    if let Some(path) = &args.names {
        let mut table = Vec::new();
        match args.view {
            ViewName::Lexical => lexical::write_feature_names(&mut table, &idf)?,
            ViewName::Stylistic => {
                for (i, n) in stylistic::feature_names().iter().enumerate() {
                    writeln!(table, "{}\t{n}", i + 1)?;
                }
            }
        }
        write_atomic(path, &table).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    let results: Vec<(PathBuf, anyhow::Result<String>)> = pages
        .par_iter()
        .enumerate()
        .map(|(i, path)| {
            let r = (|| {
                let page = batch.load(path, &opts)?;
                let division = divider.divide(&page);
                let shown = path.display().to_string();
                Ok(match args.view {
                    ViewName::Stylistic => {
                        let f = stylistic::extract(&page, &division, &style)?;
                        for w in &f.warnings {
                            eprintln!("{w}");
                        }
                        match args.format {
                            FeatureFormat::Json => format!("{{\"path\":{},\"blocks\":{}}}\n", serde_json::to_string(&shown)?, f.to_records_json()?),
                            FeatureFormat::Tsv => prefix_lines(&f.to_tsv(), &shown, i == 0),
                            FeatureFormat::Svmlight => dense_svmlight(&f.rows, i as u64 + 1),
                        }
                    }
                    ViewName::Lexical => {
                        let f = lexical::extract(&division, &idf);
                        match args.format {
                            FeatureFormat::Json => {
                                format!("{{\"path\":{},\"blocks\":{}}}\n", serde_json::to_string(&shown)?, serde_json::to_string(&f.named_rows(&idf))?)
                            }
                            FeatureFormat::Tsv => prefix_lines(&f.to_tsv(&idf), &shown, i == 0),
                            FeatureFormat::Svmlight => f.to_svmlight(None, Some(i as u64 + 1)),
                        }
                    }
                })
            })();
            (path.clone(), r)
        })
        .collect();
    print_batch(None, &results)
}

/// Prefixes every line of a TSV table with the page path; the header (`path` column) is kept only
/// for the first page.
fn prefix_lines(tsv: &str, path: &str, header: bool) -> String {
    let mut out = String::new();
    for (n, line) in tsv.lines().enumerate() {
        if n == 0 {
            if header {
                out.push_str("path\t");
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        out.push_str(&tsv_field(path));
        out.push('\t');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Dense rows as SVMlight: label 0, the page as query id, 1-based indices; missing (NaN) and
/// zero values are left out, as the format's sparse reading implies zero for absent indices.
fn dense_svmlight(rows: &[Vec<f64>], qid: u64) -> String {
    let mut out = String::new();
    for row in rows {
        out.push_str(&format!("0 qid:{qid}"));
        for (i, v) in row.iter().enumerate() {
            if v.is_finite() && *v != 0.0 {
                out.push_str(&format!(" {}:{v}", i + 1));
            }
        }
        out.push('\n');
    }
    out
}

/// `parcels idf build`: document frequencies of stems over pages outside every labelled set.
#[derive(Debug, Clone, clap::Args)]
pub struct IdfBuildArgs {
    /// Pages (files or directories) that make the IDF corpus.
    #[arg(required = true, value_name = "PAGE")]
    pub pages: Vec<PathBuf>,
    /// Where the table goes (TSV, written atomically).
    #[arg(long, value_name = "TSV")]
    pub out: PathBuf,
    /// Stems seen in fewer documents are left out (they get the unknown-stem IDF).
    #[arg(long, default_value_t = crate::lexical::DEFAULT_MIN_DF)]
    pub min_df: u64,
}

/// Runs `parcels idf build`.
pub fn idf_build(args: &IdfBuildArgs) -> anyhow::Result<ExitCode> {
    let pages = list_pages(&args.pages)?;
    let build = crate::lexical::build_idf(&pages, &Divider::default(), &LoadOptions::default(), args.min_df)?;
    for e in &build.skipped {
        eprintln!("{e}");
    }
    build.table.save(&args.out)?;
    println!("{}: {} stems from {} documents ({} pages skipped)", args.out.display(), build.table.len(), build.table.documents(), build.skipped.len());
    Ok(batch_status(build.skipped.len(), pages.len()))
}

/// `parcels train`: trains the co-trained models of a config on all its labelled data.
#[derive(Debug, Clone, clap::Args)]
pub struct TrainArgs {
    /// Experiment configuration (its corpus, pool, views, boosting and co-training settings).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Where the model file goes (JSON, written atomically).
    #[arg(long, value_name = "MODEL.json")]
    pub out: PathBuf,
}

/// Runs `parcels train`.
pub fn train(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    let config = crate::experiment::ExperimentConfig::load(&args.config)?;
    let bar = progress(config.cotraining.r as u64 + 1, &config.name);
    let model = crate::apply::train(&config, &|e: &crate::progress::Event| {
        if *e == crate::progress::Event::Step {
            bar.inc(1);
        }
        bar.set_message(e.to_string());
    })?;
    bar.finish_and_clear();
    model.save(&args.out)?;
    println!(
        "{}: {} classes, {} training blocks after co-training; stumps: stylistic {}, lexical {}, single-view {}",
        args.out.display(),
        model.scheme.len(),
        model.training_blocks,
        model.stylistic.stumps().len(),
        model.lexical.stumps().len(),
        model.single_view.stumps().len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The model used when `--model` is not given: the one the project trains from its own
/// corpora (`corpora/models/default.json`, rebuilt as corpora/models/README.md says), compiled
/// into the binary so `parcels extract page.html` works anywhere.
pub const DEFAULT_MODEL: &str = crate::apply::DEFAULT_MODEL_JSON;

/// Options of `parcels classify` and `parcels extract`.
#[derive(Debug, Clone, clap::Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    pub input: PageArgs,
    /// Model file from `parcels train`; default: the model shipped with parcels
    /// (corpora/models/default.json, compiled in).
    #[arg(long, value_name = "MODEL.json")]
    pub model: Option<PathBuf>,
}

/// Output format of `parcels extract`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExtractFormat {
    /// One JSON object per page and line.
    Json,
    /// The title, then the main text, then a blank line, per page.
    Text,
}

/// `parcels extract`: the article of each page.
#[derive(Debug, Clone, clap::Args)]
pub struct ExtractArgs {
    #[command(flatten)]
    pub apply: ApplyArgs,
    #[arg(long, value_enum, default_value_t = ExtractFormat::Json)]
    pub format: ExtractFormat,
}

fn classifier(args: &ApplyArgs) -> anyhow::Result<crate::apply::Classifier> {
    let model = match &args.model {
        Some(path) => crate::apply::TrainedModel::load(path)?,
        None => crate::apply::TrainedModel::from_json(DEFAULT_MODEL, "the built-in default model")?,
    };
    Ok(crate::apply::Classifier::new(model)?)
}

/// Runs `parcels classify` (JSON Lines: `{"path", "blocks": [{"id", "locator", "label",
/// "confidence", "view", "text"}]}`).
pub fn classify(args: &ApplyArgs) -> anyhow::Result<ExitCode> {
    let classifier = classifier(args)?;
    let opts = args.input.load_options();
    let batch = args.input.batch()?;
    let results: Vec<(PathBuf, anyhow::Result<String>)> = batch
        .pages
        .par_iter()
        .map(|path| {
            let r = (|| {
                let page = batch.load(path, &opts)?;
                let (_, blocks) = classifier.classify(&page)?;
                let line = serde_json::json!({ "path": path.display().to_string(), "blocks": blocks });
                Ok(format!("{line}\n"))
            })();
            (path.clone(), r)
        })
        .collect();
    print_batch_with(None, &results, true)
}

/// Runs `parcels extract`.
pub fn extract(args: &ExtractArgs) -> anyhow::Result<ExitCode> {
    let classifier = classifier(&args.apply)?;
    let opts = args.apply.input.load_options();
    let batch = args.apply.input.batch()?;
    let results: Vec<(PathBuf, anyhow::Result<String>)> = batch
        .pages
        .par_iter()
        .map(|path| {
            let r = (|| {
                let page = batch.load(path, &opts)?;
                let (a, blocks) = classifier.extract(&page)?;
                Ok(match args.format {
                    ExtractFormat::Json => format!("{}\n", article_record(path, &a, &blocks)?),
                    ExtractFormat::Text => format!("{}\n{}\n\n", a.title.unwrap_or_default(), a.main_text),
                })
            })();
            (path.clone(), r)
        })
        .collect();
    print_batch_with(None, &results, args.format == ExtractFormat::Json)
}

/// The JSON record of an extracted page: the article's fields, `path` and `blocks`.
fn article_record(path: &Path, article: &crate::apply::Article, blocks: &[crate::apply::ClassifiedBlock]) -> serde_json::Result<serde_json::Value> {
    let mut v = serde_json::to_value(article)?;
    v["path"] = serde_json::Value::from(path.display().to_string());
    v["blocks"] = serde_json::to_value(blocks)?;
    Ok(v)
}

/// `parcels cross-extract`: cross-validated extraction of a config's labelled pages, for
/// comparing extractors on pages no model was trained on.
#[derive(Debug, Clone, clap::Args)]
pub struct CrossExtractArgs {
    /// Experiment configuration: its labelled pages, pool, learners and `[evaluation]` folds
    /// (`split = "site"` keeps each site's pages in one fold).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Where the JSON Lines go (written atomically): per labelled page, `parcels extract`'s record
    /// plus `fold`.
    #[arg(long, value_name = "OUT.jsonl")]
    pub out: PathBuf,
    /// Also save each fold's model here as `fold-N.json`, to re-extract its held-out pages
    /// without training again.
    #[arg(long, value_name = "DIR")]
    pub save_models: Option<PathBuf>,
}

/// Runs `parcels cross-extract`.
pub fn cross_extract(args: &CrossExtractArgs) -> anyhow::Result<ExitCode> {
    let config = crate::experiment::ExperimentConfig::load(&args.config)?;
    let folds = config.evaluation.folds as u64;
    let bar = progress(folds * (config.cotraining.r as u64 + 1), &config.name);
    let (pages, models) = crate::apply::cross_extract(&config, &|e: &crate::progress::Event| {
        if *e == crate::progress::Event::Step {
            bar.inc(1);
        }
        bar.set_message(e.to_string());
    })?;
    bar.finish_and_clear();
    let mut out = String::new();
    let mut failed = 0;
    for p in &pages {
        let record = match &p.result {
            Ok((article, blocks)) => {
                let mut v = article_record(&p.path, article, blocks)?;
                v["fold"] = serde_json::Value::from(p.fold);
                v
            }
            Err(e) => {
                failed += 1;
                eprintln!("{}: {e}", p.path.display());
                serde_json::json!({ "path": p.path.display().to_string(), "fold": p.fold, "error": e.to_string() })
            }
        };
        out.push_str(&record.to_string());
        out.push('\n');
    }
    crate::files::write_atomic(&args.out, out.as_bytes()).with_context(|| format!("{}: cannot write", args.out.display()))?;
    if let Some(dir) = &args.save_models {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        for (f, model) in models.iter().enumerate() {
            model.save(&dir.join(format!("fold-{f}.json")))?;
        }
    }
    eprintln!("{}: {} pages in {} folds, {} failed", args.out.display(), pages.len(), folds, failed);
    Ok(batch_status(failed, pages.len()))
}
