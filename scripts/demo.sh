#!/usr/bin/env bash
# bob's offline demo: the stages of one turn, run one by one as a shell pipeline on the example
# files in examples/, in a throwaway home, with no network and no API key.
#
#   bash scripts/demo.sh        # narration on stderr, one JSON document per step on stdout
#
# Steps: seed a session's checkpoint with a long history -> sanitize an assistant reply full of
# scaffolding -> extract its NOTES patch -> apply the patch to the checkpoint -> condense the
# history (the patch asked for condense_now) -> trace every step and query the trace.
# (`bash scripts/demo-turn.sh` runs the same stages as one `bob turn`.)
set -euo pipefail

source "$(dirname "$0")/demo-common.sh"

BOB_HOME=$(mktemp -d)
export BOB_HOME
export BOB_NOW=2026-02-15T00:00:00Z
trap 'rm -rf "$BOB_HOME"' EXIT
S=demo
note "home: $BOB_HOME (temporary), clock pinned to $BOB_NOW"

trace() { # kind, data-json
    "$BOB" trace emit --session "$S" --kind "$1" --data "$2" > /dev/null
}

say "1. seed session '$S' with a long history (examples/history.json: 61 messages, ~51k chars)"
{ printf '{"state":{"goals":["learn bob"]},"recent_messages":'; cat examples/history.json; printf '}'; } \
    | "$BOB" state set --session "$S" > "$BOB_HOME/seeded.json"
note "checkpoint written at revision 1"

say "2. sanitize the assistant reply (examples/reply.txt has <think>, NOTES_JSON, TOOL_CALLS_JSON, an echoed STATE and terminal escapes)"
out=$("$BOB" sanitize --input examples/reply.txt)
echo "$out"
trace llm_done "$out"
note "what the user sees carries no scaffolding and no chain of thought"

say "3. extract the NOTES patch from the raw reply"
out=$("$BOB" notes extract --input examples/reply.txt)
echo "$out"

say "4. apply the patch to the checkpoint (model-originated: it may request, never grant, capabilities)"
"$BOB" notes apply --session "$S" --input examples/reply.txt
note "notes apply traced notes_patch and actions events itself; net:crates.io is only requested"

say "5. the patch asked for condense_now: condense the session's history to half the 12000-char budget"
out=$("$BOB" condense --session "$S" --force)
echo "$out"
trace condense '{"action":"condense_now","mode":"force"}'
note "oldest turns dropped, system prompt and latest turns kept, tool results normalized"

say "6. condense a message list (examples/history.json) under the default 12000-char budget (pressure mode)"
"$BOB" condense --input examples/history.json

say "7. query the session's trace (one JSON line per event)"
"$BOB" trace query --session "$S" --kind notes_patch --kind actions --kind condense
"$BOB" trace stats --session "$S"

say "done: every stage above is a subcommand reading JSON and writing JSON"
