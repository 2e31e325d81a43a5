#!/usr/bin/env bash
# bob's offline turn demo: one full `bob turn` on the replay backend (no network, no API key),
# in a throwaway home. It shows a tool call (fs.read_text in the sandbox), a NOTES patch (goal,
# open loop, a capability request, and a grant the runtime refuses because only a human
# grants), a memory candidate left pending for a human, and the trace of the turn.
#
#   bash scripts/demo-turn.sh      # narration on stderr, JSON on stdout
set -euo pipefail

source "$(dirname "$0")/demo-common.sh"
# pick FIELD...: one compact JSON object per input line with those of the (dotted) fields that
# are set. python3 rather than jq, so the demo runs where only Rust and Python 3 are installed.
pick() {
    python3 -c '
import json, sys
for line in sys.stdin:
    doc, out = json.loads(line), {}
    for path in sys.argv[1:]:
        v = doc
        for key in path.split("."):
            v = v.get(key) if isinstance(v, dict) else None
        if v is not None:
            out[path.split(".")[-1]] = v
    print(json.dumps(out, separators=(",", ":")))
' "$@"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BOB_HOME="$work/home"
export BOB_NOW=2026-02-15T00:00:00Z
mkdir -p "$work/sandbox"
printf 'oat milk\ncoffee beans\n' > "$work/sandbox/shopping.txt"
note "home: $BOB_HOME (temporary); sandbox: $work/sandbox; clock pinned to $BOB_NOW"

say "1. a human enables fs.read_text for session 'demo' (tools are off by default)"
"$BOB" tool enable --session demo fs.read_text

say "2. one turn, profile bob (think -> respond), on the scripted replies of examples/replay/demo.jsonl"
BOB_TOOL_SANDBOX_ENABLED=1 BOB_TOOL_ROOTS="$work/sandbox" \
    "$BOB" turn --backend replay:examples/replay/demo.jsonl --session demo --thinking-mode always \
    <<< '{"session_id":"demo","message":"What is on my shopping list? By the way, I prefer oat milk."}' \
    | tee "$work/turn.json"
note "output: the visible answer, sanitized (no NOTES block, no tool-call block)"
note "tools: fs.read_text ran in the sandbox; notes: requested net:shop.example.com, refused grant_permission:net"

say "3. the committed checkpoint (revision 1): goals, open loops, pending capability"
"$BOB" state show --session demo

say "4. the memory candidate, pending until a human approves it (bob memory approve ID)"
"$BOB" memory candidates --status pending

say "5. the trace of the turn (traces/demo.jsonl), one line per event kind"
"$BOB" trace query --session demo | pick kind data.role data.round data.tool data.ok

say "6. the run lifecycle in the audit log (hash-chained)"
cat "$BOB_HOME"/audit/agent_default/*.jsonl | pick seq event_type payload.role payload.tool payload.status
