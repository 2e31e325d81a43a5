#!/usr/bin/env bash
# The README's "first 60 seconds", offline: build bob, then in a throwaway home ask a one-line
# question on the replay backend (scripted model replies: no model, no network, no API key),
# store and approve a memory and find it again, and run a tool. CI runs this script
# (tests/cli/user_docs.rs); every step must succeed.
#
#   bash scripts/first-60-seconds.sh          # narration on stderr, bob's JSON on stdout
#   BOB=/path/to/bob bash scripts/first-60-seconds.sh   # skip the build, use this binary
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n== %s\n' "$*" >&2; }

if [ -z "${BOB:-}" ]; then
    say "build (cargo build --locked)"
    cargo build --locked --quiet
    BOB="$PWD/target/debug/bob"
fi
bob() { "$BOB" "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BOB_HOME="$work/home"
cd "$work"

say "a home of its own: bob init"
bob init

say "a one-line question, answered from a replay script (one scripted reply per role)"
printf '%s\n' '{"role":"think","content":"A quick sum."}' \
              '{"role":"respond","content":"6 x 7 = 42."}' > replies.jsonl
echo 'What is 6x7?' | bob turn --backend replay:replies.jsonl --session first | tee turn.json
grep -q '"output":"6 x 7 = 42."' turn.json

say "memory: the model proposes, a human approves, a query finds it"
echo '{"text":"The user prefers oat milk.","type":"preference"}' | bob memory propose
id=$(bob memory candidates --status pending | sed -n 's/^{"id":"\(cand_[0-9a-f]*\)".*/\1/p')
bob memory approve "$id"
bob memory query "oat milk" | tee hits.jsonl
grep -q 'oat milk' hits.jsonl

say "a tool: bom.normalize, enabled for this one run"
echo '[{"id":"c1","tool":"bom.normalize","args":{"content":"4x Motor Mounts","source":"text"}}]' \
    | bob tool run --enable bom.normalize | tee tool.json
grep -q '"ok":true' tool.json

say "done: everything lived in $BOB_HOME, removed now"
