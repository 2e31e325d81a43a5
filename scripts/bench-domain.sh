#!/usr/bin/env bash
# Benchmarks of the domain tools, each against a peer in the same run (medians, ratios):
#  1. a cached scryfall.lookup as a whole `bob tool run` process (policy, cache read, audit
#     with its fdatasync) vs `curl` fetching the same card JSON from the same local fixture
#     server (Scryfall's card format, served by python3 -m http.server);
#  2. bom.normalize on a 10,000-line BOM as a whole `bob tool run` process (JSON in, parse,
#     audit, JSON out) vs an awk script that splits the same lines into quantity and part,
#     plus the tool's own time inside the process (BOB_TOOL_STATS=1);
#  3. web.fetch_text extraction alone on a synthetic 1 MB page and a real 1.5 MB docs page vs
#     python3's html.parser text extraction of the same pages.
#
# Usage: scripts/bench-domain.sh [RUNS]   (default 31; release build, or BOB=path to skip it)
# Wall times are taken with bash's $EPOCHREALTIME around each process (no `date` forks in the
# timed interval); each figure is the median of RUNS runs.
set -euo pipefail

RUNS="${1:-31}"
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
if [ -z "${BOB:-}" ]; then
  cargo build --release -q
  BOB="$PWD/$CARGO_TARGET_DIR/release/bob"
fi
BOB="$(realpath "$BOB")"

work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/site/cards" "$work/home"
cat >"$work/site/cards/named" <<'EOF'
{"object":"card","id":"77c6fa74-5543-42ac-9ead-0e890b188e99","name":"Lightning Bolt","layout":"normal","mana_cost":"{R}","cmc":1.0,"type_line":"Instant","oracle_text":"Lightning Bolt deals 3 damage to any target.","colors":["R"],"color_identity":["R"],"legalities":{"standard":"not_legal","modern":"legal","legacy":"legal","vintage":"legal","commander":"legal","pauper":"legal"},"set":"clu","set_name":"Ravnica: Clue Edition","rarity":"uncommon","scryfall_uri":"https://scryfall.com/card/clu/141/lightning-bolt","image_uris":{"small":"https://cards.scryfall.io/small/front/7/7/77c6fa74.jpg","normal":"https://cards.scryfall.io/normal/front/7/7/77c6fa74.jpg"},"prices":{"usd":"1.12","eur":"1.05","tix":"0.03"}}
EOF
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$work/site" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/cards/named" >/dev/null && break; sleep 0.1; done

export BOB_HOME="$work/home" BOB_SCRYFALL_BASE_URL="http://127.0.0.1:$port"
echo '{"id":"c1","tool":"scryfall.lookup","args":{"name":"Lightning Bolt"}}' >"$work/lookup.json"
lookup="$BOB tool run --enable scryfall.lookup --grant net:127.0.0.1 --input $work/lookup.json"
# Warm the cache and check the answer; the timed runs must be cache hits.
$lookup | grep -q '"name":"Lightning Bolt"' || { echo "lookup failed" >&2; exit 1; }
$lookup | grep -q '"cached":true' || { echo "second lookup was not cached" >&2; exit 1; }
curl_cmd="curl -s -H 'Accept: application/json' http://127.0.0.1:$port/cards/named?exact=Lightning+Bolt"

python3 - "$work" <<'EOF'
import json, sys
w = sys.argv[1]
forms = ["{n}x Motor Mount {i}", "Propeller {i} x{n}", "- ESC {i} - 30A BLHeli", "{n} pcs M3 screw {i}",
         "({n}) Standoff {i}", "Frame part {i}", "* Camera {i}: 1200TVL", "{i}. Capacitor {i} (2)"]
lines = [forms[i % len(forms)].format(i=i, n=i % 9 + 1) for i in range(10000)]
open(f"{w}/bom.txt", "w").write("\n".join(lines) + "\n")
call = {"id": "b1", "tool": "bom.normalize", "args": {"content": "\n".join(lines), "source": "bench"}}
open(f"{w}/bom.json", "w").write(json.dumps(call))
EOF
bom="$BOB tool run --enable bom.normalize --input $work/bom.json"
[ "$($bom | python3 -c 'import json,sys; print(json.load(sys.stdin)["output"]["count"])')" = 10000 ] \
  || { echo "bom.normalize did not return 10000 rows" >&2; exit 1; }
awk_cmd="awk '{ if (match(\$0, /^[0-9]+x /)) { q=substr(\$0,1,RLENGTH-2); p=substr(\$0,RLENGTH+1) } else { q=1; p=\$0 } print q \"\\t\" p }' $work/bom.txt"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
time_ms() { local s e; s=$EPOCHREALTIME; eval "$1" >/dev/null; e=$EPOCHREALTIME; awk -v s="$s" -v e="$e" 'BEGIN {printf "%.3f\n", (e - s) * 1e3}'; }
bench() { # name cmd → median ms over RUNS (interleaved with the peer by the caller)
  for _ in $(seq "$RUNS"); do time_ms "$1"; done | median
}
for _ in 1 2 3; do eval "$lookup" >/dev/null; eval "$curl_cmd" >/dev/null; eval "$bom" >/dev/null; eval "$awk_cmd" >/dev/null; done
lookup_ms=$(bench "$lookup")
curl_ms=$(bench "$curl_cmd")
bom_ms=$(bench "$bom")
awk_ms=$(bench "$awk_cmd")
bom_tool_ms=$(for _ in $(seq "$RUNS"); do BOB_TOOL_STATS=1 $bom 2>&1 >/dev/null | python3 -c 'import json,sys; s=json.loads(sys.stdin.readline())["stats"]; print(round(s["total_ms"]-s["audit_ms"],2))'; done | median)
load=$(cut -d' ' -f1 /proc/loadavg)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
echo "domain tools, median of $RUNS runs (release), load average $load on $(nproc) cores:"
echo "  cached scryfall.lookup, bob tool run process: ${lookup_ms} ms   (target <= 5 ms)"
echo "  curl of the same card from the fixture:       ${curl_ms} ms"
echo "  ratio bob/curl:                               $(ratio "$lookup_ms" "$curl_ms")x"
echo "  bom.normalize 10,000 lines, whole process:    ${bom_ms} ms"
echo "  bom.normalize inside the process (no audit):  ${bom_tool_ms} ms   (target <= 50 ms)"
echo "  awk split of the same 10,000 lines:           ${awk_ms} ms"
echo "  ratio bob process/awk:                        $(ratio "$bom_ms" "$awk_ms")x"

# 3. web.fetch_text extraction alone (BOB_TOOL_STATS=1 reports extract_ms: the time spent
#    turning HTML into readable text, no network, no audit), on two pages: a synthetic 1 MB
#    article with navigation and scripts, and a real one, the rustc book's print.html from the
#    Rust toolchain's local docs (1.5 MB: sidebar, scripts, code blocks; REAL_PAGE=FILE to use
#    another). The peer is python3's html.parser collecting the text outside
#    script/style/nav/header/footer, timed inside python on the same files (file read excluded).
python3 - "$work/site" <<'EOF'
import sys
site = sys.argv[1]
para = "<p>The frame is printed in PETG with four walls; the ducts in TPU at thirty percent infill. Motors are 1404 at 4500KV and props are three blade 3.5 inch.</p>\n"
nav = "<nav><a href='/'>Home</a> <a href='/shop'>Shop</a> <a href='/login'>Login</a></nav><script>var tracking = 'x'.repeat(100);</script>\n"
body = nav + "<article><h1>Cinewhoop build log</h1>" + para * 6400 + "</article><footer>(c) 2026</footer>"
html = "<!doctype html><html><head><title>Cinewhoop build log</title></head><body>" + body + "</body></html>"
open(f"{site}/page.html", "w").write(html)
EOF
REAL_PAGE="${REAL_PAGE:-$(rustc --print sysroot 2>/dev/null)/share/doc/rust/html/rustc/print.html}"
pages=(page.html)
if [ -f "$REAL_PAGE" ]; then cp "$REAL_PAGE" "$work/site/real.html"; pages+=(real.html); fi
peer_extract() { # file → median ms
  python3 - "$1" "$RUNS" <<'EOF'
import sys, time, statistics
from html.parser import HTMLParser
class Text(HTMLParser):
    SKIP = {"script", "style", "nav", "header", "footer", "noscript"}
    def __init__(self):
        super().__init__(); self.depth = 0; self.out = []
    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP: self.depth += 1
    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth: self.depth -= 1
    def handle_data(self, data):
        if not self.depth and data.strip(): self.out.append(data.strip())
html = open(sys.argv[1], encoding="utf-8", errors="replace").read()
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); p = Text(); p.feed(html); text = "\n".join(p.out); times.append((time.perf_counter() - t) * 1000)
print(round(statistics.median(times), 2))
EOF
}
for page in "${pages[@]}"; do
  echo "{\"id\":\"w1\",\"tool\":\"web.fetch_text\",\"args\":{\"url\":\"http://127.0.0.1:$port/$page\"}}" >"$work/fetch.json"
  fetch="$BOB tool run --enable web.fetch_text --grant net:127.0.0.1 --allow-loopback --input $work/fetch.json"
  $fetch | grep -q '"status":200' || { echo "web.fetch_text failed on $page" >&2; exit 1; }
  bytes=$(wc -c <"$work/site/$page")
  extract_ms=$(for _ in $(seq "$RUNS"); do BOB_TOOL_STATS=1 $fetch 2>&1 >/dev/null | python3 -c 'import json,sys; print(round(json.loads(sys.stdin.readline())["stats"]["extract_ms"],2))'; done | median)
  fetch_ms=$(for _ in $(seq "$RUNS"); do BOB_TOOL_STATS=1 $fetch 2>&1 >/dev/null | python3 -c 'import json,sys; s=json.loads(sys.stdin.readline())["stats"]; print(round(s["total_ms"]-s["audit_ms"],2))'; done | median)
  peer_ms=$(peer_extract "$work/site/$page")
  echo "  web.fetch_text $page ($bytes bytes), extraction alone: ${extract_ms} ms   (target <= 30 ms)"
  echo "    tool time including the loopback fetch:        ${fetch_ms} ms"
  echo "    python3 html.parser text extraction (peer):   ${peer_ms} ms"
  echo "    ratio bob extraction/peer:                    $(ratio "$extract_ms" "$peer_ms")x"
done
