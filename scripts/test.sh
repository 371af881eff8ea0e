#!/usr/bin/env bash
# Runs every check of the project: formatting, vet, the Go tests (unit,
# golden, example and fuzz seed corpora). Exits non-zero on any failure.
# Usage: scripts/test.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

echo "== gofmt"
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 ./...

echo "all checks passed"
