//! The `parcels` command: parses arguments and dispatches to the subcommands of [`cli`].

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc instead of the system allocator: parsing, division and the views allocate and free
/// per node, block and token (see the dependency's note in Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Web page block classification by stylistic and lexical co-training (PARCELS).
#[derive(Parser)]
#[command(name = "parcels", version, about, propagate_version = true)]
struct Cli {
    /// Worker threads for page batches and training [default: one per core].
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Divide pages into fine-grained blocks (PARCELS section 4) and print them.
    Divide(cli::pages::DivideArgs),
    /// Print the stylistic or lexical features of every block (JSON, TSV or SVMlight).
    Features(cli::pages::FeaturesArgs),
    /// IDF tables for the lexical view.
    #[command(subcommand)]
    Idf(IdfCommand),
    /// Labelled corpora: import annotations, show statistics.
    #[command(subcommand)]
    Corpus(CorpusCommand),
    /// Label the blocks of a corpus's pages in a browser (a local server on 127.0.0.1).
    Annotate(cli::annotate::AnnotateArgs),
    /// Run a co-training experiment from a config (cross-validated) and write its reports.
    Experiment(cli::experiment::ExperimentArgs),
    /// Run an experiment per cell of a grid (budgets, seeds, parameters) and aggregate them.
    Sweep(cli::sweep::SweepArgs),
    /// Rebuild an experiment's report files from its results.json.
    Report(cli::experiment::ReportArgs),
    /// Train the co-trained models of a config on all its labelled data and save them.
    Train(cli::experiment::TrainArgs),
    /// Label every block of pages with a trained model (JSON Lines or text).
    Classify(cli::apply::ClassifyArgs),
    /// Extract the article (title, main text, date, reporter, …) of pages.
    Extract(cli::apply::ExtractArgs),
    /// Extract every labelled page of a config with a model trained on the other folds.
    CrossExtract(cli::experiment::CrossExtractArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout: `parcels man > parcels.1`.
    Man,
}

#[derive(Subcommand)]
enum IdfCommand {
    /// Count document frequencies of stems over pages outside the labelled sets.
    Build(cli::pages::IdfBuildArgs),
}

#[derive(Subcommand)]
enum CorpusCommand {
    /// Carry the L3S-GN1 annotations onto the original pages' text (label files, L3S scheme).
    ImportL3s(cli::corpus::ImportL3sArgs),
    /// Label blocks from gold text (WCXB, Dragnet, CleanEval) by aligning it with the page text.
    ImportGold(cli::corpus::ImportGoldArgs),
    /// Class distribution of labelled sets (the paper's Table 2) and alignment quality.
    Stats(cli::corpus::StatsArgs),
    /// Create label files for the pages of a manifest, empty or seeded through an exact mapping.
    Init(cli::corpus::InitArgs),
    /// Print the blocks of labelled pages with their labels, for reading and labelling.
    Sheet(cli::corpus::SheetArgs),
    /// Apply per-block label decisions (page, block, label) with provenance `hand`.
    Label(cli::corpus::LabelArgs),
    /// Write labelled pages as HTML with every block coloured by its label.
    View(cli::corpus::ViewArgs),
    /// Agreement between two labellings of the same pages (per class and Cohen's kappa).
    Agree(cli::corpus::AgreeArgs),
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let args = Cli::parse();
    if let Some(n) = args.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global() {
            eprintln!("parcels: --threads {n}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let result = match &args.command {
        Command::Divide(a) => cli::pages::divide(a),
        Command::Features(a) => cli::pages::features(a),
        Command::Idf(IdfCommand::Build(a)) => cli::pages::idf_build(a),
        Command::Experiment(a) => cli::experiment::experiment(a),
        Command::Report(a) => cli::experiment::report(a),
        Command::Sweep(a) => cli::sweep::sweep(a),
        Command::Train(a) => cli::experiment::train(a),
        Command::Classify(a) => cli::apply::classify(a),
        Command::Extract(a) => cli::apply::extract(a),
        Command::CrossExtract(a) => cli::experiment::cross_extract(a),
        Command::Corpus(CorpusCommand::ImportL3s(a)) => cli::corpus::import_l3s(a),
        Command::Corpus(CorpusCommand::ImportGold(a)) => cli::corpus::import_gold(a),
        Command::Corpus(CorpusCommand::Stats(a)) => cli::corpus::corpus_stats(a),
        Command::Annotate(a) => cli::annotate::annotate(a),
        Command::Corpus(CorpusCommand::Init(a)) => cli::corpus::corpus_init(a),
        Command::Corpus(CorpusCommand::Sheet(a)) => cli::corpus::corpus_sheet(a),
        Command::Corpus(CorpusCommand::Label(a)) => cli::corpus::corpus_label(a),
        Command::Corpus(CorpusCommand::Agree(a)) => cli::corpus::corpus_agree(a),
        Command::Corpus(CorpusCommand::View(a)) => cli::corpus::corpus_view(a),
        Command::Completions { shell } => {
            clap_complete::generate(*shell, &mut <Cli as clap::CommandFactory>::command(), "parcels", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
            .render(&mut std::io::stdout())
            .map(|_| ExitCode::SUCCESS)
            .map_err(anyhow::Error::from),
    };
    match result {
        Ok(code) => code,
        // The reader went away (`parcels … | head`): the output ends there, quietly.
        Err(e) if cli::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            match e.downcast_ref::<parcels::output::UnsupportedFormat>() {
                Some(unsupported) => eprintln!("{unsupported}"),
                None => eprintln!("parcels: {}", cli::error_message(&e)),
            }
            ExitCode::FAILURE
        }
    }
}

/// `println!` panics when stdout is a closed pipe; such a panic ends the command quietly with
/// exit 0, like the write errors [`cli::is_broken_pipe`] catches. Other panics are reported as
/// usual.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info.payload().downcast_ref::<String>().map(String::as_str).or_else(|| info.payload().downcast_ref::<&str>().copied());
        if message.is_some_and(|m| m.starts_with("failed printing to stdout") && m.contains("Broken pipe")) {
            std::process::exit(0);
        }
        default(info);
    }));
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every option and argument of every subcommand has a description in `--help`.
    #[test]
    fn every_option_is_documented() {
        fn check(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.is_hide_set() || id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut cmd = super::Cli::command();
        cmd.build();
        let mut missing = Vec::new();
        check(&cmd, "parcels", &mut missing);
        assert!(missing.is_empty(), "options without a description: {missing:?}");
    }
}
