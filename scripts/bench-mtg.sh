#!/usr/bin/env bash
# Benchmark: the MTG engine.
#   1. `bob mtg selfplay` random-vs-random on built-in decks, pinned to one core
#      (target >= 5,000 games/s), and heuristic-vs-heuristic (target >= 1,000 games/s);
#   2. `bob mtg act` cold start on a game past turn 20 (target: median <= 10 ms);
#   3. the peer: phase.rs through its Python bindings (`pip install phase-python` into a venv),
#      same decks, same uniform-random policy, same machine, same run; card data written
#      as MTGJSON-format objects from the same card facts, so the peer runs offline. The
#      driver acts for the player whose decision it is (at a mulligan prompt phase lists
#      every pending player's actions together) and counts decisions with one legal action
#      (forced passes, which bob's engine takes without asking) apart, for both engines.
#
#   scripts/bench-mtg.sh                   # builds the release binary if needed
#   BOB=/path/to/bob GAMES=20000 PEER_GAMES=10 RUNS=3 PIN_CORE=1 scripts/bench-mtg.sh
#
# Needs python3 (with venv) and jq; the peer needs network access to PyPI once.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
GAMES=${GAMES:-20000}
HGAMES=${HGAMES:-5000}
RUNS=${RUNS:-3}
ACT_RUNS=${ACT_RUNS:-41}
PEER_GAMES=${PEER_GAMES:-10}
DECK_A=${DECK_A:-gruul-40}
DECK_B=${DECK_B:-orzhov-40}
# The random self-play target: 5,000 games/s for the 40-card core decks, 2,000 for the
# Foundations 60-card decks (issue 28).
case "$DECK_A" in fdn-*) RAND_TARGET=${RAND_TARGET:-2000} ;; *) RAND_TARGET=${RAND_TARGET:-5000} ;; esac
VENV=${VENV:-"${CARGO_TARGET_DIR:-target}/bench-mtg-venv"}
if [[ -z "${BOB:-}" ]]; then
  cargo build --release --quiet
  BOB="${CARGO_TARGET_DIR:-target}/release/bob"
fi
for tool in python3 jq; do
  command -v "$tool" >/dev/null || { echo "bench-mtg: $tool is missing" >&2; exit 2; }
done
PIN_CORE=${PIN_CORE:-0}   # one core for selfplay and the peer; pick an idle one on a busy machine
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$PIN_CORE")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BOB_HOME="$work/home"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

selfplay() { # agent games -> one games/s figure per run, checked for violations
  local agent=$1 games=$2 i out
  for ((i = 1; i <= RUNS; i++)); do
    out=$("${pin[@]}" "$BOB" mtg selfplay --games "$games" --seed "$i" \
      --deck "$DECK_A" --deck "$DECK_B" --p1 "$agent" --p2 "$agent")
    [[ $(jq .invariant_violations <<<"$out") == 0 ]] || {
      echo "bench-mtg: invariant violations: $out" >&2; exit 1; }
    echo "$out" >>"$work/selfplay-$agent.jsonl"
    jq .games_per_sec <<<"$out"
  done
}

rand_gps=$(selfplay random "$GAMES" | median)
heur_gps=$(selfplay heuristic "$HGAMES" | median)
rand_turns=$(jq -s 'map(.avg_turns) | add / length' "$work/selfplay-random.jsonl")
# Decisions per game, and of those the forced ones (only pass), as the peer's are counted.
rand_dec=$(jq -s 'map(.decisions / .games) | add / length | round' "$work/selfplay-random.jsonl")
rand_forced=$(jq -s 'map(.forced_decisions / .games) | add / length | round' "$work/selfplay-random.jsonl")
heur_turns=$(jq -s 'map(.avg_turns) | add / length' "$work/selfplay-heuristic.jsonl")

# Cold start of `bob mtg act` on a game past turn 20: each timed run acts on a fresh copy.
turn=0
for seed in $(seq 1 50); do
  rm -rf "$BOB_HOME/mtg/base"
  "$BOB" mtg new --deck "$DECK_A" --deck "$DECK_B" --seed "$seed" --game base >/dev/null
  over=false turn=0
  while ((turn < 20)) && [[ $over == false ]]; do
    "$BOB" mtg play --game base --p1 random --p2 random --max-decisions 4 >/dev/null
    s=$("$BOB" mtg state --game base --as all)
    turn=$(jq .turn <<<"$s") over=$(jq .game_over <<<"$s")
  done
  [[ $over == false ]] && break
done
((turn >= 20)) || { echo "bench-mtg: no game reached turn 20" >&2; exit 1; }
decisions=$(jq -s 'length' "$BOB_HOME/mtg/base/journal.jsonl")
act_ms=$(BOB="$BOB" python3 - "$ACT_RUNS" <<'PY'
import json, os, shutil, subprocess, sys, time
bob, home, runs = os.environ["BOB"], os.environ["BOB_HOME"], int(sys.argv[1])
base = os.path.join(home, "mtg", "base")
times = []
for i in range(runs):
    gid = f"cold{i}"
    shutil.copytree(base, os.path.join(home, "mtg", gid))
    seat = json.loads(subprocess.run([bob, "mtg", "state", "--game", gid, "--as", "all"], check=True, capture_output=True).stdout)["priority"]
    d = json.loads(subprocess.run([bob, "mtg", "actions", "--game", gid, "--as", seat], check=True, capture_output=True).stdout)
    opt = d["options"][0]
    if opt["type"] in ("declare_attackers",):
        opt = {"type": "declare_attackers", "attackers": []}
    elif opt["type"] == "declare_blockers":
        opt = {"type": "declare_blockers", "blocks": []}
    elif opt["type"] in ("bottom", "discard"):
        opt = {"type": opt["type"], "cards": [c["card"] for c in opt["choose_from"][:opt["count"]]]}
    action = json.dumps(dict(opt, decision_id=d["decision_id"])).encode()
    t = time.perf_counter()
    r = subprocess.run([bob, "mtg", "act", "--game", gid], input=action, capture_output=True)
    times.append((time.perf_counter() - t) * 1000)
    if r.returncode != 0:
        sys.exit(f"bench-mtg: act failed: {r.stderr.decode()}")
times.sort()
print(f"{times[len(times)//2]:.2f}")
PY
)

# The peer: phase.rs (phase-python), same decks, uniform random over its legal actions.
peer_gps=""
peer_note=""
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV" >/dev/null 2>&1 || true
fi
if [[ -x "$VENV/bin/pip" ]] && { "$VENV/bin/python" -c 'import phase' 2>/dev/null \
     || "$VENV/bin/pip" install --quiet phase-python >"$work/pip.log" 2>&1; }; then
  peer_out=$("${pin[@]}" "$VENV/bin/python" - "$root/src/mtg/data" "$DECK_A" "$DECK_B" "$PEER_GAMES" "$work" <<'PY'
import json, random, sys, time
from phase import Engine, build_oracle_face
data, deck_a, deck_b, games, work = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
cards = json.load(open(f"{data}/cards.json"))
decks = {d["name"]: [c["name"] for c in d["cards"] for _ in range(c["count"])]
         for d in json.load(open(f"{data}/decks.json"))}
wanted = set(decks[deck_a]) | set(decks[deck_b])

def mtgjson(c):
    """The same card facts as an MTGJSON atomic card object."""
    left, _, right = c["type_line"].partition(" — ")
    words = left.split()
    supertypes = [w for w in words if w in ("Basic", "Legendary", "Snow")]
    cost = c.get("mana_cost", "")
    syms = cost.strip("{}").split("}{") if cost else []
    colors = sorted({s for s in syms if not s.isdigit()}, key="WUBRG".index)
    o = {"name": c["name"], "manaValue": sum(int(s) if s.isdigit() else 1 for s in syms),
         "colors": colors, "colorIdentity": colors, "type": c["type_line"],
         "types": [w for w in words if w not in supertypes], "supertypes": supertypes,
         "subtypes": right.split(), "text": c.get("oracle_text", ""), "layout": "normal",
         "identifiers": {}, "legalities": {}}
    if cost:
        o["manaCost"] = cost
    if c.get("keywords"):
        o["keywords"] = c["keywords"]
    if "power" in c:
        o["power"], o["toughness"] = c["power"], c["toughness"]
    return o

faces = {c["name"].lower(): build_oracle_face(mtgjson(c), None) for c in cards if c["name"] in wanted}
json.dump(faces, open(f"{work}/card-data.json", "w"))
engine = Engine.from_path(f"{work}/card-data.json")

def turn(g, wf):
    """Who acts now and the actions that are theirs. At a mulligan prompt phase lists every
    pending player's actions together (keep/mulligan of each undecided player, the card
    choices of one who owes bottom cards): the first pending player acts, choosing among the
    actions of its own phase (duplicates once)."""
    acts = g.actions()
    d = wf.get("data") or {}
    if wf["type"] == "MulliganDecision":
        p = d["pending"][0]
        kind = "SelectCards" if p["phase"]["type"] == "BottomCards" else "MulliganDecision"
        seen, own = set(), []
        for a in acts:
            key = json.dumps(a.to_dict(), sort_keys=True)
            if a.kind == kind and key not in seen:
                seen.add(key)
                own.append(a)
        return p["player"], own
    if isinstance(d, dict) and "player" in d:
        return d["player"], acts
    return g.priority_player(), acts

rng = random.Random(1)
finished = turns = errors = forced = chosen = 0
t = time.perf_counter()
for i in range(games):
    g = engine.new_game(decks[deck_a], decks[deck_b], seed=i + 1)
    try:
        for _ in range(50000):
            wf = g.waiting_for()
            if wf["type"] == "GameOver":
                finished += 1
                break
            who, acts = turn(g, wf)
            # A decision with one legal action (mostly a forced pass) is counted apart:
            # bob's engine takes those without asking.
            if len(acts) == 1:
                forced += 1
            else:
                chosen += 1
            g.apply(who, rng.choice(acts))
    except Exception as e:  # an engine refusal: reported, never hidden
        errors += 1
        print(f"phase game {i + 1}: {e}", file=sys.stderr)
    turns += g.turn
secs = time.perf_counter() - t
print(json.dumps({"games": games, "finished": finished, "errors": errors, "seconds": secs,
                  "games_per_sec": games / secs, "avg_turns": turns / games,
                  "decisions_per_game": (forced + chosen) / games,
                  "forced_per_game": forced / games}))
PY
) || peer_note="phase-python failed to run"
  if [[ -n "${peer_out:-}" ]]; then
    peer_gps=$(jq .games_per_sec <<<"$peer_out")
    peer_note="phase-python $("$VENV/bin/pip" show phase-python 2>/dev/null | awk '/^Version/{print $2}'), $(jq .finished <<<"$peer_out")/$PEER_GAMES games finished, $(jq .errors <<<"$peer_out") engine errors, avg turns $(jq '.avg_turns*10|round/10' <<<"$peer_out"), $(jq '.decisions_per_game|round' <<<"$peer_out") decisions/game of which $(jq '.forced_per_game|round' <<<"$peer_out") forced"
  fi
else
  peer_note="phase-python could not be installed here (see pip output); no peer figures"
  [[ -f "$work/pip.log" ]] && tail -3 "$work/pip.log" >&2
fi

verdict() { awk -v a="$1" -v t="$2" -v dir="$3" 'BEGIN { ok = (dir == "ge") ? a >= t : a <= t; print ok ? "PASS" : "FAIL" }'; }
printf 'decks: %s vs %s; runs=%s (median), pinned: %s\n' "$DECK_A" "$DECK_B" "$RUNS" "${pin[*]:-no}"
printf 'bob mtg selfplay random-vs-random:       %8.0f games/s (%s games/run, avg %.1f turns, %s decisions/game of which %s forced; target >= %s: %s)\n' \
  "$rand_gps" "$GAMES" "$rand_turns" "$rand_dec" "$rand_forced" "$RAND_TARGET" "$(verdict "$rand_gps" "$RAND_TARGET" ge)"
printf 'bob mtg selfplay heuristic-vs-heuristic: %8.0f games/s (%s games/run, avg %.1f turns; target >= 1000: %s)\n' \
  "$heur_gps" "$HGAMES" "$heur_turns" "$(verdict "$heur_gps" 1000 ge)"
printf 'bob mtg act cold start (turn %s, %s decisions journaled): median %.2f ms over %s runs (target <= 10 ms: %s)\n' \
  "$turn" "$decisions" "$act_ms" "$ACT_RUNS" "$(verdict "$act_ms" 10 le)"
if [[ -n "$peer_gps" ]]; then
  printf 'peer phase.rs random-vs-random:          %8.2f games/s (%s)\n' "$peer_gps" "$peer_note"
  printf 'ratio bob/peer (random-vs-random):       %8.0fx\n' "$(awk -v a="$rand_gps" -v b="$peer_gps" 'BEGIN{print a/b}')"
else
  printf 'peer phase.rs: not measured (%s)\n' "$peer_note"
fi
