#!/usr/bin/env bash
# Installs what the notebooks need: Jupyter from Debian's packages (when
# missing), GoNB and goimports at the versions pinned in nbtools/go.mod, and
# the "Planner (Go)" Jupyter kernel (planner notebook install), which runs
# GoNB with this module wired in. Safe to run again; it only does what is missing.
# Usage: scripts/install-notebook-tools.sh   (as root, or with Jupyter installed)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v jupyter-nbconvert >/dev/null || ! command -v jupyter-kernelspec >/dev/null; then
  echo "installing Jupyter (Debian packages)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  # Wait up to 10 minutes for another apt or dpkg to release its lock
  # rather than fail; keep apt quiet and show its log only on failure.
  APT=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=600)
  LOG="$(mktemp -t apt-notebook-tools.XXXXXX.log)"
  if ! { "${APT[@]}" update && "${APT[@]}" install -y --no-install-recommends \
    jupyter-notebook jupyter-nbconvert jupyter-client jupyter-core \
    python3-nbclient python3-jupyter-client python3-ipykernel python3-nbformat; } >"$LOG" 2>&1; then
    echo "install-notebook-tools: apt-get failed; its output ($LOG):" >&2
    cat "$LOG" >&2
    exit 1
  fi
  rm -f "$LOG"
fi

GOBIN="$(go env GOPATH)/bin"
export GOBIN PATH="$GOBIN:$PATH"
# gonb and goimports are pinned as tools of a separate module: `go install
# pkg@version` fails here while listing versions, `go install tool` does not.
(cd "$ROOT/nbtools" && go install tool)
# gopls only drives autocompletion in a browser; headless runs are faster
# without it on the PATH. NB_GOPLS=1 installs it.
if [ "${NB_GOPLS:-0}" = 1 ]; then go install golang.org/x/tools/gopls@v0.23.0; fi

# The kernel records this checkout and the gonb binary (absolute paths).
(cd "$ROOT" && go run ./cmd/planner notebook install ${PLANNER_KERNEL_FLAGS:-})
specs="$(jupyter kernelspec list 2>/dev/null || true)"
if ! grep -q '^ *planner ' <<<"$specs"; then
  echo "install-notebook-tools: the planner kernel is not registered" >&2
  exit 1
fi
echo "notebook tools ready: $(go version -m "$GOBIN/gonb" | awk '$1=="mod"{print $2, $3}'), $(jupyter-nbconvert --version 2>/dev/null | sed 's/^/nbconvert /')"
