#!/usr/bin/env bash
# Installs what the browser tests need, from Debian's packages, when it is
# missing: chromium (the report and playground screenshots) and node with
# npm (the playground test drives the page with playwright-core from npm).
# Safe to run again; it only installs what is missing.
# Usage: scripts/install-browser-tools.sh   (as root, or through sudo)
set -euo pipefail

pkgs=()
command -v chromium >/dev/null || pkgs+=(chromium)
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)
if [ ${#pkgs[@]} = 0 ]; then
  echo "browser tools ready: $(chromium --version 2>/dev/null | head -1), node $(node --version)"
  exit 0
fi

echo "installing ${pkgs[*]} (Debian packages)"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
# Wait up to 10 minutes for another apt or dpkg to release its lock; keep
# apt quiet and show its log only on failure.
APT=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=600)
LOG="$(mktemp -t apt-browser-tools.XXXXXX.log)"
if ! { "${APT[@]}" update && "${APT[@]}" install -y --no-install-recommends "${pkgs[@]}"; } >"$LOG" 2>&1; then
  echo "install-browser-tools: apt-get failed; its output ($LOG):" >&2
  cat "$LOG" >&2
  exit 1
fi
rm -f "$LOG"
echo "browser tools ready: $(chromium --version 2>/dev/null | head -1), node $(node --version)"
