//! `parcels annotate`: the arguments of the visual annotator ([`parcels::annotate`]).

use std::path::PathBuf;
use std::process::ExitCode;

use parcels::annotate::AnnotateOptions;

/// `parcels annotate`: label the blocks of a corpus's pages in a browser.
#[derive(Debug, Clone, clap::Args)]
pub struct AnnotateArgs {
    /// The corpus directory; its name is the label files' `corpus`, its HTML files (searched
    /// recursively) are the pages.
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,
    /// Where the label files go, one `<page file stem>.json` per page [default:
    /// corpora/<corpus name>/labels].
    #[arg(long, value_name = "DIR")]
    pub labels: Option<PathBuf>,
    /// Label scheme: a built-in name or a scheme file (TOML).
    #[arg(long, default_value = "parcels-17", value_name = "SCHEME")]
    pub scheme: String,
    /// Only these pages: a file with one path relative to the corpus directory per line
    /// (optionally a tab and the page's site, as in a labelled set's pages.tsv).
    #[arg(long, value_name = "MANIFEST")]
    pub pages: Option<PathBuf>,
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub port: u16,
    /// Divider configuration; the page text (hence the labels) depends only on its skip list.
    #[arg(long, value_name = "TOML")]
    pub divider: Option<PathBuf>,
}

/// Runs `parcels annotate` until the process is killed.
pub fn annotate(args: &AnnotateArgs) -> anyhow::Result<ExitCode> {
    let AnnotateArgs { corpus, labels, scheme, pages, port, divider } = args.clone();
    parcels::annotate::run(&AnnotateOptions { corpus, labels, scheme, pages, port, divider })
}
