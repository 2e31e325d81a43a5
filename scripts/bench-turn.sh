#!/usr/bin/env bash
# Benchmark of `bob turn` and `bob chat --stream` against a local OpenAI-compatible server that
# answers instantly (python3, in scripts/bench_turn.py), with curl as the peer.
#
#   bash scripts/bench-turn.sh [N]        # N turns per case (default 30), release build
#
# Reports medians: bob's own overhead per turn (wall time minus the server's time on its
# requests) for the bob (2 LLM calls) and spectator (4 calls) profiles, with the home on tmpfs
# and on disk, curl making the same number of requests, and the time to the first streamed
# delta of `bob chat --stream` vs `curl -N` on the same SSE stream.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v curl >/dev/null || { echo "bench-turn: curl is required" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-turn: python3 is required" >&2; exit 1; }
cargo build -q --release
# bob is measured as installed (`cargo install` and packages copy the binary): the linker's own
# output file in target/ is written in small pieces, and exec'ing it costs ~0.5 ms more per turn
# in page-cache faults on this machine than a fresh copy of the same bytes.
inst="$(mktemp -d)"
trap 'rm -rf "$inst"' EXIT
install -m 0755 "${CARGO_TARGET_DIR:-$root/target}/release/bob" "$inst/bob"
python3 scripts/bench_turn.py "$inst/bob" "${1:-30}"
