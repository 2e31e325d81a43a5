#!/usr/bin/env bash
# Benchmark: 1,000 fs.read_text calls in one `bob tool run` (sandboxed, audited, one batched
# fdatasync) against the peer `xargs cat` reading the same 1,000 files, plus the share of
# bob's time spent on the audit log (BOB_TOOL_STATS=1 reports it; the audit cannot be
# switched off).
#
# Usage: scripts/bench-tools.sh [RUNS]   (release build; uses hyperfine when installed)
set -euo pipefail

RUNS="${1:-15}"
source "$(dirname "$0")/bench-common.sh"
mkdir -p "$work/root" "$work/home"
for i in $(seq 1 1000); do
  printf 'file %d\nline two of a small text file, about two hundred bytes long, like a source file header.\nthird line\n' "$i" >"$work/root/f$i.txt"
done
(cd "$work/root" && ls f*.txt) >"$work/list"
python3 - "$work" <<'EOF'
import json, sys
w = sys.argv[1]
calls = [{"id": f"c{i}", "tool": "fs.read_text", "args": {"path": f"f{i}.txt"}} for i in range(1, 1001)]
open(f"{w}/calls.json", "w").write(json.dumps(calls))
EOF

export BOB_HOME="$work/home"
bob_cmd="$BOB tool run --enable fs.read_text --root $work/root --input $work/calls.json >/dev/null"
peer_cmd="cd $work/root && xargs cat <$work/list >/dev/null"

# Sanity: 1,000 ok envelopes.
ok=$(eval "$BOB tool run --enable fs.read_text --root $work/root --input $work/calls.json" | grep -c '"ok":true')
[ "$ok" = 1000 ] || { echo "expected 1000 ok responses, got $ok" >&2; exit 1; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
time_ms() { # command → wall ms
  local s e
  s=$(date +%s%N); eval "$1"; e=$(date +%s%N)
  echo $(( (e - s) / 1000 )) | awk '{printf "%.2f\n", $1/1000}'
}

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$work/h.json" \
    -n bob "bash -c '$bob_cmd'" -n "xargs cat" "bash -c '$peer_cmd'" >/dev/null
  read -r bob_ms peer_ms < <(python3 -c "
import json; r=json.load(open('$work/h.json'))['results']
print(*[round(x['median']*1000,2) for x in r])")
else
  for _ in 1 2 3; do eval "$bob_cmd"; eval "$peer_cmd"; done
  bob_ms=$(for _ in $(seq "$RUNS"); do time_ms "$bob_cmd"; done | median)
  peer_ms=$(for _ in $(seq "$RUNS"); do time_ms "$peer_cmd"; done | median)
fi

# CPU time (user+sys) of bob and of the peer: what wall time would be on an idle machine, and
# the audit share inside bob (BOB_TOOL_STATS=1: wall and thread-CPU time of building,
# redacting and appending the events, one chained batch + fdatasync).
stats="$work/stats"
: >"$stats"
for _ in $(seq "$RUNS"); do
  BOB_TOOL_STATS=1 $BOB tool run --enable fs.read_text --root "$work/root" --input "$work/calls.json" 2>>"$stats" >/dev/null
done
field() { python3 -c "import json,sys; [print(json.loads(l)['stats']['$1']) for l in open('$stats')]" | median; }
bob_cpu=$(field cpu_ms)
audit=$(field audit_ms)
audit_cpu=$(field audit_cpu_ms)
peer_cpu=$(for _ in $(seq "$RUNS"); do
  /usr/bin/time -f "%U %S" bash -c "$peer_cmd" 2>&1 | awk '{printf "%.2f\n", ($1+$2)*1000}'
done | median)
lines=$(cat "$work"/home/audit/*/*.jsonl | wc -l)
load=$(cut -d' ' -f1 /proc/loadavg)

ratio=$(awk -v a="$bob_ms" -v b="$peer_ms" 'BEGIN {printf "%.2f", a/b}')
echo "1000 x fs.read_text, median of $RUNS runs (release), load average $load on $(nproc) cores:"
echo "  wall  bob tool run (sandbox + audit): ${bob_ms} ms   (target <= 100 ms)"
echo "  wall  xargs cat (peer):               ${peer_ms} ms"
echo "  wall  ratio bob/peer:                 ${ratio}x"
echo "  cpu   bob (user+sys, whole process):  ${bob_cpu} ms"
echo "  cpu   xargs cat + cat (user+sys):     ${peer_cpu} ms"
echo "  audit inside bob: ${audit_cpu} ms cpu, ${audit} ms wall for 2000 events = $(awk -v a="$audit_cpu" 'BEGIN {printf "%.1f", a}') us cpu per call ($lines audit lines written in total)"
awk -v a="$bob_ms" 'BEGIN {exit !(a <= 100)}' && echo "  wall PASS: within 100 ms" || echo "  wall OVER 100 ms (compare the cpu line when the machine is loaded)"
