#!/usr/bin/env bash
# Cold-start wall time of `bob notes apply` (one process: parse a patch, lock, read, apply,
# write the checkpoint atomically with fsync, append two trace events with fsync), compared in
# the same run with `jq` doing the same read-modify-write of the same checkpoint file.
#
# Usage: scripts/bench-notes-apply.sh [RUNS]   (default 200; env BOB=path skips the build)
# Uses hyperfine when installed, else a bash loop timed with $EPOCHREALTIME (no extra forks).
# Reports wall-time medians and mean CPU (user+sys) in ms and the bob/jq ratios, on tmpfs and
# on disk. Target: bob median <= 5 ms. CPU time is the figure to trust on a loaded machine.
set -euo pipefail

RUNS=${1:-200}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${BOB:-}" ]]; then
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
  BOB="$CARGO_TARGET_DIR/release/bob"
fi
command -v jq >/dev/null || { echo "jq is required as the peer" >&2; exit 1; }

bench_in() { # DIR LABEL
  local WORK label=$2
  WORK=$(mktemp -d "$1/bob-bench.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$WORK'" RETURN
  export BOB_HOME="$WORK/home"
  unset BOB_NOW

  # A realistic checkpoint: 40 decisions, 10 open loops, 20 recent messages.
  {
    printf '{"goals":["ship v1","keep it fast"],"open_loops":['
    for i in $(seq 1 10); do printf '%s"loop %d"' "$([[ $i -gt 1 ]] && echo ,)" "$i"; done
    printf '],"decisions":['
    for i in $(seq 1 40); do printf '%s"decision %d: something decided earlier"' "$([[ $i -gt 1 ]] && echo ,)" "$i"; done
    printf '],"episode_summary":"a session used for benchmarking"}'
  } | "$BOB" state set --session bench >/dev/null
  MSGS=$(for i in $(seq 1 20); do printf '{"role":"user","content":"message %d with some text in it"}\n' "$i"; done | jq -s .)
  "$BOB" state show --session bench | jq --argjson m "$MSGS" '.recent_messages = $m' \
    | "$BOB" state set --session bench >/dev/null
  CP="$BOB_HOME/sessions/bench/checkpoint.json"
  cp "$CP" "$WORK/peer.json"

  PATCH="$WORK/patch.json"
  echo '{"add_decisions":["bench decision"],"add_open_loops":["bench loop"],"actions":["request_permission:net:example.com"]}' >"$PATCH"
  JQ_PROG='.state.decisions += ($p[0].add_decisions - .state.decisions)
    | .state.open_loops += ($p[0].add_open_loops - .state.open_loops)
    | .revision += 1'

  median_ms() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

  if command -v hyperfine >/dev/null; then
    tool="hyperfine (-N, 10 warmup, $RUNS runs)"
    hyperfine -N --style none --warmup 10 --runs "$RUNS" --export-json "$WORK/h.json" \
      "/bin/true" \
      "$BOB --version" \
      "$BOB notes apply --session bench --input $PATCH" \
      "jq --slurpfile p $PATCH '$JQ_PROG' $WORK/peer.json" >/dev/null 2>&1
    read -r floor base bob peer < <(jq -r '[.results[].median * 1000 | . * 1000 | round / 1000] | @tsv' "$WORK/h.json")
    read -r floor_cpu base_cpu bob_cpu peer_cpu < <(jq -r '[.results[] | (.user + .system) * 1000 | . * 1000 | round / 1000] | @tsv' "$WORK/h.json")
  else
    tool="bash loop with \$EPOCHREALTIME (10 warmup, $RUNS runs)"
    time_runs() { # name, then the command as a function
      local f=$1 i t0 t1
      for i in $(seq 1 10); do "$f"; done
      for i in $(seq 1 "$RUNS"); do
        t0=$EPOCHREALTIME; "$f"; t1=$EPOCHREALTIME
        echo "$(( (${t1/./} - ${t0/./}) ))"
      done | awk '{printf "%.3f\n", $1/1000}' | median_ms
    }
    run_floor() { /bin/true; }
    run_base() { "$BOB" --version >/dev/null; }
    run_bob() { "$BOB" notes apply --session bench --input "$PATCH" >/dev/null; }
    run_jq() { jq --slurpfile p "$PATCH" "$JQ_PROG" "$WORK/peer.json" >"$WORK/peer.next"; }
    cpu_ms() { # mean user+sys CPU of one run, in ms
      local f=$1 i TIMEFORMAT='%U %S'
      { time (for i in $(seq 1 "$RUNS"); do "$f"; done) ; } 2>&1 | awk -v n="$RUNS" '{printf "%.3f", ($1+$2)*1000/n}'
    }
    floor=$(time_runs run_floor); floor_cpu=$(cpu_ms run_floor)
    base=$(time_runs run_base); base_cpu=$(cpu_ms run_base)
    bob=$(time_runs run_bob); bob_cpu=$(cpu_ms run_bob)
    peer=$(time_runs run_jq); peer_cpu=$(cpu_ms run_jq)
  fi

  rev=$("$BOB" state show --session bench | jq .revision)
  ratio=$(awk -v a="$bob" -v b="$peer" 'BEGIN {printf "%.2f", a/b}')
  cpu_ratio=$(awk -v a="$bob_cpu" -v b="$peer_cpu" 'BEGIN {printf "%.2f", a/b}')
  verdict=$(awk -v a="$bob" 'BEGIN {print (a <= 5.0) ? "met" : "MISSED"}')
  cat <<REPORT
[$label] $tool on $(nproc) cores, checkpoint $(wc -c <"$CP") bytes, revision now $rev
  load average: $(cut -d' ' -f1-3 /proc/loadavg)
  true (exec floor of this machine)    wall median ${floor} ms   cpu ${floor_cpu} ms
  bob --version (bob start-up)         wall median ${base} ms   cpu ${base_cpu} ms
  bob notes apply (lock+fsync+trace)   wall median ${bob} ms   cpu ${bob_cpu} ms   target <= 5 ms: $verdict
  jq same read-modify-write (no fsync) wall median ${peer} ms   cpu ${peer_cpu} ms
  ratio bob/jq: wall ${ratio}, cpu ${cpu_ratio}
REPORT
}

# On tmpfs the figure is bob's own cost (start-up, parse, lock, apply, write); on the disk it
# includes the fsyncs that make the update durable.
if [[ -d /dev/shm && -w /dev/shm ]]; then bench_in /dev/shm "tmpfs"; fi
bench_in "${TMPDIR:-/tmp}" "disk: $(df -T "${TMPDIR:-/tmp}" | awk 'NR==2 {print $2}')"
