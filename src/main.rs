//! The `parcels` command: parses arguments and calls the library (`parcels::cli`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use parcels::cli;

/// Web page block classification by stylistic and lexical co-training (PARCELS).
#[derive(Parser)]
#[command(name = "parcels", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Divide pages into fine-grained blocks (PARCELS section 4) and print them.
    Divide(cli::DivideArgs),
    /// Print the stylistic or lexical features of every block (JSON, TSV or SVMlight).
    Features(cli::FeaturesArgs),
    /// IDF tables for the lexical view.
    #[command(subcommand)]
    Idf(IdfCommand),
    /// Labelled corpora: import annotations, show statistics.
    #[command(subcommand)]
    Corpus(CorpusCommand),
    /// Label the blocks of a corpus's pages in a browser (a local server on 127.0.0.1).
    Annotate(parcels::annotate::AnnotateArgs),
    /// Run a co-training experiment from a config (cross-validated) and write its reports.
    Experiment(cli::ExperimentArgs),
    /// Rebuild an experiment's report files from its results.json.
    Report(cli::ReportArgs),
    /// Train the co-trained models of a config on all its labelled data and save them.
    Train(cli::TrainArgs),
    /// Label every block of pages with a trained model (JSON Lines).
    Classify(cli::ApplyArgs),
    /// Extract the article (title, main text, date, reporter, …) of pages.
    Extract(cli::ExtractArgs),
    /// Extract every labelled page of a config with a model trained on the other folds.
    CrossExtract(cli::CrossExtractArgs),
}

#[derive(Subcommand)]
enum IdfCommand {
    /// Count document frequencies of stems over pages outside the labelled sets.
    Build(cli::IdfBuildArgs),
}

#[derive(Subcommand)]
enum CorpusCommand {
    /// Carry the L3S-GN1 annotations onto the original pages' text (label files, L3S scheme).
    ImportL3s(cli::ImportL3sArgs),
    /// Class distribution of labelled sets (the paper's Table 2) and alignment quality.
    Stats(cli::StatsArgs),
    /// Create label files for the pages of a manifest, empty or seeded through an exact mapping.
    Init(cli::InitArgs),
    /// Print the blocks of labelled pages with their labels, for reading and labelling.
    Sheet(cli::SheetArgs),
    /// Apply per-block label decisions (page, block, label) with provenance `hand`.
    Label(cli::LabelArgs),
    /// Agreement between two labellings of the same pages (per class and Cohen's kappa).
    Agree(cli::AgreeArgs),
}

fn main() -> ExitCode {
    let args = Cli::parse();
    let result = match &args.command {
        Command::Divide(a) => cli::divide(a),
        Command::Features(a) => cli::features(a),
        Command::Idf(IdfCommand::Build(a)) => cli::idf_build(a),
        Command::Experiment(a) => cli::experiment(a),
        Command::Report(a) => cli::report(a),
        Command::Train(a) => cli::train(a),
        Command::Classify(a) => cli::classify(a),
        Command::Extract(a) => cli::extract(a),
        Command::CrossExtract(a) => cli::cross_extract(a),
        Command::Corpus(CorpusCommand::ImportL3s(a)) => cli::import_l3s(a),
        Command::Corpus(CorpusCommand::Stats(a)) => cli::corpus_stats(a),
        Command::Annotate(a) => parcels::annotate::run(a),
        Command::Corpus(CorpusCommand::Init(a)) => cli::corpus_init(a),
        Command::Corpus(CorpusCommand::Sheet(a)) => cli::corpus_sheet(a),
        Command::Corpus(CorpusCommand::Label(a)) => cli::corpus_label(a),
        Command::Corpus(CorpusCommand::Agree(a)) => cli::corpus_agree(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("parcels: {e:#}");
            ExitCode::FAILURE
        }
    }
}
