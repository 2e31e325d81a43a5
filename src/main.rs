//! The `bob` binary: parses the command line and hands it to [`bob::cli`].

fn main() {
    // `bob __sandbox-exec …` is the sandbox helper (src/sandbox/init.rs), not a subcommand.
    bob::sandbox::enter_if_requested();
    std::process::exit(bob::cli::main());
}
