#!/usr/bin/env bash
# Benchmarks `bob serve` over loopback with a Python load generator (keep-alive HTTP/1.1
# connections on threads, fixed request count), compared in the same run with a peer: Python's
# own HTTP/1.1 server answering a static body of the same size as /healthz's; when wrk and
# nginx are installed, wrk against bob and against nginx serving the same 11 bytes; and when
# oha is installed, oha at a fixed rate (open loop, `-q RATE -z 10s`, latency corrected for
# coordinated omission) against GET /v1/runs/{id} and, as the peer, nginx's static file.
#
#   scripts/bench-serve.sh                    # builds release
#   BOB=target/debug/bob N=5000 C=8 RUNS=500 WORKERS=2 RATE=1000 QUEUED=10000 scripts/bench-serve.sh
#   TMPDIR=/dev/shm scripts/bench-serve.sh    # the home on tmpfs: what the syncs cost
#
# None of wrk, nginx or oha is needed by the tests or CI; install them by hand
# (`apt-get install wrk nginx-light`, `cargo install oha --locked --root /opt/oha`).
#
# Reports requests/s, p50 and p99 for /healthz (bob vs peer, ratio), GET /v1/runs/{id}, and
# end-to-end completed runs/s for POST /v1/runs on the replay backend with --workers WORKERS:
# once from one connection (each POST waits for the previous one), once from C connections
# at once (runs accepted together share one queue commit). Last, QUEUED runs (10,000; 0 skips
# it) posted to a server with one worker: its RSS and peak RSS with nearly all of them queued.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-5000}
C=${C:-8}
RUNS=${RUNS:-500}
# 16 workers: a run spends most of its time waiting on the disk's syncs, and more runs in flight
# share more of them (the audit log's and turns.jsonl's group commits); 8 gave 478 runs/s median
# where 16 gave 529 on the same disk the same hour. `bob serve`'s own default stays 2.
WORKERS=${WORKERS:-16}
RATE=${RATE:-1000}
if [[ -z "${BOB:-}" ]]; then
  (cd "$here" && cargo build --release -q)
  BOB="${CARGO_TARGET_DIR:-$here/target}/release/bob"
fi
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export BOB_HOME="$work/home"
# The benchmark measures what the server can take, so its one token is not rate limited
# (serve.run_rate, 600 runs a minute per token by default).
export BOB_SERVE_RUN_RATE=0
"$BOB" init >/dev/null
tok=$("$BOB" serve token create | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
for _ in 1 2 3; do echo '{"content":"ok"}'; done >"$work/replay.jsonl"
"$BOB" serve --bind 127.0.0.1:0 --workers "$WORKERS" --queue 100000 --backend "replay:$work/replay.jsonl" \
  >"$work/ready" 2>"$work/serve.err" &
pids+=($!)
for _ in $(seq 100); do [[ -s "$work/ready" ]] && break; sleep 0.05; done
addr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listening"])' "$work/ready")

cat >"$work/peer.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16               # one write per answer (no Nagle/delayed-ACK stall)
    disable_nagle_algorithm = True
    def do_GET(self):
        body = b'{"ok":true}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(f"127.0.0.1:{s.server_address[1]}", flush=True)
s.serve_forever()
PY
python3 "$work/peer.py" >"$work/peer.addr" &
pids+=($!)
for _ in $(seq 100); do [[ -s "$work/peer.addr" ]] && break; sleep 0.05; done
peer=$(cat "$work/peer.addr")

cat >"$work/load.py" <<'PY'
import http.client, json, statistics, sys, threading, time
def load(addr, method, path, headers, body, n, c):
    host, port = addr.rsplit(":", 1)
    lat, lock = [], threading.Lock()
    per = n // c
    def worker():
        conn = http.client.HTTPConnection(host, int(port))
        mine = []
        for _ in range(per):
            t = time.perf_counter()
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse(); r.read()
            assert r.status < 300, r.status
            mine.append(time.perf_counter() - t)
        with lock: lat.extend(mine)
    ts = [threading.Thread(target=worker) for _ in range(c)]
    t0 = time.perf_counter()
    for t in ts: t.start()
    for t in ts: t.join()
    wall = time.perf_counter() - t0
    lat.sort()
    return {"rps": len(lat) / wall, "p50_ms": lat[len(lat)//2] * 1e3, "p99_ms": lat[int(len(lat)*0.99)] * 1e3}
if __name__ == "__main__":
    addr, method, path, tok, n, c = sys.argv[1:7]
    h = {"Authorization": "Bearer " + tok} if tok != "-" else {}
    print(json.dumps(load(addr, method, path, h, None, int(n), int(c))))
PY
run() { python3 "$work/load.py" "$@"; }
fmt() { python3 -c 'import json,sys; v=json.loads(sys.argv[2]); print("%-28s %9.0f req/s  p50 %6.2f ms  p99 %6.2f ms" % (sys.argv[1], v["rps"], v["p50_ms"], v["p99_ms"]))' "$1" "$2"; }

echo "N=$N requests, C=$C keep-alive connections, bob=$BOB"
run "$addr" GET /healthz - 200 2 >/dev/null
run "$peer" GET / - 200 2 >/dev/null
b=$(run "$addr" GET /healthz - "$N" "$C"); fmt "bob /healthz" "$b"
p=$(run "$peer" GET / - "$N" "$C"); fmt "peer (python http.server)" "$p"
python3 -c 'import json,sys; b,p=map(json.loads,sys.argv[1:]); print("ratio bob/peer: throughput %.2fx, p50 %.2fx" % (b["rps"]/p["rps"], b["p50_ms"]/p["p50_ms"]))' "$b" "$p"

id=$(curl -s -H "Authorization: Bearer $tok" -d '{"agent_id":"bench","message":"hi"}' "http://$addr/v1/runs" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
sleep 0.5
g=$(run "$addr" GET "/v1/runs/$id" "$tok" "$N" "$C"); fmt "bob GET /v1/runs/{id}" "$g"

# The issue's pair, when installed (apt-get install wrk nginx-light; never needed by tests): wrk
# (closed loop, 2 threads, C connections, 5 s) against bob and against nginx serving a static
# file of the same 11 bytes as /healthz.
nport=
if command -v nginx >/dev/null; then
  nport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/www" "$work/nginx"
  printf '{"ok":true}' >"$work/www/healthz"
  # nginx's workers run unprivileged: they must be able to read the file (else every answer
  # is a 403, which wrk does not tell apart; oha's status counts do).
  chmod a+rx "$work" "$work/www"; chmod a+r "$work/www/healthz"
  cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx/pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:$nport; root $work/www; default_type application/json; }
}
NGINX
  nginx -c "$work/nginx.conf" -p "$work/nginx" &
  pids+=($!)
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$nport/healthz" >/dev/null && break; sleep 0.05; done
fi
if command -v wrk >/dev/null && [[ -n "$nport" ]]; then
  wrkrun() {
    local name=$1; shift
    wrk -t2 -c"$C" -d5s --latency "$@" | awk -v n="$name" '
      /Requests\/sec/ {rps=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2}
      END {printf "%-28s %9.0f req/s  p50 %8s  p99 %8s  (wrk)\n", n, rps, p50, p99}'
  }
  wrkrun "bob /healthz" "http://$addr/healthz"
  wrkrun "peer nginx static file" "http://127.0.0.1:$nport/healthz"
  wrkrun "bob GET /v1/runs/{id}" -H "Authorization: Bearer $tok" "http://$addr/v1/runs/$id"
fi

# The issue's condition for GET /v1/runs/{id}: p99 at a fixed rate (open loop), with nginx's
# static file at the same rate as the peer.
if command -v oha >/dev/null; then
  oharun() {
    local name=$1; shift
    oha -q "$RATE" -z 10s -c 16 --latency-correction --no-tui --output-format json "$@" \
      | python3 -c '
import json, sys
d = json.load(sys.stdin); s = d["summary"]; p = d["latencyPercentiles"]
codes = d.get("statusCodeDistribution", {})
print("%-28s %9.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (oha -q %s, ok %.4f, %s)" % (sys.argv[1],
      s["requestsPerSec"], p["p50"] * 1e3, p["p99"] * 1e3, sys.argv[2], s["successRate"], codes))
' "$name" "$RATE"
  }
  oharun "bob GET /v1/runs/{id}" -H "Authorization: Bearer $tok" "http://$addr/v1/runs/$id"
  if [[ -n "$nport" ]]; then oharun "peer nginx static file" "http://127.0.0.1:$nport/healthz"; fi
  oharun "bob /healthz" "http://$addr/healthz"
fi

python3 - "$addr" "$tok" "$RUNS" "$C" <<'PY'
import http.client, json, sys, threading, time
addr, tok, n, c = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
host, port = addr.rsplit(":", 1)
h = {"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
conn = http.client.HTTPConnection(host, int(port))
def completed():
    conn.request("GET", "/v1/runs?status=completed&limit=1", headers=h)
    r = conn.getresponse(); return json.loads(r.read())["total"]
def post(count, tag):
    k = http.client.HTTPConnection(host, int(port))
    for i in range(count):
        k.request("POST", "/v1/runs", body=json.dumps({"agent_id": "bench", "message": f"{tag}{i}"}), headers=h)
        r = k.getresponse(); r.read(); assert r.status == 202, r.status
def bench(conns):
    before = completed()
    t0 = time.perf_counter()
    ts = [threading.Thread(target=post, args=(n // conns, f"c{conns}t{j}m")) for j in range(conns)]
    for t in ts: t.start()
    for t in ts: t.join()
    accepted = time.perf_counter() - t0
    total = (n // conns) * conns
    while completed() < before + total:
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    print(f"POST /v1/runs x{total} (replay, {conns} conn): accepted {total/accepted:6.0f} runs/s; completed end to end {total/wall:5.0f} runs/s")
bench(1)
bench(c)
PY

# The issue's memory condition: QUEUED runs (default 10,000) accepted by a server with one
# worker, so nearly all of them wait in the queue; its RSS and peak RSS (VmHWM) then. The peer
# is this script's own python3 interpreter, idle, for scale.
QUEUED=${QUEUED:-10000}
if [[ "$QUEUED" -gt 0 ]]; then
  export BOB_HOME="$work/home-queued"
  "$BOB" init >/dev/null
  qtok=$("$BOB" serve token create | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  "$BOB" serve --bind 127.0.0.1:0 --workers 1 --queue $((QUEUED * 2)) --backend "replay:$work/replay.jsonl" \
    >"$work/ready-queued" 2>"$work/serve-queued.err" &
  qpid=$!
  pids+=($qpid)
  for _ in $(seq 100); do [[ -s "$work/ready-queued" ]] && break; sleep 0.05; done
  qaddr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listening"])' "$work/ready-queued")
  python3 - "$qaddr" "$qtok" "$QUEUED" "$C" "$qpid" <<'PY'
import http.client, json, sys, threading
addr, tok, n, c, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
host, port = addr.rsplit(":", 1)
h = {"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
def post(k):
    conn = http.client.HTTPConnection(host, int(port))
    for i in range(k, n, c):
        conn.request("POST", "/v1/runs", body=json.dumps({"agent_id": "q", "message": f"m{i}"}), headers=h)
        r = conn.getresponse(); r.read(); assert r.status == 202, r.status
ts = [threading.Thread(target=post, args=(k,)) for k in range(c)]
for t in ts: t.start()
for t in ts: t.join()
conn = http.client.HTTPConnection(host, int(port))
conn.request("GET", "/v1/runs?status=queued&limit=1", headers=h)
queued = json.loads(conn.getresponse().read())["total"]
status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if ":" in l)
mine = dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
mb = lambda s: int(s.split()[0]) / 1024
print(f"{n} runs accepted, {queued} still queued: bob serve RSS {mb(status['VmRSS']):.1f} MB, "
      f"peak {mb(status['VmHWM']):.1f} MB (target <= 200 MB); this python3 load generator {mb(mine['VmRSS']):.1f} MB")
PY
fi
