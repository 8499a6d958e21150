#!/usr/bin/env bash
# Runs protoc with the given plugin over every Fixtures/protos/*.proto into OUT_DIR.
#   scripts/generate-fixtures.sh PLUGIN OUT_DIR
set -euo pipefail
plugin="$1"
out="$2"
cd "$(dirname "$0")/.."
rm -rf "$out"
mkdir -p "$out"
protoc --plugin=protoc-gen-swiftframe="$plugin" --swiftframe_out="$out" \
    -I Fixtures/protos -I Protos $(ls Fixtures/protos/*.proto | sort)
