#!/usr/bin/env bash
# Runs across nodes on PostgreSQL (issue 25): completed runs/s of one `bob serve` node on the
# home's SQLite queue (the peer), of one node on a PostgreSQL queue, and of two nodes (two
# homes) sharing that database; then the time a killed node's running runs take to be ended by
# the other node (lease expiry + recovery), with the lease given.
#
#   BOB=target/debug/bob RUNS=200 WORKERS=4 LEASE=2 scripts/bench-pg-runs.sh
#
# Needs Debian's postgresql package (initdb, pg_ctl under /usr/lib/postgresql/*/bin): the script
# starts a throwaway cluster on a unix socket in a temp directory (as `nobody` when run as
# root) and removes it on exit. The replay backend answers every run at once, so the figures
# are the queue's and the server's own cost per run. Each figure: the median of REPEAT runs.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-200}
WORKERS=${WORKERS:-4}
LEASE=${LEASE:-2}
REPEAT=${REPEAT:-3}
HELD=${HELD:-4}
if [[ -z "${BOB:-}" ]]; then
  (cd "$here" && cargo build -q)
  BOB="${CARGO_TARGET_DIR:-$here/target}/debug/bob"
fi
BOB=$(realpath "$BOB")
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d)
pids=()
as_owner() { if [[ $(id -u) == 0 ]]; then runuser -u nobody -- "$@"; else "$@"; fi; }
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for f in "$work"/*.pid; do [[ -e $f ]] && kill -9 "$(cat "$f")" 2>/dev/null || true; done
  as_owner "$bin/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 711 "$work"   # the cluster's owner (nobody under root) must reach its directory
mkdir -p "$work/pg"
[[ $(id -u) == 0 ]] && chown nobody: "$work/pg"
as_owner "$bin/initdb" -D "$work/pg/data" -U bob -E UTF8 --locale=C --auth-local=trust >/dev/null
as_owner "$bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" \
  -o "-k $work/pg -c listen_addresses='' -c max_connections=200" -w start >/dev/null
export BOB_SERVE_RUN_RATE=0
for _ in 1 2 3; do echo '{"content":"ok"}'; done >"$work/replay.jsonl"

newdb() { "$bin/psql" -h "$work/pg" -U bob -d postgres -qc "CREATE DATABASE $1" >/dev/null
          echo "postgresql:///$1?host=$work/pg&user=bob"; }

# start NAME URL EXTRA...: a node on home $work/NAME ('' URL: the home's own queue), W workers
# (default WORKERS); prints its address. Runs in a subshell: its pid is kept in $work/NAME.pid.
start() {
  local name=$1 url=$2; shift 2
  export BOB_HOME="$work/$name"
  [[ -d $BOB_HOME ]] || "$BOB" init >/dev/null
  BOB_DATABASE_URL=$url "$BOB" serve token create --name bench --scope admin \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])' >"$work/$name.tok"
  BOB_DATABASE_URL=$url BOB_SERVE_LEASE=$LEASE "$BOB" serve --bind 127.0.0.1:0 --workers "${W:-$WORKERS}" \
    --queue 100000 "$@" >"$work/$name.ready" 2>"$work/$name.err" &
  echo $! >"$work/$name.pid"
  for _ in $(seq 200); do [[ -s "$work/$name.ready" ]] && break; sleep 0.05; done
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listening"])' "$work/$name.ready"
}
stop() { kill -9 "$(cat "$work/$1.pid")" 2>/dev/null || true; }

cat >"$work/load.py" <<'PY'
import http.client, json, sys, threading, time
def call(addr, method, path, tok, body=None):
    host, port = addr.rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=60)
    c.request(method, path, body=json.dumps(body) if body else None,
              headers={"Authorization": "Bearer " + tok, "Content-Type": "application/json"})
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, json.loads(data) if data else None
def post_all(nodes, n, tag):
    """Posts n runs spread over nodes (addr, tok) from one thread per node; returns the ids."""
    ids, lock = [], threading.Lock()
    def go(i, addr, tok):
        for k in range(i, n, len(nodes)):
            s, v = call(addr, "POST", "/v1/runs", tok, {"agent_id": "bench", "message": "hi", "session_id": f"{tag}{k}"})
            assert s == 202, (s, v)
            with lock: ids.append(v["id"])
    ts = [threading.Thread(target=go, args=(i, a, t)) for i, (a, t) in enumerate(nodes)]
    for t in ts: t.start()
    for t in ts: t.join()
    return ids
def wait_done(addr, tok, ids, terminal=("completed", "failed", "cancelled", "incomplete")):
    left = set(ids)
    while left:
        for i in list(left):
            s, v = call(addr, "GET", f"/v1/runs/{i}", tok)
            if v["status"] in terminal: left.discard(i)
        if left: time.sleep(0.02)
mode = sys.argv[1]
if mode == "throughput":
    n = int(sys.argv[2]); tag = sys.argv[3]
    nodes = [tuple(x.split("=", 1)) for x in sys.argv[4:]]
    t0 = time.perf_counter()
    ids = post_all(nodes, n, tag)
    wait_done(nodes[0][0], nodes[0][1], ids)
    print("%.1f" % (n / (time.perf_counter() - t0)))
elif mode == "hold":
    # Posts n runs to a node whose model hangs, waits until they are all running.
    addr, tok, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
    ids = post_all([(addr, tok)], n, "held")
    while any(call(addr, "GET", f"/v1/runs/{i}", tok)[1]["status"] != "running" for i in ids):
        time.sleep(0.02)
    print(" ".join(ids))
elif mode == "recovered":
    addr, tok = sys.argv[2], sys.argv[3]; ids = sys.argv[4:]
    t0 = time.perf_counter(); wait_done(addr, tok, ids)
    print("%.2f" % (time.perf_counter() - t0))
PY
cat >"$work/hang.py" <<'PY'
import http.server, time
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self): time.sleep(3600)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(f"http://127.0.0.1:{s.server_address[1]}/v1", flush=True)
s.serve_forever()
PY
median() { python3 -c 'import statistics,sys; print("%.1f" % statistics.median(map(float, sys.argv[1:])))' "$@"; }
tok() { cat "$work/$1.tok"; }

echo "bob=$BOB RUNS=$RUNS WORKERS=$WORKERS (per node) LEASE=${LEASE}s REPEAT=$REPEAT"
sqlite=(); one=(); two=()
for r in $(seq "$REPEAT"); do
  a=$(start "s$r" "" --backend "replay:$work/replay.jsonl")
  sqlite+=("$(python3 "$work/load.py" throughput "$RUNS" "s$r-" "$a=$(tok "s$r")")"); stop "s$r"
  url=$(newdb "one$r")
  a=$(start "p$r" "$url" --backend "replay:$work/replay.jsonl")
  one+=("$(python3 "$work/load.py" throughput "$RUNS" "p$r-" "$a=$(tok "p$r")")"); stop "p$r"
  url=$(newdb "two$r")
  a=$(start "ta$r" "$url" --backend "replay:$work/replay.jsonl")
  b=$(start "tb$r" "$url" --backend "replay:$work/replay.jsonl")
  two+=("$(python3 "$work/load.py" throughput "$RUNS" "t$r-" "$a=$(tok "ta$r")" "$b=$(tok "tb$r")")")
  stop "ta$r"; stop "tb$r"
done
s=$(median "${sqlite[@]}"); o=$(median "${one[@]}"); t=$(median "${two[@]}")
printf '%-44s %8s runs/s  (%s)\n' "one node, home's SQLite queue (peer)" "$s" "${sqlite[*]}"
printf '%-44s %8s runs/s  (%s)\n' "one node, PostgreSQL queue" "$o" "${one[*]}"
printf '%-44s %8s runs/s  (%s)\n' "two nodes, one PostgreSQL queue" "$t" "${two[*]}"
python3 -c 'import sys; s,o,t=map(float,sys.argv[1:]); print("ratio PostgreSQL/SQLite one node %.2fx; two nodes/one node %.2fx" % (o/s, t/o))' "$s" "$o" "$t"

python3 "$work/hang.py" >"$work/hang.url" &
pids+=($!)
disown   # killed at exit; not reported as a job that died
for _ in $(seq 100); do [[ -s "$work/hang.url" ]] && break; sleep 0.05; done
rec=()
for r in $(seq "$REPEAT"); do
  url=$(newdb "rec$r")
  a=$(BOB_CHAT_BASE_URL=$(cat "$work/hang.url") BOB_CHAT_API_KEY=k BOB_CHAT_MODEL=m W=$HELD start "ra$r" "$url")
  held=$(python3 "$work/load.py" hold "$a" "$(tok "ra$r")" "$HELD")
  b=$(start "rb$r" "$url" --backend "replay:$work/replay.jsonl")
  stop "ra$r"
  # shellcheck disable=SC2086
  rec+=("$(python3 "$work/load.py" recovered "$b" "$(tok "rb$r")" $held)")
  stop "rb$r"
done
printf '%-44s %8s s       (%s; lease %ss)\n' "a killed node's $HELD running runs ended" "$(median "${rec[@]}")" "${rec[*]}" "$LEASE"
