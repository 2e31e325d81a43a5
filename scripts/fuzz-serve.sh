#!/usr/bin/env bash
# Property-based testing of `bob serve` against its own OpenAPI document with Schemathesis:
# every operation of GET /openapi.json, with a token, on the replay backend (runs complete),
# every check (5xx, schema conformance, positive and negative data, auth, …).
#
#   python3 -m venv /work/venv-st && /work/venv-st/bin/pip install schemathesis   # once, by hand
#   ST=/work/venv-st/bin/st scripts/fuzz-serve.sh                 # 120 s budget, debug build
#   ST=… BOB=target/release/bob scripts/fuzz-serve.sh --max-time 600
#
# Not part of the test suite or CI (it needs Schemathesis from PyPI). Extra arguments go to
# `st run`; scripts/schemathesis.toml lists the operations whose bodies have rules the
# document cannot state.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ST=${ST:-st}
if [[ -z "${BOB:-}" ]]; then
  (cd "$here" && cargo build -q)
  BOB="${CARGO_TARGET_DIR:-$here/target}/debug/bob"
fi
work=$(mktemp -d)
pid=
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export BOB_HOME="$work/home"
"$BOB" init >/dev/null
tok=$("$BOB" serve token create --name fuzz --scope admin | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
for _ in $(seq 50); do echo '{"content":"ok"}'; done >"$work/replay.jsonl"
"$BOB" serve --bind 127.0.0.1:0 --workers 2 --backend "replay:$work/replay.jsonl" \
  >"$work/ready" 2>"$work/serve.err" &
pid=$!
for _ in $(seq 200); do [[ -s "$work/ready" ]] && break; sleep 0.05; done
addr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listening"])' "$work/ready")
status=0
"$ST" --config-file "$here/scripts/schemathesis.toml" run "http://$addr/openapi.json" \
  -H "Authorization: Bearer $tok" --checks all --max-time 120 "$@" || status=$?
kill -0 "$pid" || { echo "bob serve died during the run" >&2; status=1; }
exit $status
