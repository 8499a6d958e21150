#!/usr/bin/env bash
# Runs protoc with the given plugin over every input the project generates, writing below
# OUT_ROOT with the repository's layout:
#   Fixtures/protos/*.proto                -> Fixtures/generated
#   google/protobuf well-known types       -> Sources/SwiftFrameWellKnownTypes/Generated
#   descriptor.proto                       -> Sources/SwiftFrameDescriptors/Generated
#   plugin.proto                           -> Sources/SwiftFrameGenerator/Descriptor/Generated
#   ../shared/protos/conformance/*.proto   -> Sources/SwiftFrameConformanceMessages (when present)
#   scripts/generate.sh PLUGIN OUT_ROOT
set -euo pipefail
plugin="$1"
out_root="$2"
cd "$(dirname "$0")/.."
include="${PROTOBUF_INCLUDE:-/usr/include}"

fresh() { rm -rf "$1"; mkdir -p "$1"; }

run() {
    local out="$1"; shift
    fresh "$out"
    protoc --plugin=protoc-gen-swiftframe="$plugin" --swiftframe_out="$out" "$@"
}

run "$out_root/Fixtures/generated" -I Fixtures/protos -I Protos $(ls Fixtures/protos/*.proto | sort)

wkt="any api duration empty field_mask source_context struct timestamp type wrappers"
run "$out_root/Sources/SwiftFrameWellKnownTypes/Generated" -I "$include" \
    $(for name in $wkt; do echo "google/protobuf/$name.proto"; done)

# descriptor.proto ships in its own module; the plugin reads its input through it and through
# plugin.proto (self-hosting).
run "$out_root/Sources/SwiftFrameDescriptors/Generated" -I "$include" google/protobuf/descriptor.proto
run "$out_root/Sources/SwiftFrameGenerator/Descriptor/Generated" -I "$include" google/protobuf/compiler/plugin.proto

conformance=../shared/protos/conformance
if [ -d "$conformance" ]; then
    run "$out_root/Sources/SwiftFrameConformanceMessages" -I "$conformance" -I "$include" \
        conformance.proto test_messages_proto2.proto test_messages_proto3.proto
else
    echo "note: $conformance not found; the conformance messages were not regenerated" >&2
fi
