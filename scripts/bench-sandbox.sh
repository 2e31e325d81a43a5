#!/usr/bin/env bash
# Benchmark: shell.exec of `true` in the full OS sandbox (fresh user, mount, PID, IPC, UTS and
# network namespaces, new root, seccomp, rlimits) against util-linux `unshare` creating the same
# namespaces around `true` (and bubblewrap when installed), in the same run.
#
# Reported, as medians:
#   - whole `bob tool run` with one shell.exec call (process start, policy, audit, sandbox);
#   - the sandboxed call alone, as bob measures it (`duration_us` in the result: spawning the
#     helper, namespaces, id maps, new root, seccomp, exec of `true`, teardown);
#   - per call in a batch of 50 calls in one `bob tool run`;
#   - the peers: `unshare --user --map-root-user --mount --pid --fork --net --ipc --uts true`,
#     and `bwrap --unshare-all --ro-bind /usr /usr … true` if bwrap is installed.
# Target: the sandboxed call <= 15 ms median.
#
# Usage: scripts/bench-sandbox.sh [RUNS]   (release build; python3 timing loop)
set -euo pipefail

RUNS="${1:-41}"
source "$(dirname "$0")/bench-common.sh"
mkdir -p "$work/root" "$work/home"
cat >"$work/rules.json" <<'EOF'
{"rules": [{"action": "allow", "prefix": ["true"], "match": [["true"]]}]}
EOF

python3 - "$BOB" "$work" "$RUNS" <<'EOF'
import json, os, shutil, statistics, subprocess, sys, time

bob, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "BOB_HOME": f"{work}/home"}
base = [bob, "tool", "run", "--enable", "shell.exec", "--root", f"{work}/root",
        "--shell-rules", f"{work}/rules.json"]
one = json.dumps([{"id": "t", "tool": "shell.exec", "args": {"cmd": "true"}}]).encode()
batch_n = 50
batch = json.dumps([{"id": f"t{i}", "tool": "shell.exec", "args": {"cmd": "true"}}
                    for i in range(batch_n)]).encode()

def wall(cmd, stdin=None):
    t = time.perf_counter()
    out = subprocess.run(cmd, input=stdin, env=env, capture_output=True, check=True).stdout
    return (time.perf_counter() - t) * 1000, out

# Sanity and warm-up.
_, out = wall(base, one)
r = json.loads(out)
assert r["ok"] and r["output"]["sandbox"]["mode"] == "full", r
for _ in range(3):
    wall(base, one)

whole, inner, per_call = [], [], []
for _ in range(runs):
    ms, out = wall(base, one)
    whole.append(ms)
    inner.append(json.loads(out)["output"]["duration_us"] / 1000)
for _ in range(max(5, runs // 4)):
    ms, out = wall(base, batch)
    lines = [json.loads(l) for l in out.splitlines()]
    assert all(l["ok"] for l in lines) and len(lines) == batch_n
    per_call.append(ms / batch_n)

peers = {"unshare": ["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork",
                     "--net", "--ipc", "--uts", "true"]}
if shutil.which("bwrap"):
    peers["bwrap"] = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
                      "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                      "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
                      "--tmpfs", "/tmp", "true"]
peer_ms = {}
for name, cmd in peers.items():
    for _ in range(3):
        wall(cmd)
    peer_ms[name] = statistics.median(wall(cmd)[0] for _ in range(runs))

med = statistics.median
load = open("/proc/loadavg").read().split()[0]
print(f"shell.exec `true`, median of {runs} runs (release), load average {load} on {os.cpu_count()} cores:")
print(f"  sandboxed call alone (duration_us):      {med(inner):7.2f} ms   (target <= 15 ms)")
print(f"  per call, {batch_n} calls in one tool run:    {med(per_call):7.2f} ms")
print(f"  whole `bob tool run`, one call:          {med(whole):7.2f} ms")
for name, ms in peer_ms.items():
    print(f"  peer {name:8} (same namespaces):       {ms:7.2f} ms")
u = peer_ms["unshare"]
print(f"  ratio sandboxed call / unshare:          {med(inner) / u:7.2f}x")
print(f"  ratio whole bob tool run / unshare:      {med(whole) / u:7.2f}x")
if "bwrap" in peer_ms:
    print(f"  ratio sandboxed call / bwrap:            {med(inner) / peer_ms['bwrap']:7.2f}x")
EOF
