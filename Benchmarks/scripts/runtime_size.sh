#!/usr/bin/env bash
# make bench-runtime-size: -O machine code of the runtime libraries, and of a program that
# decodes one message with each (scripts/runtime_size.py does the measuring). Builds the
# plugin and release builds of SwiftFrame, SwiftFrameNIO and SwiftProtobuf.
set -euo pipefail
source "$(dirname "$0")/plugins.sh"
cd "$bench_dir"
sf_plugin="$(swiftframe_plugin)"
for target in SwiftFrame SwiftFrameNIO SwiftProtobuf; do
    swift build -c release --target "$target" >&2
done
rm -rf .build/runtime-size
mkdir -p results
python3 scripts/runtime_size.py "$sf_plugin" .build/runtime-size
cp .build/runtime-size/runtime-size.md results/runtime-size.md
