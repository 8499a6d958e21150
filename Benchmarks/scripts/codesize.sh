#!/usr/bin/env bash
# make bench-codesize: generated-code cost of both generators. scripts/codesize.py measures the
# synthetic schema and descriptor.proto (plugin time, compile time, machine code per message);
# scripts/codesize_protos.py the machine code of real .proto files, file set by file set. Builds
# what it needs: the two plugins in release, and release builds of SwiftFrame and SwiftProtobuf
# to compile the generated code against. protobuf's unit-test protos are editions files: they are
# generated with protoc 35.1 when scripts/ensure-protoc.sh has installed it, else with PROTOC.
set -euo pipefail
source "$(dirname "$0")/plugins.sh"
cd "$bench_dir"
sf_plugin="$(swiftframe_plugin)"
pb_plugin="$(protoc_gen_swift)"
modules="$(release_modules)"
mkdir -p results .build/codesize .build/codesize-protos
python3 scripts/codesize.py "$sf_plugin" "$pb_plugin" "$modules" .build/codesize
cp .build/codesize/codesize.md results/codesize.md
# Files that import descriptor.proto need SwiftFrameDescriptors, which the plugin's build has.
plugin_modules="$(dirname "$sf_plugin")/Modules"
protoc35="$("$root_dir/scripts/protoc35.sh")"
[ -x "$protoc35" ] && export PROTOC="${PROTOC:-$protoc35}"
python3 scripts/codesize_protos.py "$sf_plugin" "$pb_plugin" "$plugin_modules:$modules" .build/codesize-protos
cp .build/codesize-protos/codesize-protos.md results/codesize-protos.md
