#!/usr/bin/env bash
# kill -9 loops over every log writer of bob: tool run (audit log), memory approve/reject
# (approval ledger), trace emit (trace log) and state set (checkpoint). Each writer is killed
# KILLS times (default 200) at random instants; the script reports unaudited results, double
# or lost decisions, torn records accepted by a reader or by `bob ledger verify`, and partial
# documents read: all must be 0 (exit 1 otherwise). See scripts/kill_loop.py.
#
#   bash scripts/kill-loop.sh [KILLS]      # release build; BOB=path/to/bob to use another
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v python3 >/dev/null || { echo "kill-loop: python3 is required" >&2; exit 1; }
if [ -z "${BOB:-}" ]; then
  cargo build -q --release
  BOB="${CARGO_TARGET_DIR:-$root/target}/release/bob"
fi
BOB=$(realpath "$BOB")
python3 scripts/kill_loop.py "$BOB" "${1:-200}"
