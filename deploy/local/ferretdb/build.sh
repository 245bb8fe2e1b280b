#!/usr/bin/env bash
# Builds FerretDB v1.24.2 (this directory's wrapper) with the patches in patches/: build.sh OUTPUT_BINARY
#
# 01 — lookups by `_id` use the `_id` index. The SQLite backend finds, updates and deletes by
#   WHERE _ferretdb_sjson->'$._id' = ?
# while its unique `_id` index is on `_ferretdb_sjson->'_id'`. Both give the same value, but SQLite uses an
# expression index only for the same expression, so every lookup by `_id` scanned the whole table (an update
# of one document took 35 ms with 3,000 stored, 2.6 ms with 10). Databases created before keep working.
#
# 02 — an `update` command closes each statement's query before the next statement. It deferred the close
# to the end of the command, so every statement kept a connection of the database's pool (100) while the
# next one needed another: one bulk write of 100 or more updates hung the whole database for good.
#
# 03 — an `_id` equality narrows the query also when the filter has other conditions. Only a filter of `_id`
# alone was pushed down to SQLite; `{_id: x, lastOffset: {$lt: n}}` (a guarded update) scanned the table and
# decoded every document (34 ms of CPU per update with 500 documents of 300 bytes; 1.2 ms for `{_id: x}`).
# Safe because the handler filters every document the backend returns again with the whole filter.
#
# 04 — an `update` statement reads its matching documents and closes its query before it writes them. It wrote
# while its query was open, and an open query holds a read snapshot: no WAL checkpoint could then start the log
# over, so under a steady flow of updates the write-ahead log grew without end (47 MB after 6,000 updates of 200
# documents) and each update cost more (0.92 → 1.07 ms of CPU; patched 0.70 ms throughout, the log at 4 MB).
#
# How: the dependencies are vendored into a scratch copy of this module, the patches are applied to the
# vendored FerretDB (git apply: each must apply exactly), and the copy is built with -mod=vendor (Go refuses
# overlays of files in the module cache). See deploy/local/README.md.
set -euo pipefail
out="$(realpath -m "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/go.mod" "$here/go.sum" "$here/main.go" "$work/"
cd "$work"
GOFLAGS=-mod=mod go mod vendor
chmod -R u+w vendor
for p in "$here"/patches/*.patch; do
  # GIT_CEILING_DIRECTORIES: never inside another repository's work tree (git apply would patch relative to it).
  GIT_CEILING_DIRECTORIES="$(dirname "$work")" git apply --directory=vendor/github.com/FerretDB/FerretDB -p1 "$p" ||
    { echo "build.sh: $(basename "$p") does not apply (another FerretDB version?)" >&2; exit 1; }
done
CGO_ENABLED=0 go build -mod=vendor -trimpath -o "$out" .
