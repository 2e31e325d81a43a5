#!/usr/bin/env bash
# What the key epoch check costs a ledger append on the shared store (PostgreSQL):
#  1. `bob memory approve` (one ledger record and one audit event, each append taking its
#     chain's lock, then the epoch lock shared and reading the newest epoch), one process per
#     call, APPENDS calls before any `bob ledger rekey` and APPENDS after one (the key then comes
#     from the database, unsealed once per process): median and p95 of each.
#  2. The two statements the check adds, alone inside the database (pgbench, one connection):
#     an append's transaction (chain lock, read the chain's tail) with and without them.
#
#   BOB=target/release/bob scripts/bench-pg-epoch.sh
#   APPENDS=100 BOB=target/release/bob scripts/bench-pg-epoch.sh
#
# Starts a throwaway PostgreSQL cluster (unix socket only, in a temp directory; as `nobody`
# when run as root) and removes it on exit. Needs python3 and pgbench.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
APPENDS=${APPENDS:-50}
if [[ -z "${BOB:-}" ]]; then
  (cd "$here" && cargo build -q --locked)
  BOB="${CARGO_TARGET_DIR:-$here/target}/debug/bob"
fi
BOB=$(realpath "$BOB")
work=$(mktemp -d)
source "$here/scripts/bench-pg-common.sh"
cleanup() {
  pg_stop
  rm -rf "$work"
}
trap cleanup EXIT
echo "bob=$BOB APPENDS=$APPENDS; $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"

mkdir -p "$work/keys"
pg_start

python3 - "$BOB" "$work" "$APPENDS" <<'PY'
import json, os, subprocess, sys, time, statistics
bob, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ)
env["BOB_DATABASE_URL"] = "postgresql://bob@localhost/bob?host=%s/sock" % work
env["BOB_KEY_FILE"] = work + "/keys/chain.key"
home = work + "/node"
def run(args, stdin=""):
    return subprocess.run([bob, "--home", home] + args, env=env, input=stdin.encode(),
                          capture_output=True, check=True).stdout.decode()
body = json.dumps([{"text": "fact number %d about the epoch bench" % i, "type": "fact"} for i in range(2 * n + 2)])
ids = [json.loads(l)["id"] for l in run(["memory", "propose"], body).splitlines() if l.strip()]
def approve(batch):
    times = []
    for cid in batch:
        t = time.perf_counter()
        run(["memory", "approve", cid])
        times.append((time.perf_counter() - t) * 1000)
    return times
def p(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]
approve(ids[:2])  # warm-up: the chains and the schema exist
before = approve(ids[2:2 + n])
run(["ledger", "rekey"])
after = approve(ids[2 + n:2 + 2 * n])
print("| `bob memory approve` on PostgreSQL | calls | median ms | p95 ms |")
print("| --- | --- | --- | --- |")
print("| before any rotation (epoch table empty) | %d | %.1f | %.1f |" % (n, statistics.median(before), p(before, 0.95)))
print("| after `bob ledger rekey` (key unsealed from the database) | %d | %.1f | %.1f |" % (n, statistics.median(after), p(after, 0.95)))
print("ratio after / before (median): %.2f" % (statistics.median(after) / statistics.median(before)))
verify = subprocess.run([bob, "--home", home, "ledger", "verify", "--all"], env=env, capture_output=True)
print("ledger verify --all after the run: exit %d" % verify.returncode)
PY

# The two statements alone, in an append's transaction (one pgbench connection).
cat >"$work/plain.sql" <<'SQL'
BEGIN;
SELECT pg_advisory_xact_lock(7365);
SELECT seq, record FROM memory_ledger ORDER BY seq DESC LIMIT 1;
COMMIT;
SQL
cat >"$work/epoch.sql" <<'SQL'
BEGIN;
SELECT pg_advisory_xact_lock(7365);
SELECT pg_advisory_xact_lock_shared(27707016216934771);
SELECT epoch, key_id, nonce, sealed_key FROM chain_keys ORDER BY epoch DESC LIMIT 1;
SELECT seq, record FROM memory_ledger ORDER BY seq DESC LIMIT 1;
COMMIT;
SQL
for f in plain epoch; do
  lat=$("$pgbin/pgbench" -n -h "$work/sock" -U bob -f "$work/$f.sql" -t 2000 bob 2>&1 \
        | sed -n 's/^latency average = \(.*\)$/\1/p')
  echo "pgbench, an append's lock and tail read, $f: $lat per transaction"
done
