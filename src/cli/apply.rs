//! Commands that apply a trained model: `parcels classify`, `parcels extract`.

use std::path::PathBuf;
use std::process::ExitCode;

use parcels::apply::{Classified, Classifier, Extracted, TrainedModel};
use parcels::divide::Divider;
use parcels::output::{self, Format};

use super::{print_sources, print_warnings, Naming, PageArgs};

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

/// The formats `parcels classify` writes.
const CLASSIFY_FORMATS: &[Format] = &[Format::Json, Format::Text];

/// `parcels classify`: the label of every block.
#[derive(Debug, Clone, clap::Args)]
pub struct ClassifyArgs {
    #[command(flatten)]
    pub apply: ApplyArgs,
    /// Output format: json (`{"path", "blocks": [{"id", "locator", "label", "confidence", "view",
    /// "text"}]}` per page and line; a failed page is `{"path", "error"}`) or text
    /// (`id<TAB>label<TAB>confidence<TAB>text` per block; with several pages each starts with a
    /// `==> PATH <==` line, and a failed page is its header and an `error: …` line).
    #[arg(long, value_enum, default_value_t = Format::Json, hide_possible_values = true)]
    pub format: Format,
    /// Give every block of a JSON record its `probabilities`: each label's probability under the
    /// learner that decided the block (for calibration, or a decision rule of your own).
    #[arg(long)]
    pub probabilities: bool,
}

/// The formats `parcels extract` writes.
const EXTRACT_FORMATS: &[Format] = &[Format::Json, Format::Text, Format::Markdown];

/// `parcels extract`: the article of each page.
#[derive(Debug, Clone, clap::Args)]
pub struct ExtractArgs {
    #[command(flatten)]
    pub apply: ApplyArgs,
    /// Output format: json (the article's fields, `path` and `blocks`, per page and line; a failed
    /// page is `{"path", "error"}`), text (the title, then the main text, then a blank line, per
    /// page) or markdown (the title as a heading, then the main text with its headings, lists,
    /// links and tables). In text and markdown, with several pages each starts with a
    /// `==> PATH <==` line, and a failed page is its header and an `error: …` line.
    #[arg(long, value_enum, default_value_t = Format::Json, hide_possible_values = true)]
    pub format: Format,
    /// Leave the per-block list out of JSON records (the article's fields only: records are
    /// then about a tenth of the size).
    #[arg(long)]
    pub no_blocks: bool,
}

fn classifier(args: &ApplyArgs) -> anyhow::Result<Classifier> {
    let model = match &args.model {
        Some(path) => TrainedModel::load(path)?,
        None => parcels::models::default_model()?,
    };
    Ok(Classifier::new(model)?)
}

/// How a command's output in `format` names its pages.
fn naming(format: Format, batch: &super::Batch) -> Naming {
    match format {
        Format::Json => Naming::JsonRecords,
        _ => Naming::text(batch),
    }
}

/// Runs `parcels classify`.
pub fn classify(args: &ClassifyArgs) -> anyhow::Result<ExitCode> {
    args.format.check("classify", CLASSIFY_FORMATS)?;
    if args.probabilities && args.format != Format::Json {
        anyhow::bail!("--probabilities needs --format json");
    }
    let classifier = classifier(&args.apply)?;
    let labels: Vec<String> = classifier.model().scheme.names().map(str::to_string).collect();
    let opts = args.apply.input.load_options();
    let batch = args.apply.input.batch()?;
    print_sources(None, &batch, &opts, naming(args.format, &batch), |source, page| {
        let (Classified { blocks, warnings, .. }, p) = classifier.classify_with_probabilities(page)?;
        print_warnings(&warnings);
        Ok(match args.format {
            Format::Text => output::classified_text(&blocks),
            _ if args.probabilities => format!("{}\n", output::classified_record_with_probabilities(source.path, &blocks, &labels, p.view())),
            _ => format!("{}\n", output::classified_record(source.path, &blocks)),
        })
    })
}

/// Runs `parcels extract`.
pub fn extract(args: &ExtractArgs) -> anyhow::Result<ExitCode> {
    args.format.check("extract", EXTRACT_FORMATS)?;
    let classifier = classifier(&args.apply)?;
    // The model's own divider, as the classifier divides with it: the Markdown renderer reads the
    // blocks' DOM nodes, which the article does not keep.
    let divider = Divider::new(classifier.model().divider.clone());
    let opts = args.apply.input.load_options();
    let batch = args.apply.input.batch()?;
    print_sources(None, &batch, &opts, naming(args.format, &batch), |source, page| {
        let Extracted { article: a, blocks, warnings } = classifier.extract(page)?;
        print_warnings(&warnings);
        Ok(match args.format {
            Format::Text => output::article_text(&a),
            Format::Markdown => parcels::markdown::article_markdown(page, &divider.divide(page), &a, source.url),
            _ => {
                let mut record = output::article_record(source.path, &a, &blocks)?;
                if args.no_blocks {
                    if let Some(fields) = record.as_object_mut() {
                        fields.remove("blocks");
                    }
                }
                format!("{record}\n")
            }
        })
    })
}
