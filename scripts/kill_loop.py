#!/usr/bin/env python3
"""kill -9 loops over every log writer of bob (driven by scripts/kill-loop.sh).

usage: kill_loop.py BOB [KILLS]

For each writer, KILLS times: start it, SIGKILL it after a random delay drawn over the whole
length of one unkilled run, then look at what it left:

* tool run (audit log):  every result that reached stdout has a durable `tool.result` audit
  record ("unaudited results" must be 0);
* memory approve/reject (approval ledger): after the kill the opposite decision is tried;
  no candidate may end up decided twice on the ledger, and every ledger decision must be in
  the database ("double decisions", "lost decisions" must be 0);
* trace emit (JSONL log): readers never return a torn line as an event;
* state set (atomic JSON document): `state show` always reads a whole document.

After every kill, a chained log with a torn tail is verified (`bob ledger verify FILE`): the
torn record must be reported and never counted as verified ("torn records accepted" must be
0), then moved aside with `bob ledger repair`. At the end `bob ledger verify --all` must pass.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

BOB = sys.argv[1]
KILLS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rng = random.Random(int(os.environ.get("SEED", "0")) or None)


class Home:
    def __init__(self, base, name):
        self.dir = os.path.join(base, name)
        os.makedirs(self.dir)
        self.home = os.path.join(self.dir, "home")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "BOB_HOME": self.home,
        }

    def run(self, args, stdin=None, check=True):
        p = subprocess.run(
            [BOB] + args,
            input=stdin,
            capture_output=True,
            env=self.env,
            cwd=self.dir,
        )
        if check and p.returncode != 0:
            raise SystemExit(f"bob {args} failed ({p.returncode}): {p.stderr.decode()}")
        return p

    def spawn(self, args, stdin_path=None, stdout_path=None):
        return subprocess.Popen(
            [BOB] + args,
            stdin=open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL,
            stdout=open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=self.env,
            cwd=self.dir,
        )

    def chained_logs(self):
        out = []
        led = os.path.join(self.home, "memory_approvals.jsonl")
        if os.path.exists(led):
            out.append(led)
        for d, _, files in os.walk(os.path.join(self.home, "audit")):
            out += [os.path.join(d, f) for f in files if f.endswith(".jsonl")]
        return out


def timed(fn):
    t = time.monotonic()
    fn()
    return time.monotonic() - t


def kill_after(p, span):
    time.sleep(rng.uniform(0, span))
    p.kill()  # SIGKILL
    p.wait()


def check_torn(h, stats):
    """Verify then repair every chained log a kill left with a torn tail."""
    for f in h.chained_logs():
        data = open(f, "rb").read()
        if not data or data.endswith(b"\n"):
            continue
        stats["torn_tails"] += 1
        whole = data.count(b"\n")
        p = h.run(["ledger", "verify", f], check=False)
        row = json.loads(p.stdout.decode().splitlines()[0])
        if row.get("verified") != whole or row.get("torn_line") != whole + 1 or p.returncode != 0:
            stats["torn_accepted"] += 1
        h.run(["ledger", "repair", f])


def verify_all(h, stats):
    p = h.run(["ledger", "verify", "--all"], check=False)
    stats["verify_all_exit"] = p.returncode


def new_stats():
    return {"kills": 0, "torn_tails": 0, "torn_accepted": 0}


def tool_run(base):
    h = Home(base, "tool")
    root = os.path.join(h.dir, "root")
    os.makedirs(root)
    open(os.path.join(root, "a.txt"), "w").write("alpha beta gamma delta\n" * 90)  # 2 KB results
    args = ["tool", "run", "--enable-all", "--root", root]
    n = 2000

    def calls(prefix):
        path = os.path.join(h.dir, f"{prefix}.json")
        with open(path, "w") as f:
            json.dump([{"id": f"{prefix}_{i}", "tool": "fs.read_text", "args": {"path": "a.txt"}} for i in range(n)], f)
        return path

    warm = calls("warm")
    span = timed(lambda: h.run(args + ["--input", warm]))
    stats = new_stats()
    outs = []
    for k in range(KILLS):
        inp = calls(f"k{k}")
        out = os.path.join(h.dir, f"out{k}.jsonl")
        kill_after(h.spawn(args, inp, out), span)
        os.remove(inp)
        stats["kills"] += 1
        check_torn(h, stats)
        outs.append(out)
    audited = set()
    for f in h.chained_logs():
        for line in open(f, "rb").read().split(b"\n"):
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event_type") == "tool.result":
                audited.add(e["payload"]["request_id"])
    delivered = unaudited = 0
    for out in outs:
        for line in open(out, "rb").read().split(b"\n"):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            delivered += 1
            unaudited += r["request_id"] not in audited
    stats.update(delivered=delivered, unaudited=unaudited, audited_results=len(audited))
    verify_all(h, stats)
    return stats


def ledger(base):
    h = Home(base, "ledger")
    ids = []
    for b in range(0, KILLS + 1, 100):
        batch = [{"text": f"kill loop fact {i}"} for i in range(b, min(b + 100, KILLS + 1))]
        p = h.run(["memory", "propose"], json.dumps(batch).encode())
        ids += [json.loads(l)["id"] for l in p.stdout.decode().splitlines()]
    span = 2 * timed(lambda: h.run(["memory", "approve", ids[-1]]))
    stats = new_stats()
    second_ok = second_conflict = 0
    for k, cid in enumerate(ids[:KILLS]):
        first, second = (["approve", cid], ["reject", cid, "--reason", "no"])
        if k % 2:
            first, second = second, first
        kill_after(h.spawn(["memory"] + first), span)
        stats["kills"] += 1
        check_torn(h, stats)
        p = h.run(["memory"] + second, check=False)
        if p.returncode == 0:
            second_ok += 1
        elif p.returncode == 5:
            second_conflict += 1
        else:
            raise SystemExit(f"second decision: exit {p.returncode}: {p.stderr.decode()}")
    decisions = {}
    for line in open(os.path.join(h.home, "memory_approvals.jsonl"), "rb"):
        r = json.loads(line)
        if r.get("kind") == "decision":
            decisions.setdefault(r["candidate_id"], []).append(r["decision"])
    rows = h.run(["memory", "candidates"]).stdout.decode().splitlines()
    status = {c["id"]: c["status"] for c in map(json.loads, rows)}
    want = {"approve": "approved", "edit": "approved", "reject": "rejected"}
    double = sum(len(d) > 1 for d in decisions.values())
    lost = sum(status.get(c) != want[d[0]] for c, d in decisions.items())
    undecided = sum(c not in decisions for c in ids)
    stats.update(
        double_decisions=double,
        lost_decisions=lost,
        undecided=undecided,
        second_decision_ok=second_ok,
        second_decision_conflict=second_conflict,
    )
    verify_all(h, stats)
    return stats


def trace(base):
    h = Home(base, "trace")
    n = 500
    path = os.path.join(h.dir, "events.jsonl")
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"kind": "kill_loop", "data": {"i": i, "pad": "x" * 200}}) + "\n")
    span = timed(lambda: h.run(["trace", "emit", "--session", "warm", "--input", path]))
    stats = new_stats()
    accepted_torn = 0
    for k in range(KILLS):
        kill_after(h.spawn(["trace", "emit", "--session", "s", "--input", path]), span)
        stats["kills"] += 1
        f = os.path.join(h.home, "traces", "s.jsonl")
        if not os.path.exists(f):
            continue
        data = open(f, "rb").read()
        torn = bool(data) and not data.endswith(b"\n")
        stats["torn_tails"] += torn
        q = h.run(["trace", "query", "--session", "s"])
        for line in q.stdout.split(b"\n"):
            if line and not line.startswith(b"{"):
                accepted_torn += 1
            elif line:
                try:
                    json.loads(line)
                except ValueError:
                    accepted_torn += 1
        whole = sum(1 for l in data.split(b"\n")[:-1] if l.strip() and _is_obj(l))
        accepted_torn += len([l for l in q.stdout.split(b"\n") if l]) != whole
    stats["torn_accepted"] = accepted_torn
    return stats


def _is_obj(line):
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def state(base):
    h = Home(base, "state")
    pad = "y" * 200_000
    doc = lambda k: json.dumps({"episode_summary": f"version {k} {pad}", "goals": [f"g{k}"]}).encode()
    inp = os.path.join(h.dir, "state.json")
    open(inp, "wb").write(doc(-1))
    span = timed(lambda: h.run(["state", "set", "--session", "s", "--input", inp]))
    stats = new_stats()
    partial = 0
    for k in range(KILLS):
        open(inp, "wb").write(doc(k))
        kill_after(h.spawn(["state", "set", "--session", "s", "--input", inp]), span)
        stats["kills"] += 1
        p = h.run(["state", "show", "--session", "s"], check=False)
        try:
            cp = json.loads(p.stdout)
            g = cp["state"]["goals"][0]
            ok = cp["state"]["episode_summary"] == f"version {g[1:]} {pad}"
        except (ValueError, KeyError, IndexError):
            ok = False
        partial += not ok
    stats["partial_documents"] = partial
    return stats


def main():
    base = tempfile.mkdtemp(prefix="bob-kill-loop-")
    try:
        results = {}
        for name, fn in [("tool run → audit log", tool_run), ("memory approve/reject → ledger", ledger),
                         ("trace emit → trace log", trace), ("state set → checkpoint", state)]:
            t = time.monotonic()
            results[name] = fn(base)
            results[name]["seconds"] = round(time.monotonic() - t, 1)
            print(f"{name}: {json.dumps(results[name])}", flush=True)
        print()
        print("| writer | kill -9 | torn tails seen | torn records accepted | result |")
        print("| --- | --- | --- | --- | --- |")
        bad = 0
        for name, s in results.items():
            if "unaudited" in s:
                res = f"{s['delivered']} results delivered, **{s['unaudited']} unaudited**"
                bad += s["unaudited"]
            elif "double_decisions" in s:
                res = (f"**{s['double_decisions']} double decisions**, {s['lost_decisions']} lost "
                       f"({s['second_decision_conflict']} second decisions refused, "
                       f"{s['second_decision_ok']} allowed)")
                bad += s["double_decisions"] + s["lost_decisions"]
            elif "partial_documents" in s:
                res = f"**{s['partial_documents']} partial documents read**"
                bad += s["partial_documents"]
            else:
                res = "readers never return a torn line"
            if s.get("verify_all_exit", 0) != 0:
                res += f"; ledger verify --all exit {s['verify_all_exit']}"
                bad += 1
            bad += s["torn_accepted"]
            print(f"| {name} | {s['kills']} | {s['torn_tails']} | {s['torn_accepted']} | {res} |")
        print()
        print("PASS" if bad == 0 else f"FAIL ({bad} problems)")
        sys.exit(0 if bad == 0 else 1)
    finally:
        shutil.rmtree(base, ignore_errors=True)


main()
