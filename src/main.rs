fn main() {
    std::process::exit(bob::cli::main());
}
