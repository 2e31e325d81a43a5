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
#
# Redaction's share of a turn (issue 23's target: at most 10% over the redactor before round 3):
#
#   bash scripts/bench-redact.sh --turn BASE_BIN [N]
#
# runs `bob turn` (profiles bob and spectator, home on tmpfs, a loopback server that answers at
# once) with BASE_BIN and this tree's release build, their turns interleaved one by one (ABBA) so
# the load of a shared machine drifts alike for both, N turns each (default 100) after 5 warm-up
# turns, and prints bob's CPU per turn (user + system, median) and the ratio. With valgrind
# installed it also counts the instructions of one steady-state turn (the 6th of a home) under
# callgrind: unlike CPU time, that count does not move with the load. BASE_BIN is a release
# build of the base to compare with (see docs/performance.md for the one used).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ "${1:-}" = "--turn" ]; then
    base=${2:?"usage: bench-redact.sh --turn BASE_BIN [N]"}
    cargo build -q --release --locked
    BOB="${CARGO_TARGET_DIR:-$root/target}/release/bob"
    exec python3 - "$base" "$BOB" "${3:-100}" <<'PY'
import http.server, json, os, re, resource, shutil, socket, socketserver, statistics, subprocess, sys, tempfile, threading
base, new, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
# Both run from fresh copies in one directory: the same binary run from where the linker wrote
# it measured 20-30% more CPU per turn than a copy of it (how its pages are cached, not bob's
# work).
bindir = tempfile.mkdtemp(prefix="bob-bench-redact-bin-")
bins = {"base": os.path.join(bindir, "base"), "this tree": os.path.join(bindir, "new")}
shutil.copy2(base, bins["base"])
shutil.copy2(new, bins["this tree"])
reply = json.dumps({"id": "x", "object": "chat.completion", "model": "bench",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Fine, thanks."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}).encode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def setup(self):
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def log_message(self, *a):
        pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(reply) + reply)
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
srv = S(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}/v1"
shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
def turn(b, home, i, wrap=()):
    env = dict(os.environ, BOB_HOME=home, BOB_CHAT_BASE_URL=url, BOB_CHAT_MODEL="bench")
    return subprocess.run([*wrap, b, "turn", "--profile", profile, "--session", f"s{i}"],
                          input=b"hello bob", capture_output=True, env=env, check=True)
print(f"bob turn, bob CPU per turn (user + system), median of {n} interleaved turns, home on tmpfs")
for profile in ("bob", "spectator"):
    homes = {k: tempfile.mkdtemp(dir=shm) for k in bins}
    cpu = {k: [] for k in bins}
    for i in range(n + 5):
        # ABBA order: neither binary always runs right after the other.
        for k, b in list(bins.items())[:: 1 if i % 2 == 0 else -1]:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            turn(b, homes[k], i)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if i >= 5:
                cpu[k].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    for h in homes.values():
        shutil.rmtree(h, ignore_errors=True)
    mb, mn = statistics.median(cpu["base"]), statistics.median(cpu["this tree"])
    print(f"  {profile:10} base {mb:6.2f} ms   this tree {mn:6.2f} ms   ratio {mn / mb:.3f}")
if shutil.which("valgrind"):
    print("instructions of one steady-state turn (callgrind, the 6th turn of a home)")
    for profile in ("bob", "spectator"):
        ir = {}
        for k, b in bins.items():
            home = tempfile.mkdtemp(dir=shm)
            for i in range(5):
                turn(b, home, i)
            out = os.path.join(home, "callgrind.out")
            p = turn(b, home, 5, ("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"))
            ir[k] = int(re.search(rb"Collected : (\d+)", p.stderr).group(1))
            shutil.rmtree(home, ignore_errors=True)
        print(f"  {profile:10} base {ir['base'] / 1e6:6.2f}M   this tree {ir['this tree'] / 1e6:6.2f}M"
              f"   ratio {ir['this tree'] / ir['base']:.3f}")
shutil.rmtree(bindir, ignore_errors=True)
PY
fi
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
