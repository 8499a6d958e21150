#!/usr/bin/env bash
# Builds the DocC documentation of SwiftFrame and SwiftFrameNIO with swift-docc-plugin and
# fails if DocC warns (an unresolved symbol link, an undocumented parameter, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(swift package generate-documentation --target SwiftFrame --target SwiftFrameNIO 2>&1) \
    || { echo "$log"; exit 1; }
if grep -A6 "warning:" <<< "$log"; then
    echo "docs: DocC warnings (above)" >&2
    exit 1
fi
grep "doccarchive" <<< "$log"
