//! Command-line subcommands, as library functions (the binary only parses arguments).
