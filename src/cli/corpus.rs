//! `parcels corpus …`: import annotations, statistics, label files by hand.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use parcels::corpus::{self, LabelFile, LabelScheme, Manifest, SchemeMapping};
use parcels::divide::Divider;
use parcels::files::write_atomic;
use parcels::output::tsv_field;
use parcels::page::{LoadOptions, Page};

use super::{batch_status, divider, progress, EXIT_SOME_FAILED};

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
    use parcels::corpus::l3s;
    let divider = divider(args.divider.as_deref())?;
    let scheme = LabelScheme::built_in("l3s-gn1").context("built-in scheme l3s-gn1")?;
    let count = l3s::page_ids(&args.dir).with_context(|| format!("{}: cannot list original/", args.dir.display()))?.len();
    let bar = progress(count as u64, "importing");
    let summary =
        l3s::import_all(&args.dir, &args.out, &divider, &scheme, &|| bar.inc(1)).with_context(|| format!("{}: cannot list original/", args.dir.display()))?;
    bar.finish_and_clear();
    for (uuid, e) in &summary.failed {
        eprintln!("{uuid}: {e}");
    }
    write_atomic(&args.report, summary.to_tsv().as_bytes()).with_context(|| format!("{}: cannot write", args.report.display()))?;
    let all = summary.overall();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "imported {} of {} pages into {}; {:.2}% of labelled characters aligned ({:.2}% of content characters)",
        summary.pages.len(),
        summary.total(),
        args.out.display(),
        100.0 * all.aligned_chars as f64 / all.labelled_chars.max(1) as f64,
        100.0 * all.content_aligned as f64 / all.content_chars.max(1) as f64
    )?;
    let below = summary.below(0.95);
    writeln!(out, "{} pages below 95% (per-page figures in {}):", below.len(), args.report.display())?;
    for (share, uuid) in below.iter().take(20) {
        writeln!(out, "  {uuid}: {:.1}%", 100.0 * share)?;
    }
    Ok(batch_status(summary.failed.len(), summary.total()))
}

/// `parcels corpus stats`: the class distribution of labelled sets (the paper's Table 2).
#[derive(Debug, Clone, clap::Args)]
pub struct StatsArgs {
    /// Directories of label files.
    #[arg(required = true, value_name = "LABEL_DIR")]
    pub sets: Vec<PathBuf>,
    /// Root of the corpora the label files name.
    #[arg(long, default_value = corpus::DEFAULT_CORPORA, value_name = "DIR")]
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
    use parcels::corpus::{label_files, set_stats};
    let divider = divider(args.divider.as_deref())?;
    let mut out = std::io::stdout().lock();
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
            writeln!(out, "{}", serde_json::to_string(&stats)?)?;
        } else {
            writeln!(out, "## {}\n\n{}", set.display(), stats.to_markdown())?;
        }
    }
    Ok(if failed { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
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
    /// Root of the corpora (the pages are CORPORA/NAME/page-in-corpus).
    #[arg(long, default_value = corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
}

/// Runs `parcels corpus init`. Existing label files are never overwritten.
pub fn corpus_init(args: &InitArgs) -> anyhow::Result<ExitCode> {
    use parcels::corpus::editing;
    let scheme = LabelScheme::resolve(&args.scheme)?;
    let manifest = Manifest::load(&args.manifest)?;
    let divider = Divider::default();
    let mut created = 0;
    for entry in &manifest.entries {
        let page_in_corpus = entry.page.to_str().with_context(|| format!("{}: page path is not UTF-8", manifest.location(entry)))?;
        let stem = parcels::corpus::page_stem(page_in_corpus);
        let out = args.out.join(format!("{stem}.json"));
        if out.exists() {
            eprintln!("{}: exists, left as it is", out.display());
            continue;
        }
        let page_path = args.corpora.join(&args.corpus).join(page_in_corpus);
        let page = Page::load(&page_path, &LoadOptions::default()).with_context(|| manifest.location(entry))?;
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
        if entry.site.is_some() {
            labels.site = entry.site.clone();
        }
        labels.save(&out)?;
        created += 1;
    }
    writeln!(std::io::stdout(), "created {created} label files in {}", args.out.display())?;
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
    /// Divider configuration the blocks are made with (the built-in one is configs/divider.toml);
    /// labels are character spans, so one label file serves every divider.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
    /// Root of the corpora the label files name.
    #[arg(long, default_value = corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
}

/// Runs `parcels corpus sheet` (TSV on stdout).
pub fn corpus_sheet(args: &SheetArgs) -> anyhow::Result<ExitCode> {
    use parcels::corpus::{editing, label_files};
    let divider = super::divider(args.divider.as_deref())?;
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
    /// Divider configuration the decisions' block numbers refer to (the built-in one is configs/divider.toml);
    /// labels are character spans, so one label file serves every divider.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
    /// Root of the corpora the label files name.
    #[arg(long, default_value = corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
}

/// Runs `parcels corpus label`.
pub fn corpus_label(args: &LabelArgs) -> anyhow::Result<ExitCode> {
    use parcels::corpus::{editing, label_files};
    let first = label_files(&args.dir)?.into_iter().next().with_context(|| format!("{}: no label files", args.dir.display()))?;
    let scheme = LabelScheme::resolve(&LabelFile::load(&first)?.scheme)?;
    let decisions = editing::read_decisions(&args.decisions, &scheme)?;
    let counts = editing::apply_decisions(&decisions, &args.dir, &args.corpora, &super::divider(args.divider.as_deref())?, &scheme, &args.decisions)?;
    let mut out = std::io::stdout().lock();
    for (page, n) in &counts {
        writeln!(out, "{page}: {n} blocks labelled")?;
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
    /// Root of the corpora the label files name.
    #[arg(long, default_value = corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Divider configuration the blocks are made with (the built-in one is configs/divider.toml);
    /// labels are character spans, so one label file serves every divider.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
}

/// Runs `parcels corpus agree`.
pub fn corpus_agree(args: &AgreeArgs) -> anyhow::Result<ExitCode> {
    use parcels::corpus::{agreement, label_files, load_labelled};
    let divider = super::divider(args.divider.as_deref())?;
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
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&result)?)?;
    } else {
        write!(out, "{}", result.to_markdown())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Which gold-text corpus `import-gold` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GoldCorpusArg {
    /// WCXB: html/ID.html.gz, ground-truth/ID.json, metadata.json.
    Wcxb,
    /// Dragnet: input/N.html, GoldStandard/N.txt (article, then comments).
    Dragnet,
    /// CleanEval: input/N.html, GoldStandard/N.txt (URL line, <p>/<h>/<l> markers).
    Cleaneval,
}

/// `parcels corpus import-gold`: block labels from gold text, by aligning it with the page text.
#[derive(Debug, Clone, clap::Args)]
pub struct ImportGoldArgs {
    /// The corpus format.
    #[arg(long, value_enum, value_name = "CORPUS")]
    pub corpus: GoldCorpusArg,
    /// The corpus directory (e.g. ../shared/corpora/wcxb-dev); its name is the label files' corpus.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Where the label files go (one JSON file per page, scheme gold-text).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Per-page alignment figures (TSV).
    #[arg(long, value_name = "FILE")]
    pub report: PathBuf,
    /// Pages whose gold main text is covered less than this share get no label file.
    #[arg(long, default_value_t = 0.5, value_name = "SHARE")]
    pub min_coverage: f64,
    /// Divider configuration; the page text (hence the labels) depends only on its skip list.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
}

/// Runs `parcels corpus import-gold`.
pub fn import_gold(args: &ImportGoldArgs) -> anyhow::Result<ExitCode> {
    use parcels::corpus::gold::{self, GoldCorpus, PageOutcome};
    let corpus = match args.corpus {
        GoldCorpusArg::Wcxb => GoldCorpus::Wcxb,
        GoldCorpusArg::Dragnet => GoldCorpus::Dragnet,
        GoldCorpusArg::Cleaneval => GoldCorpus::CleanEval,
    };
    let divider = divider(args.divider.as_deref())?;
    let scheme = LabelScheme::built_in("gold-text").context("built-in scheme gold-text")?;
    let count = gold::pages(corpus, &args.dir).with_context(|| format!("{}: cannot list its pages", args.dir.display()))?.len();
    let bar = progress(count as u64, "importing");
    let summary = gold::import_all(corpus, &args.dir, &args.out, &divider, &scheme, args.min_coverage, &|| bar.inc(1))
        .with_context(|| format!("{}: cannot list its pages", args.dir.display()))?;
    bar.finish_and_clear();
    let mut failed = 0;
    for row in &summary.rows {
        if let PageOutcome::Failed(e) = &row.outcome {
            eprintln!("{}: {e}", row.id);
            failed += 1;
        }
    }
    write_atomic(&args.report, summary.to_tsv().as_bytes()).with_context(|| format!("{}: cannot write", args.report.display()))?;
    let t = summary.totals();
    let saved = summary.count(|o| matches!(o, PageOutcome::Saved(_)));
    let low = summary.count(|o| matches!(o, PageOutcome::Low(_)));
    let empty = summary.count(|o| matches!(o, PageOutcome::EmptyGold));
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} pages: {saved} labelled into {}, {low} below {:.0}% coverage (no label file), {empty} with empty gold, {failed} failed",
        summary.rows.len(),
        args.out.display(),
        100.0 * args.min_coverage
    )?;
    writeln!(
        out,
        "gold main-text words: {} on {} aligned pages; {:.2}% aligned to page words, {:.2}% covered by blocks labelled main-text (mean per page {:.2}%)",
        t.gold_words,
        t.pages,
        pct(t.aligned_words, t.gold_words),
        pct(t.covered_words, t.gold_words),
        100.0 * t.mean_coverage
    )?;
    if t.comment_words > 0 {
        writeln!(out, "gold comment words: {}; {:.2}% covered by blocks labelled comments", t.comment_words, pct(t.comment_covered, t.comment_words))?;
    }
    writeln!(
        out,
        "blocks with text: {}; holding gold words: {}; split between gold and other words: {} ({:.2}% of the gold blocks, {:.2}% of all)",
        t.text_blocks,
        t.gold_blocks,
        t.split_blocks,
        pct(t.split_blocks, t.gold_blocks),
        pct(t.split_blocks, t.text_blocks)
    )?;
    for (name, (has, found)) in ["title", "author", "date"].iter().zip(t.fields) {
        if has > 0 {
            writeln!(out, "{name}: found on {found} of {has} pages whose gold has one ({:.1}%)", pct(found, has))?;
        }
    }
    writeln!(out, "per-page figures in {}", args.report.display())?;
    Ok(batch_status(failed, summary.rows.len()))
}

/// `parcels corpus view`: labelled pages as HTML, every block coloured by its gold label.
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    /// Directory of label files.
    #[arg(value_name = "LABEL_DIR")]
    pub dir: PathBuf,
    /// The pages to render (label file stems).
    #[arg(long = "page", required = true, value_name = "STEM")]
    pub pages: Vec<String>,
    /// Directory that receives one STEM.labels.html per page.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Root of the corpora the label files name.
    #[arg(long, default_value = corpus::DEFAULT_CORPORA, value_name = "DIR")]
    pub corpora: PathBuf,
}

/// Runs `parcels corpus view`: the badge of each block is its number and label, its background
/// the label's colour in the scheme (grey hatching for unlabelled blocks).
pub fn corpus_view(args: &ViewArgs) -> anyhow::Result<ExitCode> {
    use parcels::corpus::load_labelled;
    use parcels::divide::view::{self, BlockStyle, ViewOptions};
    let divider = Divider::default();
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}: cannot create", args.out.display()))?;
    let mut out = std::io::stdout().lock();
    for stem in &args.pages {
        let path = args.dir.join(format!("{stem}.json"));
        let scheme = LabelScheme::resolve(&LabelFile::load(&path)?.scheme)?;
        let lp = load_labelled(&path, &args.corpora, &divider, &scheme)?;
        let styles = |id: usize| match lp.gold.get(id).and_then(|g| g.label) {
            Some(c) => BlockStyle { color: scheme.labels[c].color.clone(), badge: format!("{id} {}", scheme.labels[c].name) },
            None => BlockStyle { color: "repeating-linear-gradient(45deg,#eee,#eee 4px,#fff 4px,#fff 8px)".into(), badge: format!("{id} -") },
        };
        let html = view::render(&lp.page, &lp.division, &ViewOptions { styles: Some(&styles), ..ViewOptions::default() });
        let file = args.out.join(format!("{stem}.labels.html"));
        write_atomic(&file, html.as_bytes()).with_context(|| format!("{}: cannot write", file.display()))?;
        writeln!(out, "{}", file.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
