#!/usr/bin/env bash
# Benchmark: `bob trace query --kind K` against `jq -c 'select(.kind=="K")'` on the same trace.
#
# Usage: scripts/bench-trace-query.sh [SIZE_MB]      (default 1024, or $BENCH_SIZE_MB)
#   RUNS=3 KIND=tool_done scripts/bench-trace-query.sh 256
#
# Generates a seed 000 trace of SIZE_MB (mixed kinds; ~4% are KIND and another ~4% mention KIND
# only inside `data`, so the kind filter must confirm its candidates), runs each tool RUNS times
# (median reported), checks both select the same events line for line, and prints throughput
# (MB/s) and the ratio. Human narration on stderr, one JSON summary on stdout.
set -euo pipefail

SIZE_MB=${1:-${BENCH_SIZE_MB:-1024}}
RUNS=${RUNS:-3}
KIND=${KIND:-tool_done}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

command -v jq >/dev/null || { echo "jq is required (apt-get install -y jq)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 is required" >&2; exit 1; }

echo "building bob (release)..." >&2
cargo build --release -q --manifest-path "$root/Cargo.toml"
BOB="$target/release/bob"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
F="$work/trace.jsonl"

echo "generating a ${SIZE_MB} MB trace..." >&2
python3 - "$F" "$SIZE_MB" "$KIND" <<'PY'
import json, random, sys
path, size_mb, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rnd = random.Random(7)
kinds = ["llm_req", "llm_stream", "llm_stream", "llm_stream", "llm_done", "notes_patch",
         "actions", "retrieval", "tool_plan", "tool_start"]
lines = []
ts = 1771113600.0
for i in range(40000):
    ts += rnd.random()
    r = rnd.random()
    if r < 0.04:
        k, data = kind, {"id": f"t{i}", "ok": True, "ms": rnd.randint(1, 900)}
    elif r < 0.08:
        k, data = "tool_plan", {"next": kind, "note": f"after {kind} comes the reply"}
    else:
        k = rnd.choice(kinds)
        data = {"delta": "".join(rnd.choice("abcdefghij klmnop") for _ in range(rnd.randint(20, 260))),
                "turn": i}
    lines.append(json.dumps({"ts": round(ts, 6), "kind": k, "data": data},
                            separators=(",", ":")))
block = ("\n".join(lines) + "\n").encode()
target = size_mb * 1024 * 1024
with open(path, "wb") as f:
    written = 0
    while written + len(block) <= target:
        f.write(block)
        written += len(block)
    rest = block[: target - written]
    f.write(rest[: rest.rfind(b"\n") + 1])
PY
bytes=$(stat -c %s "$F")
mb=$(python3 -c "print(round($bytes/1048576, 1))")
echo "trace: $F ($mb MB), kind=$KIND, runs=$RUNS" >&2

# Warm the page cache so both tools read from memory.
cat "$F" > /dev/null

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
time_runs() { # name, command...
    local name=$1; shift
    for _ in $(seq "$RUNS"); do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" > "$work/$name.out"
        t1=$(date +%s.%N)
        python3 -c "print($t1 - $t0)"
        echo "  $name run: $(python3 -c "print(round($t1 - $t0, 3))") s" >&2
    done | grep -v '^  ' | median
}

echo "bob trace query --kind $KIND --file F" >&2
bob_s=$(time_runs bob "$BOB" trace query --kind "$KIND" --file "$F")
echo "jq -c 'select(.kind==\"$KIND\")' F" >&2
jq_s=$(time_runs jq jq -c "select(.kind==\"$KIND\")" "$F")

# Same events, line for line (jq re-serializes numbers, so normalize bob's bytes through jq).
jq -c . "$work/bob.out" > "$work/bob.norm"
if ! cmp -s "$work/bob.norm" "$work/jq.out"; then
    echo "MISMATCH between bob and jq outputs" >&2
    diff <(head -c 2000 "$work/bob.norm") <(head -c 2000 "$work/jq.out") >&2 || true
    exit 1
fi
matches=$(wc -l < "$work/jq.out")

python3 - "$mb" "$bob_s" "$jq_s" "$matches" "$KIND" "$RUNS" <<'PY'
import json, sys
mb, bob_s, jq_s = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
res = {"size_mb": mb, "kind": sys.argv[5], "runs": int(sys.argv[6]), "matches": int(sys.argv[4]),
       "bob_median_s": round(bob_s, 3), "jq_median_s": round(jq_s, 3),
       "bob_mb_per_s": round(mb / bob_s, 1), "jq_mb_per_s": round(mb / jq_s, 1),
       "ratio": round(jq_s / bob_s, 1)}
print(f"outputs match ({res['matches']} events)", file=sys.stderr)
print(f"bob: {res['bob_mb_per_s']} MB/s (median {res['bob_median_s']} s)", file=sys.stderr)
print(f"jq:  {res['jq_mb_per_s']} MB/s (median {res['jq_median_s']} s)", file=sys.stderr)
print(f"ratio: {res['ratio']}x", file=sys.stderr)
print(json.dumps(res))
PY
