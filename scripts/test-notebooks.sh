#!/usr/bin/env bash
# Executes the notebooks headlessly with Jupyter and the planner kernel (GoNB) and
# fails when any cell fails: a compile error, a panic, a failed check or
# %test, a failed "!" command, or when the prose states a number with a
# unit that no cell near it printed (nbcheck -numbers). Then runs the canary notebook, whose cells
# tagged must-fail each break in a different way, and fails unless every
# one of them was caught.
#
# Writes executed copies, HTML exports and per-notebook kernel logs under
# $NB_OUT (default build/notebooks, git-ignored). Notebooks are committed
# without outputs; this is checked first.
#
# Usage: scripts/test-notebooks.sh [notebook.ipynb ...]
#   (default: notebooks/*.ipynb; run scripts/install-notebook-tools.sh first)
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${NB_OUT:-$ROOT/build/notebooks}"
CANARY=notebooks/testdata/canary.ipynb
mkdir -p "$OUT"
export PATH="$(go env GOPATH)/bin:$PATH"
# Cells check NB_HEADLESS to skip what needs a browser (widgets).
export NB_HEADLESS=1
go build -o "$OUT/nbcheck" ./cmd/nbcheck || exit 1

# A private copy of the planner kernel, for this checkout, with plain-text
# compile errors for readable logs; the user's own kernel is left as it is.
export JUPYTER_DATA_DIR="$OUT/jupyter-data"
go run ./cmd/planner notebook install --root "$ROOT" --raw-error >/dev/null || {
  echo "no planner kernel: run scripts/install-notebook-tools.sh"; exit 1; }

if [ $# -gt 0 ]; then nbs=("$@"); else
  mapfile -t nbs < <(find notebooks -maxdepth 1 -name '*.ipynb' | sort)
fi
"$OUT/nbcheck" -clean "${nbs[@]}" "$CANARY" || exit 1

# execute NOTEBOOK NAME: runs it into $OUT/NAME.ipynb; nbconvert fails only
# when a cell times out or the kernel dies (--allow-errors keeps going).
execute() {
  if ! jupyter nbconvert --to notebook --execute --allow-errors \
      --ExecutePreprocessor.kernel_name=planner --ExecutePreprocessor.timeout="${NB_CELL_TIMEOUT:-300}" \
      --output-dir "$OUT" --output "$2" "$1" >"$OUT/$2.log" 2>&1; then
    echo "FAIL $1: nbconvert failed (cell timeout? kernel died?); log tail:"
    grep -v '^[IWE][0-9]\{4\} ' "$OUT/$2.log" | tail -25
    return 1
  fi
}

pass=0 fail=0
for nb in "${nbs[@]}"; do
  name="$(basename "${nb%.ipynb}")"
  start=$SECONDS
  if execute "$nb" "$name" && "$OUT/nbcheck" "$OUT/$name.ipynb" >"$OUT/$name.check" &&
    "$OUT/nbcheck" -numbers "$OUT/$name.ipynb" >>"$OUT/$name.check"; then
    pass=$((pass+1)); echo "ok   $nb ($((SECONDS-start)) s)"
    jupyter nbconvert --to html --output-dir "$OUT" "$OUT/$name.ipynb" >/dev/null 2>&1 || echo "     (HTML export failed)"
  else
    fail=$((fail+1)); echo "FAIL $nb ($((SECONDS-start)) s)"
    cat "$OUT/$name.check" 2>/dev/null
  fi
done

# The canary must fail the harness, and each of its must-fail cells must be
# among the failures.
start=$SECONDS
if execute "$CANARY" canary && ! "$OUT/nbcheck" "$OUT/canary.ipynb" >/dev/null && "$OUT/nbcheck" -canary "$OUT/canary.ipynb"; then
  echo "ok   $CANARY: every broken cell was caught ($((SECONDS-start)) s)"
else
  fail=$((fail+1)); echo "FAIL $CANARY: the harness missed a broken cell"
fi

echo "notebooks: $pass passed, $fail failed (executed copies and HTML in $OUT)"
[ "$fail" -eq 0 ]
