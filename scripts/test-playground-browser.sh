#!/usr/bin/env bash
# Drives the playground in headless Chromium, twice. The web page
# ("planner playground"): loads it, changes two controls (ZeRO stage 0 on
# 8 GPUs), and fails unless the inventory chart and the fit verdict change
# and the address holds the new setting. The notebook (notebooks/10, in
# the classic Jupyter Notebook with the Planner (Go) kernel): changes a
# control, presses "done", and fails unless the chart redrew, the
# controls are gone and the kernel is idle. Skips (exit 0, with a message) when chromium or node is absent
# or playwright-core cannot be installed; the Go test of the same page
# (cmd/planner TestPlaygroundPage) always runs.
# Usage: scripts/test-playground-browser.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${NB_OUT:-$ROOT/build/playground-browser}"
CHROMIUM="$(command -v chromium || true)"
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null; then
  echo "SKIP playground browser test: needs chromium (apt-get install chromium) and node"; exit 0
fi
mkdir -p "$OUT"
if [ ! -d "$OUT/node_modules/playwright-core" ]; then
  (cd "$OUT" && npm install --silent --no-save playwright-core@1.65.1 >/dev/null 2>&1) || {
    echo "SKIP playground browser test: npm could not install playwright-core"; exit 0; }
fi
cd "$ROOT"
go build -o "$OUT/planner" ./cmd/planner
PORT="${PLAYGROUND_PORT:-18765}"
"$OUT/planner" playground --addr "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q '^playground:' "$OUT/server.log" && break; sleep 0.1; done
cp "$ROOT/scripts/playground-browser.js" "$OUT/"
CHROMIUM="$CHROMIUM" URL="http://127.0.0.1:$PORT/" SHOT="$OUT/playground.png" node "$OUT/playground-browser.js"

if ! command -v jupyter-notebook >/dev/null; then
  echo "SKIP playground notebook: needs jupyter-notebook (scripts/install-notebook-tools.sh)"; exit 0
fi
# A copy of the notebook outside the repository, so autosave cannot touch
# the committed one; its kernel then uses the checkout given by --root.
NBDIR="$OUT/nb"
rm -rf "$NBDIR" && mkdir -p "$NBDIR"
cp notebooks/10-playground.ipynb "$NBDIR/"
unset NB_HEADLESS
export JUPYTER_DATA_DIR="$OUT/jupyter-data"
"$OUT/planner" notebook install --root "$ROOT" >/dev/null
NBPORT=$((PORT + 1))
(cd "$NBDIR" && exec jupyter-notebook --no-browser --ip=127.0.0.1 --port="$NBPORT" --NotebookApp.token=tok \
  --notebook-dir="$NBDIR" --allow-root) >"$OUT/jupyter.log" 2>&1 &
jupyter=$!
trap 'kill "$server" "$jupyter" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "127.0.0.1:$NBPORT" "$OUT/jupyter.log" && break; sleep 0.2; done
cp "$ROOT/scripts/playground-notebook.js" "$OUT/"
CHROMIUM="$CHROMIUM" NB_URL="http://127.0.0.1:$NBPORT/notebooks/10-playground.ipynb?token=tok" NB_SHOT="$OUT/notebook.png" \
  node "$OUT/playground-notebook.js"
