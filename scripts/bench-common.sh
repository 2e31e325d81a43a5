# Sourced by benchmark scripts: cd to the repository root, a release build of bob in $BOB (an
# absolute path, so a later `cd` keeps it; `BOB=path` skips the build), and a scratch directory
# $work removed on exit.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [ -z "${BOB:-}" ]; then
  cargo build --release -q
  BOB="$(realpath "${CARGO_TARGET_DIR:-$root/target}")/release/bob"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
