#!/usr/bin/env bash
# Benchmark of the redaction step in front of durable writes: `bob trace emit` of ONE event
# whose data is a large string (one locked write, one fdatasync), at 1, 4 and 16 MB, for prose
# with no secret-looking keyword, prose where secret keywords are frequent (every ~1 KB a
# `password=…`, `Bearer …`, `api_key=…`, an `sk-…` key), and the same event with the home on
# tmpfs. The peer is `jq -c .` reading and re-serializing the same JSON document (parse +
# serialize, no redaction). Reports medians and the bob/jq ratio; linear scaling shows as a
# constant MB/s across sizes.
#
#   bash scripts/bench-redact.sh [N]      # N runs per case (default 5), release build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v jq >/dev/null || { echo "bench-redact: jq is required (the peer)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-redact: python3 is required" >&2; exit 1; }
cargo build -q --release
BOB="${CARGO_TARGET_DIR:-$root/target}/release/bob"
python3 - "$BOB" "${1:-5}" <<'PY'
import json, os, shutil, statistics, subprocess, sys, tempfile, time
bob, n = sys.argv[1], int(sys.argv[2])
work = tempfile.mkdtemp(prefix="bob-bench-redact-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
prose = ("The quick brown fox jumps over the lazy dog while the scheduler ticks and the "
         "memory store ranks notes by relevance and recency for the next turn. ")
secrety = ("login with password=hunter2x then Authorization: Bearer abcdefghij0123456789 and "
           "api_key=k1234567890 or sk-proj-abcdefghijklmnopqrstuvwx in the config. ")
def doc(mb, mixed):
    unit = prose * 6 + (secrety if mixed else prose)
    text = (unit * (mb * 1024 * 1024 // len(unit) + 1))[: mb * 1024 * 1024]
    return json.dumps({"kind": "bench.big", "data": {"text": text}}) + "\n"
def timed(cmd, stdin_path, env=None):
    with open(stdin_path, "rb") as f:
        t = time.perf_counter()
        subprocess.run(cmd, stdin=f, stdout=subprocess.DEVNULL, check=True, env=env)
        return time.perf_counter() - t
print(f"runs per case: {n} (medians, ms)")
print(f"{'case':44} {'bob':>9} {'jq -c .':>9} {'ratio':>6} {'bob MB/s':>9}")
for mixed in (False, True):
    for mb in (1, 4, 16):
        path = os.path.join(work, f"in-{mb}-{int(mixed)}.jsonl")
        with open(path, "w") as f:
            f.write(doc(mb, mixed))
        home = os.path.join(work, "home")
        env = dict(os.environ, BOB_HOME=home, BOB_NOW="2026-02-15T00:00:00Z")
        b = []
        for i in range(n):
            b.append(timed([bob, "trace", "emit", "--session", f"s{i}"], path, env))
        j = [timed(["jq", "-c", "."], path) for _ in range(n)]
        mb_, mj = statistics.median(b) * 1000, statistics.median(j) * 1000
        name = f"{mb:>2} MB, {'secret keywords every ~1 KB' if mixed else 'no secret keyword'}"
        print(f"{name:44} {mb_:9.1f} {mj:9.1f} {mb_/mj:6.2f} {mb/(mb_/1000):9.1f}")
        shutil.rmtree(home, ignore_errors=True)
shutil.rmtree(work, ignore_errors=True)
PY
