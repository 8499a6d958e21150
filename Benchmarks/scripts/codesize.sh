#!/usr/bin/env bash
# make bench-codesize: generated-code cost of both generators (scripts/codesize.py does the
# measuring). Builds what it needs: the two plugins in release, and release builds of SwiftFrame
# and SwiftProtobuf to compile the generated code against.
set -euo pipefail
source "$(dirname "$0")/plugins.sh"
cd "$bench_dir"
sf_plugin="$(swiftframe_plugin)"
pb_plugin="$(protoc_gen_swift)"
modules="$(release_modules)"
mkdir -p results .build/codesize
python3 scripts/codesize.py "$sf_plugin" "$pb_plugin" "$modules" .build/codesize
cp .build/codesize/codesize.md results/codesize.md
