//! Commands on pages: `parcels divide`, `parcels features`, `parcels idf build`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use parcels::divide::{view, Divider};
use parcels::files::{list_pages, write_atomic};
use parcels::output::{self, DividedPage, Format};
use parcels::page::LoadOptions;

use super::{batch_status, refuse_overwrite, PageArgs};

/// The formats `parcels divide` writes.
const DIVIDE_FORMATS: &[Format] = &[Format::Json, Format::Tsv];

/// `parcels divide`: divides pages into blocks.
#[derive(Debug, Clone, clap::Args)]
pub struct DivideArgs {
    #[command(flatten)]
    pub input: PageArgs,
    /// Output format: json (one object per page and line) or tsv (one line per block).
    #[arg(long, value_enum, default_value_t = Format::Json, hide_possible_values = true)]
    pub format: Format,
    /// Include the page text (the coordinates of block `chars`) in JSON output.
    #[arg(long)]
    pub page_text: bool,
    /// Write the page with every block outlined and numbered (paper Figure 3). With several
    /// pages, a directory that receives one NAME.blocks.html per page.
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
}

/// Runs `parcels divide`.
pub fn divide(args: &DivideArgs) -> anyhow::Result<ExitCode> {
    args.format.check("divide", DIVIDE_FORMATS)?;
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
    let header = (args.format == Format::Tsv).then_some(output::DIVISION_TSV_HEADER);
    if args.html.is_some() && !batch.warcs.is_empty() {
        anyhow::bail!("parcels divide: --html is for page files, not web archives");
    }
    let naming = super::Naming::records(args.format);
    super::print_sources(header, &batch, &opts, naming, |source, page| {
        let mut division = divider.divide(page);
        if let Some(base) = parcels::markdown::page_base(page, source.url) {
            output::absolute_links(&mut division, &base);
        }
        if let Some(out) = &args.html {
            let target = if several { out.join(view_name(source.path)) } else { out.clone() };
            let html = view::render(page, &division, &view::ViewOptions::default());
            write_atomic(&target, html.as_bytes()).with_context(|| format!("{}: cannot write", target.display()))?;
        }
        Ok(match args.format {
            Format::Tsv => output::division_tsv(page, &division),
            _ => DividedPage::new(page, &division, args.page_text).to_json_line(),
        })
    })
}

/// A file name for a page's block view inside an output directory.
fn view_name(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("page");
    let stem = name.trim_end_matches(".gz").trim_end_matches(".html").trim_end_matches(".htm");
    format!("{stem}.blocks.html")
}

/// Which view `parcels features` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewName {
    /// Layout and style of each block (computed CSS, position, size, fonts).
    Stylistic,
    /// Words of each block (numeric text features and TF × IDF stem weights).
    Lexical,
}

/// The formats `parcels features` writes.
const FEATURE_FORMATS: &[Format] = &[Format::Json, Format::Tsv, Format::Svmlight];

/// `parcels features`: the features of each block, per view.
#[derive(Debug, Clone, clap::Args)]
pub struct FeaturesArgs {
    #[command(flatten)]
    pub input: PageArgs,
    /// The view whose features are printed.
    #[arg(long, value_enum)]
    pub view: ViewName,
    /// Output format: json (`{"path", "blocks": [{"block": 0, name: value, …}]}` per page and
    /// line), tsv (`path`, `block`, one column per feature; lexical stems as `stem:weight` pairs in
    /// one column) or svmlight (`0 qid:PAGE idx:value …`, 1-based indices, one line per block;
    /// with `--names`, loads with scikit-learn's `load_svmlight_file(query_id=True)`).
    #[arg(long, value_enum, default_value_t = Format::Json, hide_possible_values = true)]
    pub format: Format,
    /// Write the feature name table (`index<TAB>name`, 1-based as in SVMlight) here.
    #[arg(long, value_name = "FILE")]
    pub names: Option<PathBuf>,
    /// Directory where external style sheets are looked up (stylistic view).
    #[arg(long, value_name = "DIR")]
    pub assets: Option<PathBuf>,
    /// IDF table (lexical view); default: the shipped corpora/idf/dragnet.tsv.
    #[arg(long, value_name = "TSV")]
    pub idf: Option<PathBuf>,
    /// Print the view as an experiment config builds it: its divider and its feature groups
    /// (opt-in ones such as `semantics` or `metadata` included), so the columns are the ones its
    /// learners see. JSON or TSV; every dense column by name, token columns where non-zero.
    #[arg(long, value_name = "TOML", conflicts_with_all = ["divider", "assets", "idf"])]
    pub config: Option<PathBuf>,
    /// Override a value of `--config` (`--set boosting.max_rounds=600`; repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", requires = "config")]
    pub set: Vec<String>,
}

/// Runs `parcels features`.
pub fn features(args: &FeaturesArgs) -> anyhow::Result<ExitCode> {
    use parcels::lexical::{self, IdfTable};
    use parcels::stylistic::{self, StyleOptions};
    args.format.check("features", FEATURE_FORMATS)?;
    let opts = args.input.load_options();
    let batch = args.input.batch()?;
    if !batch.warcs.is_empty() {
        anyhow::bail!("parcels features: reads page files, not web archives ({})", batch.warcs[0].display());
    }
    if let Some(config) = &args.config {
        return config_features(args, config, &batch, &opts);
    }
    let divider = args.input.divider()?;
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
    // Every page's TSV table comes with its header; only the first page printed keeps it
    // (deciding by position in the batch would lose the header whenever the first page failed).
    let repeated = (args.format == Format::Tsv).then_some(TSV_PATH_HEADER);
    let naming = super::Naming::records(args.format);
    let url = batch.url.as_deref();
    super::print_batch_dedup(pages, naming, repeated, |i, path| {
        let page = batch.load(path, &opts)?;
        let division = divider.divide(&page);
        let shown = path.display().to_string();
        let qid = i as u64 + 1;
        Ok(match args.view {
            ViewName::Stylistic => {
                let f = stylistic::extract(&page, &division, &style)?;
                super::print_warnings(&f.warnings);
                match args.format {
                    Format::Tsv => prefix_lines(&f.to_tsv(), &shown),
                    Format::Svmlight => output::stylistic_svmlight(&f.rows, qid),
                    _ => output::with_fields(
                        &format!("{{\"path\":{},\"blocks\":{}}}\n", serde_json::to_string(&shown)?, output::compact_json(&f.to_records_json()?)),
                        &[("url", url)],
                    ),
                }
            }
            ViewName::Lexical => {
                let f = lexical::extract(&division, &idf);
                match args.format {
                    Format::Tsv => prefix_lines(&f.to_tsv(&idf), &shown),
                    Format::Svmlight => output::lexical_svmlight(&f, qid),
                    _ => output::with_fields(
                        &format!("{{\"path\":{},\"blocks\":{}}}\n", serde_json::to_string(&shown)?, serde_json::to_string(&f.named_rows(&idf))?),
                        &[("url", url)],
                    ),
                }
            }
        })
    })
}

/// `parcels features --config`: a view built from a config's divider and feature groups.
fn config_features(args: &FeaturesArgs, path: &Path, batch: &super::Batch, opts: &LoadOptions) -> anyhow::Result<ExitCode> {
    use parcels::lexical::{NamedRow, NamedValues};
    if args.format == Format::Svmlight {
        anyhow::bail!("parcels features --config: writes json or tsv (a config's views can have tens of thousands of token columns)");
    }
    let config = parcels::experiment::ExperimentConfig::load_with(path, &args.set)?;
    let divider = config.divider().with_context(|| format!("{}: its divider", path.display()))?;
    let builder = parcels::dataset::view_builder(&config).with_context(|| format!("{}: its views", path.display()))?;
    let (names, token_names) = match args.view {
        ViewName::Stylistic => (builder.stylistic_names(), builder.stylistic_token_names()),
        ViewName::Lexical => (builder.lexical_names(), builder.token_names()),
    };
    if let Some(out) = &args.names {
        let table: String = names.iter().chain(token_names).enumerate().map(|(i, n)| format!("{}\t{n}\n", i + 1)).collect();
        write_atomic(out, table.as_bytes()).with_context(|| format!("{}: cannot write", out.display()))?;
    }
    // The block table without its `path` column, which `prefix_lines` adds.
    let header: String =
        std::iter::once("block".to_string()).chain(names.iter().map(|n| output::tsv_field(n))).chain(["tokens".to_string()]).collect::<Vec<_>>().join("\t");
    let repeated = (args.format == Format::Tsv).then_some(TSV_PATH_HEADER);
    let naming = super::Naming::records(args.format);
    let url = batch.url.as_deref();
    super::print_batch_dedup(&batch.pages, naming, repeated, |_, page_path| {
        let page = batch.load(page_path, opts)?;
        let division = divider.divide(&page);
        let views = builder.build(&page, &division)?;
        super::print_warnings(&views.warnings);
        let m = match args.view {
            ViewName::Stylistic => &views.stylistic,
            ViewName::Lexical => &views.lexical,
        };
        let tokens = |b: usize| {
            let (cols, weights) = m.tokens().row(b);
            cols.iter().zip(weights).map(|(&c, &w)| (m.token_names()[c].as_str(), w)).collect::<Vec<_>>()
        };
        let shown = page_path.display().to_string();
        Ok(match args.format {
            Format::Tsv => {
                let mut table = format!("{header}\n");
                for (b, row) in m.numeric().rows().into_iter().enumerate() {
                    let values: String = row.iter().map(|v| format!("\t{v}")).collect();
                    let pairs: Vec<String> = tokens(b).iter().map(|(t, w)| format!("{t}:{w}")).collect();
                    table.push_str(&format!("{b}{values}\t{}\n", output::tsv_field(&pairs.join(" "))));
                }
                prefix_lines(&table, &shown)
            }
            _ => {
                // In column order, as `parcels features` prints a view without a config.
                let blocks: Vec<NamedRow> = (0..m.n_rows())
                    .map(|b| {
                        let numeric = m.numeric_names().iter().map(String::as_str).zip(m.numeric().row(b).iter().copied()).collect();
                        NamedRow { block: b, numeric: NamedValues(numeric), tokens: NamedValues(tokens(b)) }
                    })
                    .collect();
                output::with_fields(
                    &format!("{{\"path\":{},\"blocks\":{}}}\n", serde_json::to_string(&shown)?, serde_json::to_string(&blocks)?),
                    &[("url", url)],
                )
            }
        })
    })
}

/// Prefixes every line of a TSV table with the page path (the header with a `path` column).
fn prefix_lines(tsv: &str, path: &str) -> String {
    let mut out = String::new();
    for (n, line) in tsv.lines().enumerate() {
        if n == 0 {
            out.push_str(TSV_PATH_HEADER);
            out.push_str(line);
            out.push('\n');
            continue;
        }
        out.push_str(&output::tsv_field(path));
        out.push('\t');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The start of a [`prefix_lines`] header.
const TSV_PATH_HEADER: &str = "path\t";

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
    #[arg(long, default_value_t = parcels::lexical::DEFAULT_MIN_DF)]
    pub min_df: u64,
}

/// Runs `parcels idf build`.
pub fn idf_build(args: &IdfBuildArgs) -> anyhow::Result<ExitCode> {
    let pages = list_pages(&args.pages)?;
    let build = parcels::lexical::build_idf(&pages, &Divider::default(), &LoadOptions::default(), args.min_df)?;
    for e in &build.skipped {
        eprintln!("{e}");
    }
    build.table.save(&args.out)?;
    writeln!(
        std::io::stdout(),
        "{}: {} stems from {} documents ({} pages skipped)",
        args.out.display(),
        build.table.len(),
        build.table.documents(),
        build.skipped.len()
    )?;
    Ok(batch_status(build.skipped.len(), pages.len()))
}
