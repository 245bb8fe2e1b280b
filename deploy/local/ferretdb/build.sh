#!/usr/bin/env bash
# Builds FerretDB v1.24.2 (this directory's wrapper) with one constant patched: build.sh OUTPUT_BINARY
#
# Why the patch: the SQLite backend finds, updates and deletes a document by `_id` with
#   WHERE _ferretdb_sjson->'$._id' = ?
# while the unique `_id` index it creates is on `_ferretdb_sjson->'_id'`. Both expressions give the same
# value, but SQLite uses an expression index only for the same expression, so every lookup by `_id` scanned
# the whole table (an update of one session document took 35 ms with 3,000 sessions stored, 2.6 ms with 10;
# see deploy/local/README.md). The patch writes the lookup the way the index is written; nothing else
# changes, and databases created before keep working (their index is the same).
#
# How: the dependencies are vendored into a scratch copy of this module, the vendored file is patched, and
# the copy is built with -mod=vendor (Go refuses overlays of files in the module cache).
set -euo pipefail
out="$(realpath -m "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/go.mod" "$here/go.sum" "$here/main.go" "$work/"
cd "$work"
GOFLAGS=-mod=mod go mod vendor
file=vendor/github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata/metadata.go
from="IDColumn = DefaultColumn + \"->'\$._id'\""
to="IDColumn = DefaultColumn + \"->'_id'\""
grep -qF "$from" "$file" || { echo "build.sh: '$from' not found in $file (another FerretDB version?)" >&2; exit 1; }
sed -i "s|->'\\\$\\._id'|->'_id'|" "$file"
grep -qF "$to" "$file" || { echo "build.sh: the patch did not apply to $file" >&2; exit 1; }
CGO_ENABLED=0 go build -mod=vendor -trimpath -o "$out" .
