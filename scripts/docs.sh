#!/usr/bin/env bash
# Builds the DocC documentation of every catalog (each target with a .docc folder) with
# swift-docc-plugin and fails if DocC warns (an unresolved symbol or article link, an
# undocumented parameter, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
for catalog in Sources/*/*.docc; do
    targets+=(--target "$(basename "$(dirname "$catalog")")")
done
log=$(swift package generate-documentation "${targets[@]}" 2>&1) \
    || { echo "$log"; exit 1; }
if grep -A6 "warning:" <<< "$log"; then
    echo "docs: DocC warnings (above)" >&2
    exit 1
fi
grep "doccarchive" <<< "$log"
