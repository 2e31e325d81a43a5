#!/usr/bin/env bash
# Benchmarks `bob memory`: bulk import and end-to-end query latency (process start to exit) on
# 100k and 1M synthetic long-term records, compared in the same run with the sqlite3 shell
# running the equivalent FTS5 query on the same database; then retrieval quality on the
# LongMemEval-format fixture. It also reports how often bob's budgeted ranking (see
# src/memory/ltm.rs) returns the same top 5 as the exact ranking (BOB_MEMORY_RANK_BUDGET=exact).
#
#   scripts/bench-memory.sh                 # 100k and 1M
#   N_BIG=0 scripts/bench-memory.sh         # skip the 1M run
#   BOB=path/to/bob RUNS=50 scripts/bench-memory.sh
#
# Needs: python3 (data generation and statistics), sqlite3, hyperfine (apt-get install -y
# hyperfine).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-100000}
N_BIG=${N_BIG:-1000000}
RUNS=${RUNS:-40}
if [[ -z "${BOB:-}" ]]; then
  (cd "$here" && cargo build --release -q)
  BOB="${CARGO_TARGET_DIR:-$here/target}/release/bob"
fi
for tool in python3 sqlite3 hyperfine; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BOB_NOW=2026-02-15T00:00:00Z

gen() { # gen N FILE: synthetic records, Zipf-like vocabulary of 20k words
  python3 - "$1" "$2" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(42)
syll = ["ka","lo","mi","ren","tas","vo","qui","dor","pel","sun","ra","te","nix","bal","cor","fen","gu","ham","ist","jo"]
vocab = sorted({"".join(rnd.choice(syll) for _ in range(rnd.randint(2, 4))) for _ in range(30000)})[:20000]
import itertools
cum = list(itertools.accumulate(1.0 / (i + 1) ** 0.9 for i in range(len(vocab))))
with open(path, "w") as f:
    for i in range(n):
        words = rnd.choices(vocab, cum_weights=cum, k=rnd.randint(30, 70))
        title = " ".join(rnd.choices(vocab, cum_weights=cum, k=4))
        tags = rnd.sample(vocab[:200], 2)
        rec = {"id": "x", "title": title, "created_at": "2025-%02d-%02dT12:00:00Z" % (rnd.randint(1, 12), rnd.randint(1, 28)),
               "tags": tags, "summary": " ".join(words[:12]), "facts": [], "body_md": " ".join(words),
               "source": "imported", "token_est": 0, "ttl_days": None, "type": "fact",
               "importance": rnd.randint(1, 10), "user": "default"}
        f.write(json.dumps(rec) + "\n")
# queries: 2-4 words drawn from the mid-frequency part of the vocabulary
with open(path + ".queries", "w") as f:
    for _ in range(20):
        f.write(" ".join(rnd.sample(vocab[50:5000], rnd.randint(2, 4))) + "\n")
PY
}

stats() { # stats HYPERFINE_JSON -> "median_ms p95_ms"
  python3 - "$1" <<'PY'
import json, sys, statistics
times = []
for r in json.load(open(sys.argv[1]))["results"]:
    times += r["times"]
times.sort()
p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
print("%.2f %.2f" % (statistics.median(times) * 1000, p95 * 1000))
PY
}

fts_expr() { # the FTS5 expression of bob's first pass (no owner term; the user is checked after)
  python3 - "$1" <<'PY'
import sys
words = [w.lower() for w in __import__("re").split(r"\W+", sys.argv[1]) if w]
terms = " OR ".join('"%s"' % w for w in dict.fromkeys(words))
print('{title summary body tags} : (%s)' % terms)
PY
}

run_size() { # run_size N LABEL
  local n=$1 label=$2 home="$work/home_$2" data="$work/records_$2.jsonl"
  echo "== $label records =="
  gen "$n" "$data"
  local t0 t1
  t0=$(date +%s.%N)
  "$BOB" --home "$home" memory import --jsonl "$data" >/dev/null
  t1=$(date +%s.%N)
  local import_s
  import_s=$(python3 -c "print('%.2f' % ($t1 - $t0))")
  echo "import: ${import_s} s (one transaction, one ledger batch record)"
  local db="$home/memory.db"
  # hyperfine runs each query RUNS times; all queries' runs are pooled for median/p95.
  local bob_cmds=() sql_cmds=()
  while IFS= read -r q; do
    bob_cmds+=("$BOB --home $home memory query '$q' -k 5")
    local expr
    expr=$(fts_expr "$q" | sed "s/'/''/g")
    sql_cmds+=("sqlite3 $db \"SELECT l.id, f.rank FROM (SELECT rowid, rank FROM ltm_fts WHERE ltm_fts MATCH '$expr' ORDER BY rank LIMIT 40) f JOIN ltm l ON l.rid = f.rowid\"")
  done < <(head -n 10 "$data.queries")
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$work/bob_$label.json" "${bob_cmds[@]}" >/dev/null 2>&1
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$work/sql_$label.json" "${sql_cmds[@]}" >/dev/null 2>&1
  read -r bmed bp95 < <(stats "$work/bob_$label.json")
  read -r smed sp95 < <(stats "$work/sql_$label.json")
  local ratio
  ratio=$(python3 -c "print('%.2f' % ($bmed / $smed))")
  echo "bob memory query: median ${bmed} ms, p95 ${bp95} ms"
  echo "sqlite3 same FTS: median ${smed} ms, p95 ${sp95} ms"
  echo "ratio (bob / sqlite3, median): ${ratio}"
  # How often the budgeted ranking returns the exact ranking's top 5 (same ids, same order),
  # over all the generated queries; BOB_MEMORY_RANK_BUDGET=exact ranks every match.
  local same=0 total=0
  while IFS= read -r q; do
    a=$("$BOB" --home "$home" memory query "$q" -k 5 | python3 -c 'import sys, json; print(" ".join(json.loads(l)["id"] for l in sys.stdin))')
    b=$(BOB_MEMORY_RANK_BUDGET=exact "$BOB" --home "$home" memory query "$q" -k 5 | python3 -c 'import sys, json; print(" ".join(json.loads(l)["id"] for l in sys.stdin))')
    total=$((total + 1))
    [[ "$a" == "$b" ]] && same=$((same + 1))
  done <"$data.queries"
  echo "top-5 equal to the exact ranking: ${same}/${total} queries"
  echo "| $label | ${import_s} s | ${bmed} / ${bp95} ms | ${smed} / ${sp95} ms | ${ratio} | ${same}/${total} |" >>"$work/table"
}

: >"$work/table"
run_size "$N" "$((N / 1000))k"
if [[ "$N_BIG" -gt 0 ]]; then run_size "$N_BIG" "$((N_BIG / 1000))k"; fi
echo
echo "| records | bulk import | bob query median / p95 | sqlite3 median / p95 | ratio | top-5 = exact |"
echo "| --- | --- | --- | --- | --- | --- |"
cat "$work/table"
echo
echo "== retrieval quality (tests/fixtures/memory/longmemeval_small.json) =="
"$BOB" --home "$work/q" memory bench --dataset "$here/tests/fixtures/memory/longmemeval_small.json"
