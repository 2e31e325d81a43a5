#!/usr/bin/env bash
# Benchmark: `bob schedule tick` over 10,000 jobs, none of them due (target: median <= 20 ms),
# against jq reading the same jobs.json and selecting the due jobs.
#
#   scripts/bench-schedule.sh            # builds the release binary if needed
#   BOB=/path/to/bob JOBS=10000 RUNS=50 scripts/bench-schedule.sh
#
# Needs hyperfine and jq (apt-get install -y hyperfine jq).
set -euo pipefail

cd "$(dirname "$0")/.."
JOBS=${JOBS:-10000}
RUNS=${RUNS:-50}
TARGET_MS=${TARGET_MS:-20}
if [[ -z "${BOB:-}" ]]; then
  cargo build --release --quiet
  BOB="${CARGO_TARGET_DIR:-target}/release/bob"
fi
for tool in hyperfine jq; do
  command -v "$tool" >/dev/null || { echo "bench-schedule: $tool is missing (apt-get install -y $tool)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
home="$work/home"
mkdir -p "$home/schedule"
now="2026-02-15T00:30:00Z"   # every job is next due at 01:00: nothing is due

jq -n --argjson n "$JOBS" '{paused: false, jobs: [range($n) | {
    id: "job_\(.)", agentID: "agent_default", schedule: "@every 1h",
    message: "Generate status report \(.)", enabled: true,
    lastRun: "2026-02-15T00:00:00Z", next_run: "2026-02-15T01:00:00Z",
    last_status: "ok", last_run_id: "run_\(.)"}]}' > "$home/schedule/jobs.json"
size=$(wc -c < "$home/schedule/jobs.json")
before=$(sha256sum "$home/schedule/jobs.json")

# Sanity: the tick runs nothing, starts nothing, writes nothing.
out=$(BOB_HOME="$home" BOB_NOW="$now" BOB_SCHEDULE_TURN_CMD=false "$BOB" schedule tick)
[[ $(jq '.ran | length' <<<"$out") == 0 && $(jq .jobs <<<"$out") == "$JOBS" ]] || {
  echo "bench-schedule: unexpected tick result: $out" >&2; exit 1; }
due=$(jq --arg now "$now" '[.jobs[] | select(.enabled and .next_run <= $now)] | length' "$home/schedule/jobs.json")
[[ "$due" == 0 ]] || { echo "bench-schedule: jq found $due due jobs" >&2; exit 1; }

hyperfine --style basic --warmup 5 --runs "$RUNS" -N \
  --export-json "$work/result.json" \
  -n "bob schedule tick" "env BOB_HOME=$home BOB_NOW=$now BOB_SCHEDULE_TURN_CMD=false $BOB schedule tick" \
  -n "jq select due" "jq --arg now $now '[.jobs[] | select(.enabled and .next_run <= \$now)] | length' $home/schedule/jobs.json" \
  >&2

after=$(sha256sum "$home/schedule/jobs.json")
[[ "$before" == "$after" ]] || { echo "bench-schedule: the tick rewrote jobs.json" >&2; exit 1; }
[[ ! -e "$home/schedule/history.jsonl" ]] || { echo "bench-schedule: the tick wrote history" >&2; exit 1; }

bob_ms=$(jq '.results[0].median * 1000' "$work/result.json")
jq_ms=$(jq '.results[1].median * 1000' "$work/result.json")
ratio=$(jq -n --argjson a "$bob_ms" --argjson b "$jq_ms" '$a / $b')
verdict=$(jq -n --argjson a "$bob_ms" --argjson t "$TARGET_MS" 'if $a <= $t then "PASS" else "FAIL" end' -r)
printf 'jobs=%s jobs.json=%s bytes runs=%s\n' "$JOBS" "$size" "$RUNS"
printf 'bob schedule tick (none due): median %.2f ms (target <= %s ms: %s)\n' "$bob_ms" "$TARGET_MS" "$verdict"
printf 'jq select due (peer):         median %.2f ms\n' "$jq_ms"
printf 'ratio bob/jq: %.3f\n' "$ratio"
[[ "$verdict" == PASS ]]
