#!/usr/bin/env bash
# The shared store's figures, both backends in one run:
#  1. `bob memory query` end to end (process start to exit, so PostgreSQL's figure includes
#     connecting) at N synthetic long-term records, on the embedded home (SQLite FTS5) and on
#     PostgreSQL (the same records copied with `bob db import --from HOME`), p50 and p95 over
#     every run of every query; PostgreSQL again with every match ranked
#     (BOB_MEMORY_RANK_BUDGET=exact); how often the top hit agrees between them; the connection's
#     own cost (`bob db status`: connect and one query) against `bob --version`, and the peer:
#     `psql -X -c 'SELECT 1'` as a new process per call (directly and through the pooler), with
#     the ratio of bob's whole query to it; the ranking statement bob used before the rank
#     budget (ts_rank_cd over every match) alone inside PostgreSQL (psql \timing); and the
#     time `bob db import` took.
#     When pgbouncer is installed (apt-get install -y pgbouncer), PostgreSQL again through it in
#     session pooling: each `bob` process is one pooler session on a server process kept
#     between sessions, as a deployment with many short-lived clients runs it.
#  2. `bob turn` on each backend: the same one-message turn (replay backend, one process per
#     call, a new session each), median and p95 of TURNS calls, against `bob --version`.
#  3. Unless RUNS_BENCH=0: scripts/bench-pg-runs.sh with the same binary (runs/s of one node
#     on each backend and of two nodes on one database; recovery of a killed node's runs).
#
#   scripts/bench-pg.sh                       # N=100000, RUNS=20 per query, 10 queries
#   N=20000 RUNS=10 TURNS=50 scripts/bench-pg.sh
#   BOB=target/release/bob scripts/bench-pg.sh
#
# Starts a throwaway PostgreSQL cluster (Debian's initdb/pg_ctl; unix socket only, in a temp
# directory; as `nobody` when run as root) and removes it on exit. Needs python3.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-100000}
RUNS=${RUNS:-20}
TURNS=${TURNS:-100}
RUNS_BENCH=${RUNS_BENCH:-1}
if [[ -z "${BOB:-}" ]]; then
  (cd "$here" && cargo build -q --locked)
  BOB="${CARGO_TARGET_DIR:-$here/target}/debug/bob"
fi
BOB=$(realpath "$BOB")
work=$(mktemp -d)
source "$here/scripts/bench-pg-common.sh"
cleanup() {
  [[ -f "$work/bouncer/pid" ]] && kill "$(cat "$work/bouncer/pid")" 2>/dev/null || true
  pg_stop
  rm -rf "$work"
}
trap cleanup EXIT
export BOB_NOW=2026-02-15T00:00:00Z
echo "bob=$BOB N=$N RUNS=$RUNS TURNS=$TURNS; $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"

pg_start
url="postgresql://bob@localhost/bob?host=$work/sock"
pooled=""
bouncer=$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null || true)
if [[ -n "$bouncer" ]]; then
  mkdir -p "$work/bouncer"
  cat >"$work/bouncer/ini" <<INI
[databases]
bob = host=$work/sock dbname=bob user=bob
[pgbouncer]
listen_addr =
unix_socket_dir = $work/bouncer
listen_port = 6432
auth_type = trust
auth_file = $work/bouncer/users
pool_mode = session
server_reset_query = DISCARD ALL
default_pool_size = 4
logfile = $work/bouncer/log
pidfile = $work/bouncer/pid
INI
  echo '"bob" ""' >"$work/bouncer/users"
  [[ $(id -u) == 0 ]] && chown -R nobody "$work/bouncer"
  as_owner "$bouncer" -d "$work/bouncer/ini"
  pooled="postgresql://bob@localhost/bob?host=$work/bouncer&port=6432"
fi

echo "== generating $N records =="
python3 - "$N" "$work/records.jsonl" <<'PY'
import json, random, sys, itertools
n, path = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(7)
syll = ["ba", "ko", "ri", "men", "sal", "ve", "tor", "quin", "da", "lu", "fe", "nor", "pi", "gash", "ul", "zen"]
vocab = sorted({"".join(rnd.choice(syll) for _ in range(rnd.randint(2, 4))) for _ in range(30000)})[:20000]
cum = list(itertools.accumulate(1.0 / (i + 1) ** 0.9 for i in range(len(vocab))))
with open(path, "w") as f:
    for i in range(n):
        words = rnd.choices(vocab, cum_weights=cum, k=rnd.randint(30, 70))
        f.write(json.dumps({
            "id": "x", "title": " ".join(rnd.choices(vocab, cum_weights=cum, k=4)),
            "created_at": "2025-%02d-%02dT12:00:00Z" % (rnd.randint(1, 12), rnd.randint(1, 28)),
            "tags": rnd.sample(vocab[:200], 2), "summary": " ".join(words[:12]), "facts": [],
            "body_md": " ".join(words), "source": "imported", "token_est": 0, "ttl_days": None,
            "type": "fact", "importance": rnd.randint(1, 10), "user": "default"}) + "\n")
with open(path + ".queries", "w") as f:
    for _ in range(10):
        f.write(" ".join(rnd.sample(vocab[50:5000], rnd.randint(2, 4))) + "\n")
PY

t0=$(date +%s.%N)
"$BOB" --home "$work/embedded" memory import --jsonl "$work/records.jsonl" >/dev/null
t1=$(date +%s.%N)
BOB_DATABASE_URL=$url BOB_KEY_FILE="$work/embedded/keys/chain.key" \
  "$BOB" --home "$work/node" db import --from "$work/embedded" >"$work/import.json"
t2=$(date +%s.%N)
python3 -c "print('embedded import: %.1f s; bob db import into PostgreSQL: %.1f s' % ($t1 - $t0, $t2 - $t1))"
# The rank budget reads the column statistics autovacuum keeps, and the postings are read by
# index-only scans, which skip the heap only on pages the visibility map marks all-visible:
# do now what autovacuum does within a minute or so of a bulk load (ANALYZE; VACUUM once a
# table has had enough inserts) rather than wait for it.
"$pgbin/psql" -h "$work/sock" -U bob -d bob -qc "VACUUM ANALYZE memory_records, memory_rank, memory_terms, memory_blocks"
cat "$work/import.json"; echo

python3 - "$BOB" "$work" "$url" "$RUNS" "$pgbin/psql" "$pooled" <<'PY'
import os, re, subprocess, sys, time, statistics
bob, work, url, runs, pooled = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[6]
queries = [q.strip() for q in open(work + "/records.jsonl.queries") if q.strip()]
def env(pg, at=url):
    e = dict(os.environ)
    if pg:
        e["BOB_DATABASE_URL"] = at
        e["BOB_KEY_FILE"] = work + "/embedded/keys/chain.key"
    return e
exact = env(True)
exact["BOB_MEMORY_RANK_BUDGET"] = "exact"
homes = {"sqlite": (work + "/embedded", env(False)), "postgres": (work + "/node", env(True)),
         "postgres, every match ranked": (work + "/node", exact)}
if pooled:
    homes["postgres through pgbouncer (session pooling)"] = (work + "/node-pooled", env(True, pooled))
times = {k: [] for k in homes}
hits = {}
for q in queries:
    for name, (home, e) in homes.items():
        args = [bob, "--home", home, "memory", "query", q, "-k", "5"]
        out = subprocess.run(args, env=e, capture_output=True, check=True)  # warm-up
        hits.setdefault(q, {})[name] = [l.split('"id":"')[1].split('"')[0] for l in out.stdout.decode().splitlines() if '"id":"' in l]
    # Interleave the backends so both see the same machine load.
    for _ in range(runs):
        for name, (home, e) in homes.items():
            args = [bob, "--home", home, "memory", "query", q, "-k", "5"]
            t = time.perf_counter()
            subprocess.run(args, env=e, capture_output=True, check=True)
            times[name].append((time.perf_counter() - t) * 1000)
def p(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]
print("| backend | queries x runs | p50 ms | p95 ms |")
print("| --- | --- | --- | --- |")
for name in homes:
    print("| %s | %d x %d | %.1f | %.1f |" % (name, len(queries), runs, statistics.median(times[name]), p(times[name], 0.95)))
print("ratio postgres / sqlite (p50): %.2f" % (statistics.median(times["postgres"]) / statistics.median(times["sqlite"])))
# The connection's own cost: `bob db status` connects and asks the schema version.
# The peer: PostgreSQL's own client as a new process per call, connecting and asking `SELECT 1`
# (directly, and through the pooler when there is one), the least any command-line client
# connecting to this server pays.
psql = sys.argv[5]
peers = {"postgres": ["-h", work + "/sock"]}
if pooled:
    peers["postgres through pgbouncer (session pooling)"] = ["-h", work + "/bouncer", "-p", "6432"]
conn, floor, peer = [], [], {k: [] for k in peers}
for _ in range(runs * 3):
    t = time.perf_counter()
    subprocess.run([bob, "--home", work + "/node", "db", "status"], env=env(True), capture_output=True, check=True)
    conn.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    subprocess.run([bob, "--version"], capture_output=True, check=True)
    floor.append((time.perf_counter() - t) * 1000)
    for name, at in peers.items():
        t = time.perf_counter()
        subprocess.run([psql, "-X", *at, "-U", "bob", "-d", "bob", "-Atqc", "SELECT 1"], capture_output=True, check=True)
        peer[name].append((time.perf_counter() - t) * 1000)
print("| `bob db status` on postgres (connect + one query) | %d | %.1f | %.1f |" % (len(conn), statistics.median(conn), p(conn, 0.95)))
print("| `bob --version` (process floor) | %d | %.1f | %.1f |" % (len(floor), statistics.median(floor), p(floor, 0.95)))
for name, xs in peer.items():
    print("| peer: `psql -X -c 'SELECT 1'`, a new process, %s | %d | %.1f | %.1f |" % (name, len(xs), statistics.median(xs), p(xs, 0.95)))
for name, xs in peer.items():
    print("ratio bob memory query / psql SELECT 1, %s: p50 %.2f, p95 %.2f" % (name, statistics.median(times[name]) / statistics.median(xs), p(times[name], 0.95) / p(xs, 0.95)))
def agree(a, b):
    same = sum(1 for q in queries if hits[q][a][:1] == hits[q][b][:1])
    overlap = statistics.mean(len(set(hits[q][a]) & set(hits[q][b])) / max(1, len(hits[q][a])) for q in queries)
    return same, overlap
same, overlap = agree("sqlite", "postgres")
# The ranking statement bob runs, inside the database (one psql session, \timing).
sql = ["\\timing on"]
for q in queries:
    words = " or ".join(w.lower() for w in re.split(r"\W+", q) if w)
    stmt = ("WITH q AS (SELECT websearch_to_tsquery('english', '%s') AS q) SELECT id, "
            "ts_rank_cd('{0.1, 0.25, 0.5, 1.0}', tsv, q.q, 1)::float8 AS rank, importance, created_unix "
            "FROM memory_rank, q WHERE user_id = 'default' AND tsv @@ q.q AND (expires_unix IS NULL "
            "OR expires_unix > 0) AND tags @> '{}' ORDER BY rank DESC, id LIMIT 40;" % words)
    sql += [stmt] * (runs + 1)
out = subprocess.run([psql, "-h", work + "/sock", "-U", "bob", "-d", "bob", "-q", "-o", "/dev/null"],
                     input="\n".join(sql), capture_output=True, text=True, check=True).stdout
ms = [float(m) for m in re.findall(r"Time: ([0-9.]+) ms", out)]
ms = [t for i, t in enumerate(ms) if i % (runs + 1) != 0]  # drop each query's first (warm-up)
print("| postgres, the ranking statement before the rank budget, alone (psql) | %d x %d | %.1f | %.1f |" % (len(queries), runs, statistics.median(ms), p(ms, 0.95)))
print("same top hit on both backends: %d/%d queries; top-5 overlap %.0f%%" % (same, len(queries), overlap * 100))
same, overlap = agree("sqlite", "postgres, every match ranked")
print("same top hit, sqlite and postgres with every match ranked: %d/%d; top-5 overlap %.0f%%" % (same, len(queries), overlap * 100))
same, overlap = agree("postgres, every match ranked", "postgres")
print("same top hit, postgres budgeted and every match ranked: %d/%d; top-5 overlap %.0f%%" % (same, len(queries), overlap * 100))
PY

echo "== bob turn on each backend (replay backend, one process per call) =="
for _ in 1 2 3; do echo '{"content":"ok"}'; done >"$work/replay.jsonl"
python3 - "$BOB" "$work" "$url" "$TURNS" <<'PY'
import os, subprocess, sys, time, statistics
bob, work, url, turns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def env(pg):
    e = dict(os.environ)
    e.pop("BOB_NOW", None)
    if pg:
        e["BOB_DATABASE_URL"] = url
        e["BOB_KEY_FILE"] = work + "/embedded/keys/chain.key"
    return e
homes = {"sqlite": (work + "/turn-embedded", env(False)), "postgres": (work + "/turn-node", env(True))}
for home, e in homes.values():
    subprocess.run([bob, "--home", home, "init"], env=e, capture_output=True, check=True)
times = {k: [] for k in homes}
floor = []
for i in range(turns + 3):
    for name, (home, e) in homes.items():
        args = [bob, "--home", home, "turn", "--backend", "replay:" + work + "/replay.jsonl", "--session", "t%d" % i]
        t = time.perf_counter()
        subprocess.run(args, env=e, input=b"hello", capture_output=True, check=True)
        if i >= 3:
            times[name].append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    subprocess.run([bob, "--version"], capture_output=True, check=True)
    floor.append((time.perf_counter() - t) * 1000)
def p(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]
print("| backend | turns | median ms | p95 ms |")
print("| --- | --- | --- | --- |")
for name in homes:
    print("| %s | %d | %.1f | %.1f |" % (name, turns, statistics.median(times[name]), p(times[name], 0.95)))
print("| `bob --version` (process floor) | %d | %.1f | %.1f |" % (len(floor), statistics.median(floor), p(floor, 0.95)))
print("ratio postgres / sqlite (median): %.2f" % (statistics.median(times["postgres"]) / statistics.median(times["sqlite"])))
PY

if [[ $RUNS_BENCH != 0 ]]; then
  echo "== runs across nodes (scripts/bench-pg-runs.sh) =="
  env -u BOB_NOW -u RUNS BOB="$BOB" "$here/scripts/bench-pg-runs.sh"
fi
