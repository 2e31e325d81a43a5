# Sourced by the demo scripts: cd to the repository root, narration helpers on stderr, and a
# debug build of bob in $BOB.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [ -t 2 ]; then B=$'\033[1m' R=$'\033[0m'; else B= R=; fi
say() { printf '\n%s== %s%s\n' "$B" "$*" "$R" >&2; }
note() { printf '   %s\n' "$*" >&2; }

say "building bob"
cargo build -q
BOB="${CARGO_TARGET_DIR:-$root/target}/debug/bob"
