#!/usr/bin/env bash
# Runs protoc with the given plugin over every input the project generates, writing below
# OUT_ROOT with the repository's layout:
#   Fixtures/protos/*.proto                -> Fixtures/generated (and, OptimizeFor=CODE_SIZE,
#                                             Fixtures/generated-compact)
#   Fixtures/conventions/NAME/ (+ config)  -> Fixtures/generated/conventions/NAME
#   google/protobuf well-known types       -> Sources/SwiftFrameWellKnownTypes/Generated
#   descriptor.proto                       -> Sources/SwiftFrameDescriptors/Generated
#   plugin.proto                           -> Sources/SwiftFrameGenerator/Descriptor/Generated
#   Protos/swiftframe/*.proto
#                                          -> Sources/SwiftFrameGenerator/Config/Generated
#   Protos/conformance/*.proto             -> Sources/SwiftFrameConformanceMessages (and Compact)
#   Fixtures/PluginPackage/protos          -> Fixtures/PluginPackage/Sources/SharedProtocol/Generated
#   scripts/generate.sh PLUGIN OUT_ROOT
#
# protoc's warnings (stderr) of every run, each line prefixed with the run's output directory,
# must be those in Fixtures/expected-warnings.txt (compared sorted): then only a summary is
# printed. Any other warning, or a missing one, fails the script, showing the difference. To
# accept a new set, run with SWIFTFRAME_ACCEPT_WARNINGS=1, which rewrites the file.
set -euo pipefail
plugin="$1"
out_root="$2"
cd "$(dirname "$0")/.."
include="${PROTOBUF_INCLUDE:-/usr/include}"
expected_warnings=Fixtures/expected-warnings.txt

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
warnings="$scratch/warnings"
: > "$warnings"
runs=0
files=0

fresh() { rm -rf "$1"; mkdir -p "$1"; }

run() {
    local out="$1"; shift
    fresh "$out"
    if ! protoc --plugin=protoc-gen-swiftframe="$plugin" --swiftframe_out="$out" "$@" 2> "$scratch/stderr"; then
        echo "generate: protoc failed writing ${out#"$out_root"/}:" >&2
        cat "$scratch/stderr" >&2
        exit 1
    fi
    sed "s|^|${out#"$out_root"/}: |" "$scratch/stderr" >> "$warnings"
    runs=$((runs + 1))
    # Counted now: a later run may write below this one's directory.
    files=$((files + $(find "$out" -name '*.swift' | wc -l)))
}

run "$out_root/Fixtures/generated" -I Fixtures/protos -I Protos $(ls Fixtures/protos/*.proto | sort)
# The same files for optimize_for = CODE_SIZE: field tables and the runtime's shared codec.
run "$out_root/Fixtures/generated-compact" --swiftframe_opt=OptimizeFor=CODE_SIZE -I Fixtures/protos -I Protos \
    $(ls Fixtures/protos/*.proto | sort)

# Projects' own command-id conventions: unmodified .proto files plus a config file each.
for dir in Fixtures/conventions/*/; do
    name=$(basename "$dir")
    run "$out_root/Fixtures/generated/conventions/$name" -I "$dir" -I "$include" \
        --swiftframe_opt=Config="$(ls "$dir"*.txtpb)" $(cd "$dir" && ls *.proto)
    run "$out_root/Fixtures/generated-compact/conventions/$name" -I "$dir" -I "$include" \
        --swiftframe_opt=Config="$(ls "$dir"*.txtpb)",OptimizeFor=CODE_SIZE $(cd "$dir" && ls *.proto)
done

wkt="any api duration empty field_mask source_context struct timestamp type wrappers"
run "$out_root/Sources/SwiftFrameWellKnownTypes/Generated" -I "$include" \
    $(for name in $wkt; do echo "google/protobuf/$name.proto"; done)

# descriptor.proto ships in its own module; the plugin reads its input through it and through
# plugin.proto (self-hosting).
run "$out_root/Sources/SwiftFrameDescriptors/Generated" -I "$include" google/protobuf/descriptor.proto
run "$out_root/Sources/SwiftFrameGenerator/Descriptor/Generated" -I "$include" google/protobuf/compiler/plugin.proto

# swiftframe's own options and command configuration, which the plugin reads.
config_out="$out_root/Sources/SwiftFrameGenerator/Config/Generated"
run "$config_out" --swiftframe_opt=Visibility=internal -I Protos -I "$include" \
    swiftframe/options.proto swiftframe/config.proto

run "$out_root/Sources/SwiftFrameConformanceMessages" -I Protos/conformance -I "$include" \
    conformance.proto test_messages_proto2.proto test_messages_proto3.proto
run "$out_root/Sources/SwiftFrameConformanceMessagesCompact" --swiftframe_opt=OptimizeFor=CODE_SIZE \
    -I Protos/conformance -I "$include" conformance.proto test_messages_proto2.proto test_messages_proto3.proto

# The checked-in sources of the SwiftPM plugin test package, as its generate-swiftframe
# command writes them (Sources/SharedProtocol/swiftframe.json; make check-plugins compares).
run "$out_root/Fixtures/PluginPackage/Sources/SharedProtocol/Generated" --swiftframe_opt=Visibility=public \
    -I Fixtures/PluginPackage/protos $(cd Fixtures/PluginPackage/protos && find . -name '*.proto' | sed 's|^\./||' | sort)

LC_ALL=C sort "$warnings" > "$scratch/sorted"
if [ "${SWIFTFRAME_ACCEPT_WARNINGS:-0}" = 1 ]; then
    { grep '^#' "$expected_warnings" 2>/dev/null || true; cat "$scratch/sorted"; } > "$scratch/accepted"
    cp "$scratch/accepted" "$expected_warnings"
fi
# Lines starting with # in the file are comments.
grep -v '^#' "$expected_warnings" > "$scratch/expected" 2>/dev/null || true
if ! diff -u "$scratch/expected" "$scratch/sorted" > "$scratch/diff"; then
    echo "generate FAILED: protoc's warnings are not those in $expected_warnings (- expected, + now):" >&2
    tail -n +3 "$scratch/diff" >&2
    echo "Fix the cause, or accept the new set with SWIFTFRAME_ACCEPT_WARNINGS=1 make generate and commit it." >&2
    exit 1
fi
echo "generated $files files in $runs protoc runs; $(wc -l < "$scratch/sorted" | tr -d ' ') expected warnings ($expected_warnings)"
