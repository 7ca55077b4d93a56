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
}

fn main() -> ExitCode {
    let args = Cli::parse();
    let result = match &args.command {
        Command::Divide(a) => cli::divide(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("parcels: {e:#}");
            ExitCode::FAILURE
        }
    }
}
